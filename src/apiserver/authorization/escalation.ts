// RBAC escalation prevention ([k8s] pkg/registry/rbac/escalation_check.go and
// pkg/registry/rbac/validation/rule.go ConfirmNoEscalation): a user may write a role granting, or
// a binding to a role holding, only rules they already hold, unless they may `escalate` that role
// (roles) or `bind` it (bindings), or are in system:masters. What they hold is the authorizer's
// own rule resolution over the stored RBAC objects (RuleResolver.rulesFor).
import type { PolicyRule, RoleRef } from "../../apis/rbac/v1/types.ts";
import { newForbidden } from "../../apimachinery/errors.ts";
import { GROUP_MASTERS, type UserInfo } from "../authentication/types.ts";
import type { GroupResource } from "../registry/types.ts";
import { compactString, covers, goQuote, goQuoteList } from "./covers.ts";
import type { Authorizer, RuleResolver, RulesResult } from "./types.ts";

export const RBAC_GROUP = "rbac.authorization.k8s.io";

/** `*` on everything: what setting or changing an aggregationRule takes (it can gather any rule). */
export const FULL_AUTHORITY: PolicyRule[] = [
  { verbs: ["*"], apiGroups: ["*"], resources: ["*"] },
  { verbs: ["*"], nonResourceURLs: ["*"] },
];

/** system:masters may always escalate: the server's own loopback identity is in it. */
export function escalationAllowed(user: UserInfo): boolean {
  return user.groups.includes(GROUP_MASTERS);
}

/** May the user `escalate` this Role or ClusterRole (namespace "" for ClusterRoles)? */
export async function roleEscalationAuthorized(
  authorizer: Authorizer,
  user: UserInfo,
  resource: "roles" | "clusterroles",
  namespace: string,
  name: string,
): Promise<boolean> {
  const attrs = { user, verb: "escalate", resourceRequest: true, apiGroup: RBAC_GROUP, apiVersion: "*", resource, name, namespace: namespace || undefined };
  return (await authorizer.authorize(attrs)).decision === "allow";
}

/** May the user `bind` the referenced role in the binding's namespace ("" for ClusterRoleBindings)? */
export async function bindingAuthorized(authorizer: Authorizer, user: UserInfo, ref: RoleRef, namespace: string): Promise<boolean> {
  const resource = ref.kind === "ClusterRole" ? "clusterroles" : ref.kind === "Role" ? "roles" : undefined;
  if (!resource) return false;
  const attrs = { user, verb: "bind", resourceRequest: true, apiGroup: ref.apiGroup, resource, name: ref.name, namespace: namespace || undefined };
  return (await authorizer.authorize(attrs)).decision === "allow";
}

/** The rules a RulesResult lists, as PolicyRules. */
export function heldRules(r: RulesResult): PolicyRule[] {
  return [...r.resourceRules.map((x) => ({ ...x })), ...r.nonResourceRules.map((x) => ({ ...x }))];
}

/**
 * Rejects (403, `<resource>.<group> "<name>" is forbidden: user ... is attempting to grant RBAC
 * permissions not currently held: ...`) unless the user's rules in `namespace` ("" for cluster-wide
 * only) cover `rules`.
 */
export async function confirmNoEscalation(
  resolver: RuleResolver,
  user: UserInfo,
  namespace: string,
  rules: PolicyRule[],
  gr: GroupResource,
  name: string,
): Promise<void> {
  const problem = await escalationProblem(resolver, user, namespace, rules);
  if (problem) throw newForbidden(gr, name, problem);
}

/** The reason text of ConfirmNoEscalation, or undefined when the user holds every rule. */
export async function escalationProblem(resolver: RuleResolver, user: UserInfo, namespace: string, rules: PolicyRule[]): Promise<string | undefined> {
  if (rules.length === 0) return undefined;
  const held = await resolver.rulesFor(user, namespace);
  const result = covers(heldRules(held), rules);
  if (result.covered) return undefined;
  const who = `user ${goQuote(user.username)} (groups=${goQuoteList(user.groups)})`;
  if (result.exhausted) return `${who} is attempting to grant RBAC permissions that could not be compared with the ones held: the rules combine into too many cases`;
  let msg = `${who} is attempting to grant RBAC permissions not currently held:\n${result.missing.map(compactString).join("\n")}`;
  if (result.omitted > 0) msg += `\n... and ${result.omitted} more`;
  if (held.evaluationError) msg += `; resolution errors: [${held.evaluationError}]`;
  return msg;
}
