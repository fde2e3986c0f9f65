// Operators on the local landscape (docs/terminals.md#the-local-landscape): the operator's dashboard login, user
// `local-operator` with a bearer token `up` keeps in `garden-operator.token` (0600) and bound to Gardener's
// administrators' ClusterRole (so the dashboard treats it as an operator: control-plane and garden terminals);
// the dashboard's default operator credential for garden terminals, ServiceAccount `dashboard-terminal-admin`
// in `garden` (the terminal-controller-manager mints its token to create the access ServiceAccount and
// binding); and the ClusterRole that binding names, `gardener.cloud:system:administrators`, as Gardener ships it.
import type { KubeObject } from "../apis/meta/v1/types.ts";
import { ServiceAccounts } from "../client/builtins.ts";
import type { Client } from "../client/client.ts";
import { createOrPatch } from "../client/helpers.ts";
import { resourceType } from "../client/resource.ts";
import type { Layout } from "./layout.ts";

export const OPERATOR_TERMINAL_SA = { namespace: "garden", name: "dashboard-terminal-admin" };
export const ADMINISTRATORS_ROLE = "gardener.cloud:system:administrators";
/** The operator who logs in to the dashboard (a static token of the garden API server, garden/tokens.csv). */
export const OPERATOR_USER = "local-operator";
export const OPERATOR_BINDING = "gardener-local:operator";
export const operatorTokenPath = (layout: Layout): string => layout.path("garden-operator.token");

const ClusterRoles = resourceType<KubeObject & { rules?: unknown[] }>({ group: "rbac.authorization.k8s.io", version: "v1", kind: "ClusterRole", plural: "clusterroles", namespaced: false });
const ClusterRoleBindings = resourceType<KubeObject & { subjects?: unknown[]; roleRef?: unknown }>({ group: "rbac.authorization.k8s.io", version: "v1", kind: "ClusterRoleBinding", plural: "clusterrolebindings", namespaced: false });
const RBAC = "rbac.authorization.k8s.io";

/** The administrators' ClusterRole, the operator's binding to it and the operator terminal credential; idempotent. */
export async function publishOperatorTerminalAccess(garden: Client): Promise<void> {
  await createOrPatch(garden, ClusterRoles, { name: ADMINISTRATORS_ROLE }, (r) => {
    r.rules = [{ apiGroups: ["*"], resources: ["*"], verbs: ["*"] }, { nonResourceURLs: ["*"], verbs: ["*"] }];
  });
  await createOrPatch(garden, ClusterRoleBindings, { name: OPERATOR_BINDING }, (b) => {
    b.subjects = [{ kind: "User", apiGroup: RBAC, name: OPERATOR_USER }];
    b.roleRef = { apiGroup: RBAC, kind: "ClusterRole", name: ADMINISTRATORS_ROLE };
  });
  await createOrPatch(garden, ServiceAccounts, OPERATOR_TERMINAL_SA, () => undefined);
  // It creates the operator's access ServiceAccount and binds it to ADMINISTRATORS_ROLE: cluster-admin (which holds `bind`).
  await createOrPatch(garden, ClusterRoleBindings, { name: OPERATOR_TERMINAL_SA.name }, (b) => {
    b.subjects = [{ kind: "ServiceAccount", ...OPERATOR_TERMINAL_SA }];
    b.roleRef = { apiGroup: RBAC, kind: "ClusterRole", name: "cluster-admin" };
  });
}
