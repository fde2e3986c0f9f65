// The dashboard's own garden credential on the local landscape (docs/dashboard.md#reading-as-the-user):
// a static token of user DASHBOARD_READER_USER (in the garden's --token-auth-file beside the member's,
// src/landscape/terminals.ts) that may only list Projects, so the dashboard shows a member the
// projects whose members name them, as upstream's dashboard does with its ServiceAccount.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { KubeObject } from "../apis/meta/v1/types.ts";
import { writeKubeconfig } from "../apiserver/certs/kubeconfig.ts";
import type { Client } from "../client/client.ts";
import { createOrPatch } from "../client/helpers.ts";
import { resourceType } from "../client/resource.ts";
import type { Layout, Ports } from "./layout.ts";

export const DASHBOARD_READER_USER = "dashboard-project-reader";
const ROLE = "gardener.cloud:dashboard:project-reader";
const RBAC = "rbac.authorization.k8s.io";

export const dashboardReaderTokenPath = (layout: Layout): string => layout.path("dashboard", "reader.token");
export const dashboardReaderKubeconfigPath = (layout: Layout): string => layout.path("dashboard", "reader.kubeconfig");

const ClusterRoles = resourceType<KubeObject & { rules?: unknown[] }>({ group: RBAC, version: "v1", kind: "ClusterRole", plural: "clusterroles", namespaced: false });
const ClusterRoleBindings = resourceType<KubeObject & { subjects?: unknown[]; roleRef?: unknown }>({ group: RBAC, version: "v1", kind: "ClusterRoleBinding", plural: "clusterrolebindings", namespaced: false });

/** The reader's ClusterRole (list Projects, nothing else) and binding, and its kubeconfig for the dashboard; idempotent. */
export async function publishDashboardReader(garden: Client, layout: Layout, ports: Ports): Promise<void> {
  await createOrPatch(garden, ClusterRoles, { name: ROLE }, (r) => {
    r.rules = [{ apiGroups: ["core.gardener.cloud"], resources: ["projects"], verbs: ["list"] }];
  });
  await createOrPatch(garden, ClusterRoleBindings, { name: ROLE }, (b) => {
    b.subjects = [{ kind: "User", apiGroup: RBAC, name: DASHBOARD_READER_USER }];
    b.roleRef = { apiGroup: RBAC, kind: "ClusterRole", name: ROLE };
  });
  const caPem = readFileSync(join(layout.apiServerDir("garden"), "pki", "ca.crt"), "utf8");
  const token = readFileSync(dashboardReaderTokenPath(layout), "utf8").trim();
  await writeKubeconfig(dashboardReaderKubeconfigPath(layout), { server: `https://127.0.0.1:${ports.garden}`, caPem, clusterName: "garden", userName: DASHBOARD_READER_USER, user: { token } });
}
