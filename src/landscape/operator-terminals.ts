// Operators' garden terminals on the local landscape (docs/terminals.md#the-local-landscape): the
// dashboard's default operator credential, ServiceAccount `dashboard-terminal-admin` in `garden`
// (the terminal-controller-manager mints its token to create the access ServiceAccount and binding),
// and the ClusterRole that binding names, `gardener.cloud:system:administrators`, as Gardener ships it.
import type { KubeObject } from "../apis/meta/v1/types.ts";
import { ServiceAccounts } from "../client/builtins.ts";
import type { Client } from "../client/client.ts";
import { createOrPatch } from "../client/helpers.ts";
import { resourceType } from "../client/resource.ts";

export const OPERATOR_TERMINAL_SA = { namespace: "garden", name: "dashboard-terminal-admin" };
export const ADMINISTRATORS_ROLE = "gardener.cloud:system:administrators";

const ClusterRoles = resourceType<KubeObject & { rules?: unknown[] }>({ group: "rbac.authorization.k8s.io", version: "v1", kind: "ClusterRole", plural: "clusterroles", namespaced: false });
const ClusterRoleBindings = resourceType<KubeObject & { subjects?: unknown[]; roleRef?: unknown }>({ group: "rbac.authorization.k8s.io", version: "v1", kind: "ClusterRoleBinding", plural: "clusterrolebindings", namespaced: false });
const RBAC = "rbac.authorization.k8s.io";

/** The operator credential and the administrators' ClusterRole; idempotent. */
export async function publishOperatorTerminalAccess(garden: Client): Promise<void> {
  await createOrPatch(garden, ClusterRoles, { name: ADMINISTRATORS_ROLE }, (r) => {
    r.rules = [{ apiGroups: ["*"], resources: ["*"], verbs: ["*"] }, { nonResourceURLs: ["*"], verbs: ["*"] }];
  });
  await createOrPatch(garden, ServiceAccounts, OPERATOR_TERMINAL_SA, () => undefined);
  // It creates the operator's access ServiceAccount and binds it to ADMINISTRATORS_ROLE: cluster-admin (which holds `bind`).
  await createOrPatch(garden, ClusterRoleBindings, { name: OPERATOR_TERMINAL_SA.name }, (b) => {
    b.subjects = [{ kind: "ServiceAccount", ...OPERATOR_TERMINAL_SA }];
    b.roleRef = { apiGroup: RBAC, kind: "ClusterRole", name: "cluster-admin" };
  });
}
