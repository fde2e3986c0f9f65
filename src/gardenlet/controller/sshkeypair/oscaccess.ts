// Node identities' read access to the OSC Secrets (docs/node-bootstrap.md#osc-secrets): a Role in the
// shoot's kube-system allowing `get`/`list`/`watch` on exactly the current OSC Secrets by name, bound to
// group `system:nodes`. A node agent follows its pool's Secret by name (`--secret-name`, a
// `metadata.name` field selector for list and watch), so it needs no other Secret.
import type { PolicyRule, Role, RoleBinding, Subject } from "../../../apis/rbac/v1/types.ts";
import { OSC_NAMESPACE } from "../../../api/gardencore/osc.ts";
import { RoleBindings, Roles } from "../../../client/builtins.ts";
import type { Client } from "../../../client/client.ts";
import { unlessNotFound } from "../../../client/helpers.ts";

/** Name of the Role and the RoleBinding in the shoot's kube-system. */
export const OSC_ACCESS_NAME = "gardener.cloud:node-agent:operating-system-config";
const RBAC_GROUP = "rbac.authorization.k8s.io";
const NODES_GROUP = "system:nodes";
const LABELS = { "app.kubernetes.io/managed-by": "gardenlet" };

/**
 * The Role's rules for these Secret names. No names gives no rule: an empty `resourceNames` would
 * allow every Secret of the namespace.
 */
export function oscAccessRules(secretNames: string[]): PolicyRule[] {
  const names = [...new Set(secretNames.filter((n) => n !== ""))].sort();
  if (names.length === 0) return [];
  return [{ apiGroups: [""], resources: ["secrets"], resourceNames: names, verbs: ["get", "list", "watch"] }];
}

const subjects = (): Subject[] => [{ kind: "Group", apiGroup: RBAC_GROUP, name: NODES_GROUP }];
const same = (a: unknown, b: unknown): boolean => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/** Makes the Role allow exactly `secretNames` and binds it to `system:nodes`; writes only what differs. */
export async function syncOSCAccess(shootClient: Client, secretNames: string[], signal: AbortSignal): Promise<boolean> {
  let changed = false;
  const key = { namespace: OSC_NAMESPACE, name: OSC_ACCESS_NAME };
  const rules = oscAccessRules(secretNames);
  const role = await unlessNotFound(shootClient.get(Roles, key, { signal }));
  if (!role) {
    const desired: Role = { metadata: { ...key, labels: LABELS }, rules };
    await shootClient.create(Roles, desired, { signal });
    changed = true;
  } else if (!same(role.rules ?? [], rules)) {
    // The resourceVersion of what was read guards against lost updates; a conflict retries the pass.
    await shootClient.update(Roles, { ...role, rules }, { signal });
    changed = true;
  }
  const roleRef = { apiGroup: RBAC_GROUP, kind: "Role" as const, name: OSC_ACCESS_NAME };
  const binding = await unlessNotFound(shootClient.get(RoleBindings, key, { signal }));
  if (!binding) {
    const desired: RoleBinding = { metadata: { ...key, labels: LABELS }, roleRef, subjects: subjects() };
    await shootClient.create(RoleBindings, desired, { signal });
    changed = true;
  } else if (!same(binding.roleRef, roleRef)) {
    // roleRef is immutable: replace the binding.
    await shootClient.delete(RoleBindings, key, { signal });
    await shootClient.create(RoleBindings, { metadata: { ...key, labels: LABELS }, roleRef, subjects: subjects() }, { signal });
    changed = true;
  } else if (!same(binding.subjects, subjects())) {
    await shootClient.update(RoleBindings, { ...binding, subjects: subjects() }, { signal });
    changed = true;
  }
  return changed;
}
