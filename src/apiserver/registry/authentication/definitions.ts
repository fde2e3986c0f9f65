// authentication.k8s.io reviews ([k8s] pkg/registry/authentication/*): TokenReview asks the
// server's token authenticators about a token; SelfSubjectReview (`kubectl auth whoami`) echoes
// the caller. Never stored.
import type { SelfSubjectReview, TokenReview, TokenReviewStatus, UserInfo as ApiUserInfo } from "../../../apis/authentication/v1/types.ts";
import { newBadRequest } from "../../../apimachinery/errors.ts";
import type { TokenAuthenticator, UserInfo } from "../../authentication/types.ts";
import { answer, reviewDefinition, s } from "../authorization/review.ts";
import type { ResourceDefinition } from "../types.ts";
import { metaTime } from "../../../utils/time.ts";

const GROUP = "authentication.k8s.io";

export interface AuthenticationReviewOptions {
  /**
   * Versions SelfSubjectReview is served in. Default ["v1", "v1beta1"]: kubectl 1.27 knows only
   * v1beta1 (and v1alpha1), kubectl 1.28+ try v1 first.
   */
  selfSubjectReviewVersions?: string[];
}

/** TokenReview (v1) and SelfSubjectReview (v1, v1beta1 by default). */
export function authenticationReviewDefinitions(tokenAuthenticator: TokenAuthenticator, opts: AuthenticationReviewOptions = {}): ResourceDefinition[] {
  const defs = [
    reviewDefinition({
      group: GROUP,
      version: "v1",
      kind: "TokenReview",
      plural: "tokenreviews",
      namespaced: false,
      description: "TokenReview attempts to authenticate a token to a known user.",
      spec: s.obj("TokenReviewSpec is a description of the token authentication request.", {
        token: s.str("Token is the opaque bearer token."),
        audiences: s.strings("Audiences is a list of the identifiers that the resource server presented with the token identifies as."),
      }),
      status: s.obj("TokenReviewStatus is the result of the token authentication request.", {
        authenticated: s.bool("Authenticated indicates that the token was associated with a known user."),
        user: userInfoSchema,
        audiences: s.strings("Audiences are audience identifiers chosen by the authenticator that are compatible with both the TokenReview and token."),
        error: s.str("Error indicates that the token couldn't be checked"),
      }),
      create: async (_ctx, obj) => {
        const tr = obj as TokenReview;
        const token = tr.spec?.token;
        if (!token) throw newBadRequest("token is required for TokenReview");
        const requested = tr.spec.audiences && tr.spec.audiences.length > 0 ? tr.spec.audiences : undefined;
        const status: TokenReviewStatus = { authenticated: false };
        try {
          const r = await tokenAuthenticator.authenticateToken(token, requested);
          if (r) {
            status.authenticated = true;
            status.user = apiUser(r.user);
            status.audiences = r.audiences ?? requested ?? [];
          }
        } catch (err) {
          status.error = err instanceof Error ? err.message : String(err);
        }
        return answer<TokenReview>(GROUP, "v1", "TokenReview", obj, { status });
      },
    }),
  ];
  for (const version of opts.selfSubjectReviewVersions ?? ["v1", "v1beta1"]) {
    defs.push(
      reviewDefinition({
        group: GROUP,
        version,
        kind: "SelfSubjectReview",
        plural: "selfsubjectreviews",
        namespaced: false,
        description: "SelfSubjectReview contains the user information that the kube-apiserver has about the user making this request.",
        status: s.obj("SelfSubjectReviewStatus is filled by the kube-apiserver and sent back to a user.", { userInfo: userInfoSchema }),
        create: (ctx, obj) => {
          const metadata = { ...(obj.metadata ?? {}), creationTimestamp: metaTime(ctx.clock.now()) };
          return Promise.resolve(answer<SelfSubjectReview>(GROUP, version, "SelfSubjectReview", obj, { metadata, status: { userInfo: apiUser(ctx.user) } }));
        },
      }),
    );
  }
  return defs;
}

function apiUser(u: UserInfo): ApiUserInfo {
  const out: ApiUserInfo = { username: u.username };
  if (u.uid) out.uid = u.uid;
  out.groups = [...u.groups];
  if (u.extra && Object.keys(u.extra).length > 0) out.extra = u.extra;
  return out;
}

const userInfoSchema = s.obj("UserInfo holds the information about the user needed to implement the user.Info interface.", {
  username: s.str("The name that uniquely identifies this user among all active users."),
  uid: s.str("A unique value that identifies this user across time."),
  groups: s.strings("The names of groups this user is a part of."),
  extra: s.extra("Any additional information provided by the authenticator."),
});
