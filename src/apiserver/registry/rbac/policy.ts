// The policy-based RBAC writes of kube-apiserver ([k8s] pkg/registry/rbac/{role,clusterrole,
// rolebinding,clusterrolebinding}/policybased), as a validating admission plugin: it sees the final
// object of a create, update or patch. Unless the user is in system:masters:
// - a Role or ClusterRole needs `escalate` on it, or every rule it grants held (in its namespace;
//   cluster-wide for a ClusterRole); an aggregationRule, set or removed, needs `escalate` or `*` on
//   everything, as it can gather any rule (a labelled role can only carry rules its writer holds);
// - a binding needs `bind` on its role, or every rule of the stored role held in the binding's
//   namespace ("" for a ClusterRoleBinding); an aggregated ClusterRole counts with the rules it
//   aggregates right now, not only those the controller has already written.
// Updates that only touch ownerReferences and finalizers (the garbage collector's) are not checked.
import type { ClusterRole, ClusterRoleBinding, PolicyRule, Role, RoleBinding, RoleRef } from "../../../apis/rbac/v1/types.ts";
import type { KubeObject } from "../../../apis/meta/v1/types.ts";
import { newForbidden, newNotFound } from "../../../apimachinery/errors.ts";
import { semanticEqual } from "../../../api/equality.ts";
import type { AdmissionAttributes, AdmissionPlugin } from "../../admission/types.ts";
import { aggregateRules } from "../../authorization/aggregation.ts";
import {
  FULL_AUTHORITY,
  bindingAuthorized,
  confirmNoEscalation,
  escalationAllowed,
  escalationProblem,
  roleEscalationAuthorized,
} from "../../authorization/escalation.ts";
import type { Authorizer, RuleResolver } from "../../authorization/types.ts";
import type { InternalClient } from "../client.ts";
import { RBAC_GROUP } from "./schemas.ts";

const gr = (resource: string) => ({ group: RBAC_GROUP, resource });

export class RBACEscalationPrevention implements AdmissionPlugin {
  readonly name = "RBACEscalationPrevention";

  /** `authorizer` is resolved per request: the server builds its authorizer after its admission chain. */
  constructor(private readonly authorizer: () => Authorizer & RuleResolver) {}

  validate(attrs: AdmissionAttributes, client: InternalClient): Promise<void> | void {
    if (attrs.resource.group !== RBAC_GROUP || attrs.subresource !== "" || !attrs.object) return;
    return this.validateRbac(attrs, attrs.object, client);
  }

  private async validateRbac(attrs: AdmissionAttributes, object: KubeObject, client: InternalClient): Promise<void> {
    const def = attrs.resource;
    if (attrs.operation !== "CREATE" && attrs.operation !== "UPDATE") return;
    if (escalationAllowed(attrs.user)) return;
    if (attrs.oldObject && onlyGCFieldsChanged(object, attrs.oldObject)) return;
    const a = this.authorizer();
    const name = object.metadata.name ?? attrs.name;
    const namespace = object.metadata.namespace ?? "";
    switch (def.plural) {
      case "roles": {
        if (await roleEscalationAuthorized(a, attrs.user, "roles", namespace, name)) return;
        await confirmNoEscalation(a, attrs.user, namespace, rulesOf(attrs.object as Role), gr("roles"), name);
        return;
      }
      case "clusterroles": {
        if (await roleEscalationAuthorized(a, attrs.user, "clusterroles", "", name)) return;
        const role = attrs.object as ClusterRole;
        await confirmNoEscalation(a, attrs.user, "", rulesOf(role), gr("clusterroles"), name);
        if (hasAggregationRule(role) || hasAggregationRule(attrs.oldObject as ClusterRole | undefined)) {
          if (await escalationProblem(a, attrs.user, "", FULL_AUTHORITY)) {
            throw newForbidden(gr("clusterroles"), name, "must have cluster-admin privileges to use the aggregationRule");
          }
        }
        return;
      }
      case "rolebindings":
      case "clusterrolebindings": {
        const ref = (attrs.object as RoleBinding | ClusterRoleBinding).roleRef;
        const bindingNamespace = def.plural === "rolebindings" ? namespace : "";
        if (await bindingAuthorized(a, attrs.user, ref, bindingNamespace)) return;
        const rules = await roleRefRules(client, ref, bindingNamespace);
        await confirmNoEscalation(a, attrs.user, bindingNamespace, rules, gr(def.plural), name);
        return;
      }
    }
  }
}

const rulesOf = (role: Role | ClusterRole): PolicyRule[] => (Array.isArray(role.rules) ? role.rules : []);

function hasAggregationRule(role: ClusterRole | undefined): boolean {
  const selectors = role?.aggregationRule?.clusterRoleSelectors;
  return Array.isArray(selectors) && selectors.length > 0;
}

/**
 * The rules of the stored role a binding references (404 when there is none, as Kubernetes
 * answers); an aggregated ClusterRole adds the rules its selectors match now.
 */
async function roleRefRules(client: InternalClient, ref: RoleRef, namespace: string): Promise<PolicyRule[]> {
  if (ref.kind === "Role") {
    const role = (await client.get(gr("roles"), namespace, ref.name)) as Role | undefined;
    if (!role) throw newNotFound(gr("roles"), ref.name);
    return rulesOf(role);
  }
  const role = (await client.get(gr("clusterroles"), undefined, ref.name)) as ClusterRole | undefined;
  if (!role) throw newNotFound(gr("clusterroles"), ref.name);
  if (!hasAggregationRule(role)) return rulesOf(role);
  const all = (await client.list(gr("clusterroles"), undefined)).items as ClusterRole[];
  return [...rulesOf(role), ...aggregateRules(ref.name, role.aggregationRule!.clusterRoleSelectors!, all)];
}

/** IsOnlyMutatingGCFields: the same object apart from ownerReferences, finalizers and bookkeeping. */
export function onlyGCFieldsChanged(obj: KubeObject, old: KubeObject): boolean {
  const strip = (o: KubeObject) => ({
    ...o,
    metadata: { ...o.metadata, ownerReferences: undefined, finalizers: undefined, resourceVersion: undefined, managedFields: undefined },
  });
  return semanticEqual(strip(obj), strip(old));
}
