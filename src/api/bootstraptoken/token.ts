// Bootstrap tokens (k8s.io/cluster-bootstrap/token): `<id>.<secret>` bearer tokens stored as
// Secrets `bootstrap-token-<id>` of type `bootstrap.kubernetes.io/token` in kube-system. Shared by
// the API server's authenticator and token cleaner and by whoever creates tokens (gardener-local).
import { randomInt } from "node:crypto";
import type { Secret } from "../../apis/core/v1/types.ts";
import { metaTime } from "../../utils/time.ts";

export const BOOTSTRAP_TOKEN_NAMESPACE = "kube-system";
export const BOOTSTRAP_TOKEN_SECRET_TYPE = "bootstrap.kubernetes.io/token";
export const BOOTSTRAP_TOKEN_SECRET_PREFIX = "bootstrap-token-";
export const BOOTSTRAP_USER_PREFIX = "system:bootstrap:";
export const BOOTSTRAPPERS_GROUP = "system:bootstrappers";
/** Secret data keys. */
export const KEY_TOKEN_ID = "token-id";
export const KEY_TOKEN_SECRET = "token-secret";
export const KEY_EXPIRATION = "expiration";
export const KEY_DESCRIPTION = "description";
export const KEY_EXTRA_GROUPS = "auth-extra-groups";
export const KEY_USAGE_AUTHENTICATION = "usage-bootstrap-authentication";
export const KEY_USAGE_SIGNING = "usage-bootstrap-signing";

const TOKEN_RE = /^([a-z0-9]{6})\.([a-z0-9]{16})$/;
const EXTRA_GROUP_RE = /^system:bootstrappers:[a-z0-9:-]{0,255}[a-z0-9]$/;
const ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789";

/** The id and secret of a well-formed token, else undefined. */
export function parseBootstrapToken(token: string): { id: string; secret: string } | undefined {
  const m = TOKEN_RE.exec(token);
  return m ? { id: m[1]!, secret: m[2]! } : undefined;
}

export function bootstrapTokenSecretName(id: string): string {
  return `${BOOTSTRAP_TOKEN_SECRET_PREFIX}${id}`;
}

/** A new random token (6 + 16 characters of [a-z0-9]). */
export function generateBootstrapToken(): { id: string; secret: string; token: string } {
  const pick = (n: number) => Array.from({ length: n }, () => ALPHABET[randomInt(ALPHABET.length)]).join("");
  const id = pick(6);
  const secret = pick(16);
  return { id, secret, token: `${id}.${secret}` };
}

/** A Secret's data value, decoded ("" when absent). */
export function secretString(secret: Secret, key: string): string {
  const v = secret.data?.[key];
  return typeof v === "string" ? Buffer.from(v, "base64").toString("utf8") : "";
}

/** The expiration time in ms, undefined without one, NaN when unparseable (treated as expired). */
export function expirationOf(secret: Secret): number | undefined {
  const v = secretString(secret, KEY_EXPIRATION);
  if (!v) return undefined;
  return /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(v) ? Date.parse(v) : NaN;
}

export function isExpired(secret: Secret, nowMs: number): boolean {
  const exp = expirationOf(secret);
  return exp !== undefined && (Number.isNaN(exp) || exp <= nowMs);
}

/** system:bootstrappers plus the valid `auth-extra-groups`; throws on an invalid extra group. */
export function groupsOf(secret: Secret): string[] {
  const groups = [BOOTSTRAPPERS_GROUP];
  const extra = secretString(secret, KEY_EXTRA_GROUPS);
  if (!extra) return groups;
  for (const g of extra.split(",").map((s) => s.trim())) {
    if (!EXTRA_GROUP_RE.test(g)) throw new Error(`bootstrap group ${JSON.stringify(g)} is invalid (must match ${EXTRA_GROUP_RE.source})`);
    if (!groups.includes(g)) groups.push(g);
  }
  return groups;
}

export interface BootstrapTokenSecretOptions {
  id: string;
  secret: string;
  expiration?: Date;
  description?: string;
  extraGroups?: string[];
}

/** The Secret that makes a token valid for authentication (and signing). */
export function bootstrapTokenSecret(o: BootstrapTokenSecretOptions): Secret {
  const stringData: Record<string, string> = {
    [KEY_TOKEN_ID]: o.id,
    [KEY_TOKEN_SECRET]: o.secret,
    [KEY_USAGE_AUTHENTICATION]: "true",
    [KEY_USAGE_SIGNING]: "true",
  };
  if (o.expiration) stringData[KEY_EXPIRATION] = metaTime(o.expiration);
  if (o.description) stringData[KEY_DESCRIPTION] = o.description;
  if (o.extraGroups?.length) stringData[KEY_EXTRA_GROUPS] = o.extraGroups.join(",");
  const data = Object.fromEntries(Object.entries(stringData).map(([k, v]) => [k, Buffer.from(v).toString("base64")]));
  return {
    apiVersion: "v1",
    kind: "Secret",
    metadata: { name: bootstrapTokenSecretName(o.id), namespace: BOOTSTRAP_TOKEN_NAMESPACE },
    type: BOOTSTRAP_TOKEN_SECRET_TYPE,
    data,
  };
}
