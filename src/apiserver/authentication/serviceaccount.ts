// Service-account JWTs ([k8s] pkg/serviceaccount/jwt.go, claims.go, legacy.go). A token is ours
// when it is a JWS whose `iss` is one of the accepted issuers (or the legacy issuer); anything
// else gets no opinion so that other token authenticators can try. Ours but invalid -> 401.
import type { KeyObject } from "node:crypto";
import type { KubeObject } from "../../apis/meta/v1/types.ts";
import { StatusError } from "../../apimachinery/errors.ts";
import { type Clock, realClock } from "../../utils/clock.ts";
import type { InternalClient } from "../registry/client.ts";
import { audiencesOf, kubernetesClaimOf } from "../serviceaccount/claims.ts";
import { decodeJwt, verifyJwtSignature } from "../serviceaccount/jwt.ts";
import { LEGACY_ISSUER, makeGroupNames, makeUsername } from "../serviceaccount/util.ts";
import { GROUP_AUTHENTICATED, type TokenAuthResult, type TokenAuthenticator } from "./types.ts";
import { PODS, SECRETS, SERVICE_ACCOUNTS } from "../registry/core/resources.ts";

/** Clock skew tolerated on exp/nbf/iat, as go-jose's DefaultLeeway. */
const LEEWAY_SECONDS = 60;

export interface ServiceAccountTokenAuthenticatorOptions {
  /** Verification keys (`--service-account-key-file`, or the public half of sa.key). */
  publicKeys: KeyObject[];
  /** Accepted `iss` values (`--service-account-issuer`, repeatable). */
  issuers: string[];
  /** Audiences a token must have one of when the caller names none. Default: `issuers`. */
  apiAudiences?: string[];
  /** Used to check that the service account (and bound pod/secret) still exist with the same UID. */
  client: InternalClient;
  clock?: Clock;
  /** Accept legacy Secret-based tokens (iss `kubernetes/serviceaccount`). Default true. */
  legacy?: boolean;
}

export class ServiceAccountTokenAuthenticator implements TokenAuthenticator {
  private readonly clock: Clock;
  private readonly issuers: Set<string>;
  private readonly apiAudiences: string[];

  constructor(private readonly opts: ServiceAccountTokenAuthenticatorOptions) {
    this.clock = opts.clock ?? realClock;
    this.issuers = new Set(opts.issuers);
    if (opts.legacy ?? true) this.issuers.add(LEGACY_ISSUER);
    this.apiAudiences = opts.apiAudiences ?? opts.issuers;
  }

  async authenticateToken(token: string, audiences?: string[]): Promise<TokenAuthResult | undefined> {
    const jwt = decodeJwt(token);
    if (!jwt || typeof jwt.claims.iss !== "string" || !this.issuers.has(jwt.claims.iss)) return undefined;
    if (!(await verifyJwtSignature(jwt, this.opts.publicKeys))) throw unauthorized("invalid bearer token, token signature is invalid");

    const wanted = audiences && audiences.length > 0 ? audiences : this.apiAudiences;
    if (jwt.claims.iss === LEGACY_ISSUER) {
      const user = await this.validateLegacy(jwt.claims, token);
      // Legacy tokens carry no audience: they are valid for the API audiences only.
      const auds = wanted.filter((a) => this.apiAudiences.includes(a));
      if (auds.length === 0) throw unauthorized(`token audiences ${fmt(this.apiAudiences)} is invalid for the target audiences ${fmt(wanted)}`);
      return { user, audiences: auds };
    }

    const tokenAuds = audiencesOf(jwt.claims);
    const auds = wanted.filter((a) => tokenAuds.includes(a));
    if (auds.length === 0) throw unauthorized(`token audiences ${fmt(tokenAuds)} is invalid for the target audiences ${fmt(wanted)}`);
    this.validateTimes(jwt.claims);
    const k8s = kubernetesClaimOf(jwt.claims);
    if (!k8s) throw unauthorized("service account token claims could not be validated due to unexpected private claim");

    const ns = k8s.namespace;
    const sa = await this.opts.client.get(SERVICE_ACCOUNTS, ns, k8s.serviceaccount.name);
    checkLive("service account", sa, ns, k8s.serviceaccount.name, k8s.serviceaccount.uid);
    const extra: Record<string, string[]> = {};
    if (k8s.pod) {
      const pod = await this.opts.client.get(PODS, ns, k8s.pod.name);
      checkLive("pod", pod, ns, k8s.pod.name, k8s.pod.uid);
      extra["authentication.kubernetes.io/pod-name"] = [k8s.pod.name];
      extra["authentication.kubernetes.io/pod-uid"] = [k8s.pod.uid];
    }
    if (k8s.secret) {
      const secret = await this.opts.client.get(SECRETS, ns, k8s.secret.name);
      checkLive("secret", secret, ns, k8s.secret.name, k8s.secret.uid);
    }
    if (typeof jwt.claims.jti === "string" && jwt.claims.jti) extra["authentication.kubernetes.io/credential-id"] = [`JTI=${jwt.claims.jti}`];
    const user = {
      username: makeUsername(ns, k8s.serviceaccount.name),
      uid: k8s.serviceaccount.uid,
      groups: [...makeGroupNames(ns), GROUP_AUTHENTICATED],
      ...(Object.keys(extra).length > 0 ? { extra } : {}),
    };
    return { user, audiences: auds };
  }

  private validateTimes(claims: Record<string, unknown>): void {
    const now = Math.floor(this.clock.nowMs() / 1000);
    const num = (k: string) => (typeof claims[k] === "number" ? (claims[k] as number) : undefined);
    const exp = num("exp");
    const nbf = num("nbf");
    const iat = num("iat");
    if (exp === undefined) throw unauthorized("service account token has no expiration");
    if (now - LEEWAY_SECONDS > exp) throw unauthorized("service account token has expired");
    if (nbf !== undefined && now + LEEWAY_SECONDS < nbf) throw unauthorized("service account token is not valid yet");
    if (iat !== undefined && now + LEEWAY_SECONDS < iat) throw unauthorized("service account token is issued in the future");
  }

  private async validateLegacy(claims: Record<string, unknown>, token: string) {
    const str = (k: string) => (typeof claims[k] === "string" ? (claims[k] as string) : "");
    const ns = str("kubernetes.io/serviceaccount/namespace");
    const saName = str("kubernetes.io/serviceaccount/service-account.name");
    const saUid = str("kubernetes.io/serviceaccount/service-account.uid");
    const secretName = str("kubernetes.io/serviceaccount/secret.name");
    if (!ns || !saName || !saUid || !secretName) throw unauthorized("service account token claims could not be validated: missing legacy claims");
    const secret = await this.opts.client.get(SECRETS, ns, secretName);
    checkLive("secret", secret, ns, secretName, undefined);
    const data = (secret!.data ?? {}) as Record<string, string>;
    if (Buffer.from(data.token ?? "", "base64").toString("utf8") !== token) {
      throw unauthorized(`token does not match the token in secret ${ns}/${secretName}`);
    }
    const sa = await this.opts.client.get(SERVICE_ACCOUNTS, ns, saName);
    checkLive("service account", sa, ns, saName, saUid);
    return { username: makeUsername(ns, saName), uid: saUid, groups: [...makeGroupNames(ns), GROUP_AUTHENTICATED] };
  }
}

/** Throws 401 when the object is missing, being deleted or (if uid given) a different incarnation. */
function checkLive(what: string, obj: KubeObject | undefined, ns: string, name: string, uid: string | undefined): void {
  if (!obj || obj.metadata.deletionTimestamp) throw unauthorized(`${what} ${ns}/${name} has been deleted`);
  if (uid !== undefined && obj.metadata.uid !== uid) {
    throw unauthorized(`${what} UID (${obj.metadata.uid ?? ""}) does not match claim (${uid})`);
  }
}

function unauthorized(message: string): StatusError {
  return new StatusError(401, "Unauthorized", message);
}

function fmt(xs: string[]): string {
  return `[${xs.map((x) => JSON.stringify(x)).join(" ")}]`;
}
