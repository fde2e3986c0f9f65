// authorization.k8s.io/v1 access reviews ([k8s] pkg/registry/authorization/*): answered from the
// authorizer, never stored. The caller of a Self* review is ctx.user; SubjectAccessReview and
// LocalSubjectAccessReview describe another user in spec.
import {
  GROUP,
  type NonResourceAttributes,
  type ResourceAttributes,
  type SelfSubjectAccessReview,
  type SelfSubjectRulesReview,
  type SubjectAccessReview,
  type SubjectAccessReviewStatus,
  VERSION,
} from "../../../apis/authorization/v1/types.ts";
import { newBadRequest, newInvalid } from "../../../apimachinery/errors.ts";
import type { FieldError } from "../../../apimachinery/field/errors.ts";
import type { UserInfo } from "../../authentication/types.ts";
import type { AuthorizationAttributes, Authorizer, RuleResolver } from "../../authorization/types.ts";
import type { ResourceDefinition } from "../types.ts";
import { answer, reviewDefinition, s } from "./review.ts";
import { validateLocalSubjectAccessReviewSpec, validateSelfSubjectAccessReviewSpec, validateSubjectAccessReviewSpec } from "./validation.ts";

export type ReviewAuthorizer = Authorizer & Partial<RuleResolver>;

/** SelfSubjectAccessReview, SubjectAccessReview, LocalSubjectAccessReview, SelfSubjectRulesReview. */
export function authorizationReviewDefinitions(authorizer: ReviewAuthorizer): ResourceDefinition[] {
  const base = { group: GROUP, version: VERSION };
  return [
    reviewDefinition({
      ...base,
      kind: "SelfSubjectAccessReview",
      plural: "selfsubjectaccessreviews",
      namespaced: false,
      description: "SelfSubjectAccessReview checks whether or the current user can perform an action.",
      spec: selfSpecSchema,
      status: statusSchema,
      create: async (ctx, obj) => {
        const sar = obj as SelfSubjectAccessReview;
        check("SelfSubjectAccessReview", validateSelfSubjectAccessReviewSpec(sar.spec));
        const status = await review(authorizer, attributesFrom(ctx.user, sar.spec));
        return answer<SelfSubjectAccessReview>(GROUP, VERSION, "SelfSubjectAccessReview", obj, { status });
      },
    }),
    reviewDefinition({
      ...base,
      kind: "SubjectAccessReview",
      plural: "subjectaccessreviews",
      namespaced: false,
      description: "SubjectAccessReview checks whether or not a user or group can perform an action.",
      spec: subjectSpecSchema,
      status: statusSchema,
      create: async (_ctx, obj) => {
        const sar = obj as SubjectAccessReview;
        check("SubjectAccessReview", validateSubjectAccessReviewSpec(sar.spec));
        const status = await review(authorizer, attributesFrom(userOf(sar), sar.spec));
        return answer<SubjectAccessReview>(GROUP, VERSION, "SubjectAccessReview", obj, { status });
      },
    }),
    reviewDefinition({
      ...base,
      kind: "LocalSubjectAccessReview",
      plural: "localsubjectaccessreviews",
      namespaced: true,
      description: "LocalSubjectAccessReview checks whether or not a user or group can perform an action in a given namespace.",
      spec: subjectSpecSchema,
      status: statusSchema,
      create: async (ctx, obj) => {
        const sar = obj as SubjectAccessReview;
        const namespace = ctx.namespace ?? "";
        if (!namespace) throw newBadRequest("namespace is required on this type: ");
        if (sar.metadata?.namespace && sar.metadata.namespace !== namespace) {
          throw newBadRequest(`spec.resourceAttributes.namespace must match namespace: ${namespace}`);
        }
        check("LocalSubjectAccessReview", validateLocalSubjectAccessReviewSpec(sar.spec, namespace));
        const status = await review(authorizer, attributesFrom(userOf(sar), sar.spec));
        return answer<SubjectAccessReview>(GROUP, VERSION, "LocalSubjectAccessReview", obj, {
          metadata: { ...(obj.metadata ?? {}), namespace },
          status,
        });
      },
    }),
    reviewDefinition({
      ...base,
      kind: "SelfSubjectRulesReview",
      plural: "selfsubjectrulesreviews",
      namespaced: false,
      description: "SelfSubjectRulesReview enumerates the set of actions the current user can perform within a namespace.",
      spec: s.obj("SelfSubjectRulesSpec defines the specification for SelfSubjectRulesReview.", { namespace: s.str("Namespace to evaluate rules for. Required.") }),
      status: rulesStatusSchema,
      create: async (ctx, obj) => {
        const rr = obj as SelfSubjectRulesReview;
        const namespace = rr.spec?.namespace;
        if (!namespace) throw newBadRequest("no namespace on request");
        let status: SelfSubjectRulesReview["status"];
        if (typeof authorizer.rulesFor !== "function") {
          status = { resourceRules: [], nonResourceRules: [], incomplete: true, evaluationError: "the authorizer does not support rule resolution" };
        } else {
          const r = await authorizer.rulesFor(ctx.user, namespace);
          status = { resourceRules: r.resourceRules, nonResourceRules: r.nonResourceRules, incomplete: r.incomplete };
          if (r.evaluationError) status.evaluationError = r.evaluationError;
        }
        return answer<SelfSubjectRulesReview>(GROUP, VERSION, "SelfSubjectRulesReview", obj, { spec: { namespace }, status });
      },
    }),
  ];
}

function check(kind: string, errs: FieldError[]): void {
  if (errs.length > 0) throw newInvalid({ group: GROUP, kind }, "", errs);
}

function userOf(sar: SubjectAccessReview): UserInfo {
  const u: UserInfo = { username: sar.spec.user ?? "", groups: [...(sar.spec.groups ?? [])] };
  if (sar.spec.uid) u.uid = sar.spec.uid;
  if (sar.spec.extra) u.extra = sar.spec.extra;
  return u;
}

export function attributesFrom(
  user: UserInfo,
  spec: { resourceAttributes?: ResourceAttributes; nonResourceAttributes?: NonResourceAttributes },
): AuthorizationAttributes {
  const ra = spec.resourceAttributes;
  if (ra) {
    return {
      user,
      verb: ra.verb ?? "",
      resourceRequest: true,
      apiGroup: ra.group ?? "",
      apiVersion: ra.version ?? "",
      resource: ra.resource ?? "",
      subresource: ra.subresource ?? "",
      namespace: ra.namespace ?? "",
      name: ra.name ?? "",
    };
  }
  const nra = spec.nonResourceAttributes ?? {};
  return { user, verb: nra.verb ?? "", resourceRequest: false, path: nra.path ?? "" };
}

async function review(authorizer: Authorizer, attrs: AuthorizationAttributes): Promise<SubjectAccessReviewStatus> {
  try {
    const r = await authorizer.authorize(attrs);
    const status: SubjectAccessReviewStatus = { allowed: r.decision === "allow" };
    if (r.decision === "deny") status.denied = true;
    if (r.reason) status.reason = r.reason;
    return status;
  } catch (err) {
    return { allowed: false, evaluationError: err instanceof Error ? err.message : String(err) };
  }
}

const resourceAttributesSchema = s.obj("ResourceAttributes includes the authorization attributes available for resource requests to the Authorizer interface", {
  namespace: s.str("Namespace is the namespace of the action being requested."),
  verb: s.str("Verb is a kubernetes resource API verb, like: get, list, watch, create, update, delete, proxy.  \"*\" means all."),
  group: s.str("Group is the API Group of the Resource.  \"*\" means all."),
  version: s.str("Version is the API Version of the Resource.  \"*\" means all."),
  resource: s.str("Resource is one of the existing resource types.  \"*\" means all."),
  subresource: s.str("Subresource is one of the existing resource types.  \"\" means none."),
  name: s.str("Name is the name of the resource being requested for a \"get\" or deleted for a \"delete\". \"\" (empty) means all."),
});
const nonResourceAttributesSchema = s.obj("NonResourceAttributes includes the authorization attributes available for non-resource requests to the Authorizer interface", {
  path: s.str("Path is the URL path of the request"),
  verb: s.str("Verb is the standard HTTP verb"),
});
const selfSpecSchema = s.obj("SelfSubjectAccessReviewSpec is a description of the access request.  Exactly one of ResourceAuthorizationAttributes and NonResourceAuthorizationAttributes must be set", {
  resourceAttributes: resourceAttributesSchema,
  nonResourceAttributes: nonResourceAttributesSchema,
});
const subjectSpecSchema = s.obj("SubjectAccessReviewSpec is a description of the access request.  Exactly one of ResourceAuthorizationAttributes and NonResourceAuthorizationAttributes must be set", {
  resourceAttributes: resourceAttributesSchema,
  nonResourceAttributes: nonResourceAttributesSchema,
  user: s.str("User is the user you're testing for."),
  groups: s.strings("Groups is the groups you're testing for."),
  uid: s.str("UID information about the requesting user."),
  extra: s.extra("Extra corresponds to the user.Info.GetExtra() method from the authenticator."),
});
const statusSchema = s.obj(
  "SubjectAccessReviewStatus",
  {
    allowed: s.bool("Allowed is required. True if the action would be allowed, false otherwise."),
    denied: s.bool("Denied is optional. True if the action would be denied, otherwise false."),
    reason: s.str("Reason is optional.  It indicates why a request was allowed or denied."),
    evaluationError: s.str("EvaluationError is an indication that some error occurred during the authorization check."),
  },
  ["allowed"],
);
const rulesStatusSchema = s.obj(
  "SubjectRulesReviewStatus contains the result of a rules check.",
  {
    resourceRules: s.list(
      "ResourceRules is the list of actions the subject is allowed to perform on resources.",
      s.obj("ResourceRule is the list of actions the subject is allowed to perform on resources.", {
        verbs: s.strings("Verb is a list of kubernetes resource API verbs."),
        apiGroups: s.strings("APIGroups is the name of the APIGroup that contains the resources."),
        resources: s.strings("Resources is a list of resources this rule applies to."),
        resourceNames: s.strings("ResourceNames is an optional white list of names that the rule applies to."),
      }, ["verbs"]),
    ),
    nonResourceRules: s.list(
      "NonResourceRules is the list of actions the subject is allowed to perform on non-resources.",
      s.obj("NonResourceRule holds information that describes a rule for the non-resource", {
        verbs: s.strings("Verb is a list of kubernetes non-resource API verbs."),
        nonResourceURLs: s.strings("NonResourceURLs is a set of partial urls that a user should have access to."),
      }, ["verbs"]),
    ),
    incomplete: s.bool("Incomplete is true when the rules returned by this call are incomplete."),
    evaluationError: s.str("EvaluationError can appear in combination with Rules."),
  },
  ["resourceRules", "nonResourceRules", "incomplete"],
);

