// Bootstrap token authentication (plugin/pkg/auth/authenticator/token/bootstrap): a token
// `<id>.<secret>` is valid while the Secret kube-system/bootstrap-token-<id> of type
// bootstrap.kubernetes.io/token exists, is not being deleted, holds the same id and (compared in
// constant time) secret, has not expired and allows `usage-bootstrap-authentication`. The user is
// system:bootstrap:<id> in system:bootstrappers plus the Secret's valid `auth-extra-groups`. As
// upstream, a token that fails any check gets no opinion (the request ends 401); the reason is
// kept for the caller's logs. Everything is decided from the stored Secret.
import { timingSafeEqual } from "node:crypto";
import type { Secret } from "../../apis/core/v1/types.ts";
import {
  BOOTSTRAP_TOKEN_NAMESPACE,
  BOOTSTRAP_TOKEN_SECRET_TYPE,
  BOOTSTRAP_USER_PREFIX,
  KEY_TOKEN_ID,
  KEY_TOKEN_SECRET,
  KEY_USAGE_AUTHENTICATION,
  bootstrapTokenSecretName,
  groupsOf,
  isExpired,
  parseBootstrapToken,
  secretString,
} from "../../api/bootstraptoken/token.ts";
import { type Clock, realClock } from "../../utils/clock.ts";
import type { InternalClient } from "../registry/client.ts";
import type { TokenAuthResult, TokenAuthenticator } from "./types.ts";
import { SECRETS } from "../registry/core/resources.ts";

export interface BootstrapTokenAuthenticatorOptions {
  client: InternalClient;
  clock?: Clock;
  /** Why a well-formed token was refused (for logs); never sent to the client. */
  onReject?: (tokenId: string, reason: string) => void;
}

export class BootstrapTokenAuthenticator implements TokenAuthenticator {
  private readonly clock: Clock;

  constructor(private readonly opts: BootstrapTokenAuthenticatorOptions) {
    this.clock = opts.clock ?? realClock;
  }

  async authenticateToken(token: string): Promise<TokenAuthResult | undefined> {
    const parsed = parseBootstrapToken(token);
    if (!parsed) return undefined;
    const secret = (await this.opts.client.get(SECRETS, BOOTSTRAP_TOKEN_NAMESPACE, bootstrapTokenSecretName(parsed.id))) as Secret | undefined;
    const reason = secret ? this.problem(secret, parsed.id, parsed.secret) : "no bootstrap token secret";
    if (reason) {
      this.opts.onReject?.(parsed.id, reason);
      return undefined;
    }
    let groups: string[];
    try {
      groups = groupsOf(secret!);
    } catch (err) {
      this.opts.onReject?.(parsed.id, (err as Error).message);
      return undefined;
    }
    return { user: { username: `${BOOTSTRAP_USER_PREFIX}${parsed.id}`, groups } };
  }

  private problem(secret: Secret, id: string, tokenSecret: string): string | undefined {
    if (secret.metadata.deletionTimestamp) return "the secret is being deleted";
    if (secret.type !== BOOTSTRAP_TOKEN_SECRET_TYPE) return `the secret has type ${JSON.stringify(secret.type ?? "")}`;
    if (!constantTimeEqual(secretString(secret, KEY_TOKEN_SECRET), tokenSecret)) return "the token secret does not match";
    if (secretString(secret, KEY_TOKEN_ID) !== id) return "the token id does not match";
    if (isExpired(secret, this.clock.nowMs())) return "the token has expired";
    if (secretString(secret, KEY_USAGE_AUTHENTICATION) !== "true") return "the token may not be used for authentication";
    return undefined;
  }
}

/** Compares in time independent of where the strings differ (lengths are public: 16 characters). */
export function constantTimeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  if (x.length !== y.length) return false;
  return timingSafeEqual(x, y);
}
