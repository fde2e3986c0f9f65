// Combining authenticators as kube-apiserver does ([as] pkg/authentication/request/union,
// group/authenticated_group_adder.go, anonymous):
// - request authenticators are asked in order, the first user wins; errors (bad credentials)
//   are remembered and, if nobody succeeds, the request is rejected with 401;
// - only when nobody had an opinion and nobody failed, the anonymous user is used (if enabled);
// - every authenticated (non-anonymous) user gets the group system:authenticated.
import { StatusError } from "../../apimachinery/errors.ts";
import {
  ANONYMOUS_USER,
  type AuthenticationRequest,
  GROUP_AUTHENTICATED,
  GROUP_UNAUTHENTICATED,
  type RequestAuthenticator,
  type TokenAuthResult,
  type TokenAuthenticator,
  type UserInfo,
} from "./types.ts";

export interface UnionAuthenticatorOptions {
  /** Allow requests without credentials as system:anonymous (kube's --anonymous-auth). Default false. */
  anonymous?: boolean;
}

export class UnionAuthenticator implements RequestAuthenticator {
  constructor(
    private readonly authenticators: RequestAuthenticator[],
    private readonly opts: UnionAuthenticatorOptions = {},
  ) {}

  /**
   * The user, or undefined when there were no credentials and anonymous access is off (the
   * HTTP layer answers 401). Throws StatusError 401 for bad credentials.
   */
  async authenticate(req: AuthenticationRequest): Promise<UserInfo | undefined> {
    const errors: unknown[] = [];
    for (const a of this.authenticators) {
      try {
        const user = await a.authenticate(req);
        if (user) return withAuthenticatedGroup(user);
      } catch (err) {
        errors.push(err);
      }
    }
    if (errors.length > 0) {
      const first = errors[0];
      throw first instanceof StatusError && first.code === 401 ? first : new StatusError(401, "Unauthorized", "Unauthorized", undefined, { cause: first });
    }
    return this.opts.anonymous ? anonymousUser() : undefined;
  }
}

export function anonymousUser(): UserInfo {
  return { username: ANONYMOUS_USER, groups: [GROUP_UNAUTHENTICATED] };
}

/** Adds system:authenticated unless the user is anonymous or already has it or system:unauthenticated. */
export function withAuthenticatedGroup(user: UserInfo): UserInfo {
  if (user.username === ANONYMOUS_USER) return user;
  if (user.groups.includes(GROUP_AUTHENTICATED) || user.groups.includes(GROUP_UNAUTHENTICATED)) return user;
  return { ...user, groups: [...user.groups, GROUP_AUTHENTICATED] };
}

export interface UnionTokenAuthenticatorOptions {
  /**
   * The server's own audiences (kube's --api-audiences; default: the service-account issuer).
   * Audience-agnostic authenticators (static tokens) are valid exactly for these.
   */
  apiAudiences?: string[];
}

/**
 * Asks token authenticators in order; the first result wins (with system:authenticated added).
 * If none accepts the token: throws the first 401 when one of them rejected it, else undefined.
 */
export class UnionTokenAuthenticator implements TokenAuthenticator {
  constructor(
    private readonly authenticators: TokenAuthenticator[],
    private readonly opts: UnionTokenAuthenticatorOptions = {},
  ) {}

  async authenticateToken(token: string, audiences?: string[]): Promise<TokenAuthResult | undefined> {
    let firstError: unknown;
    for (const a of this.authenticators) {
      let r: TokenAuthResult | undefined;
      try {
        r = await a.authenticateToken(token, audiences);
      } catch (err) {
        firstError ??= err;
        continue;
      }
      if (!r) continue;
      const auds = r.audiences ?? this.agnosticAudiences(audiences);
      if (auds === undefined) continue;
      return { user: withAuthenticatedGroup(r.user), audiences: auds };
    }
    if (firstError !== undefined) {
      throw firstError instanceof StatusError ? firstError : new StatusError(401, "Unauthorized", String(firstError), undefined, { cause: firstError });
    }
    return undefined;
  }

  // kube's WrapAudienceAgnosticToken: with requested audiences, valid only for those that are API audiences.
  private agnosticAudiences(requested: string[] | undefined): string[] | undefined {
    const api = this.opts.apiAudiences ?? [];
    if (!requested || requested.length === 0) return [...api];
    if (api.length === 0) return [...requested];
    const both = requested.filter((a) => api.includes(a));
    return both.length > 0 ? both : undefined;
  }
}
