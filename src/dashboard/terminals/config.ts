// The dashboard's terminal configuration (docs/dashboard.md#terminals): images, the garden's API
// server as terminals' kubeconfigs name it, the operators' garden terminal host and credentials, and
// the time bounds of `fetch`.
import type { ClusterCredentials, ShootRef, TerminalRoleBinding } from "../../apis/dashboard/v1alpha1/types.ts";

export interface TerminalConfig {
  /** The garden API server the dashboard talks to as the user (and its CA, PEM). */
  garden: { url: string; caPem?: string };
  /** The garden API server as terminal pods reach it (the kubeconfig's `server` for target `garden`). */
  gardenApiServerUrl: string;
  container: { image: string };
  containerOperator: { image: string };
  /** Where operators' garden terminals run: a shoot, or a seed that is a ManagedSeed. */
  gardenTerminalHost?: { shootRef?: ShootRef; seedRef?: { name: string } };
  operatorCredentials: ClusterCredentials;
  operatorRoleBindings: TerminalRoleBinding[];
  readyTimeoutSeconds: number;
  serviceAccountTokenExpiration: number;
}

export function terminalConfig(base: Pick<TerminalConfig, "garden"> & Partial<TerminalConfig>): TerminalConfig {
  return {
    gardenApiServerUrl: base.garden.url,
    container: { image: "busybox:1.36" },
    containerOperator: { image: "busybox:1.36" },
    operatorCredentials: { serviceAccountRef: { name: "dashboard-terminal-admin", namespace: "garden" } },
    operatorRoleBindings: [{ nameSuffix: "", bindingKind: "ClusterRoleBinding", roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "gardener.cloud:system:administrators" } }],
    readyTimeoutSeconds: 30,
    serviceAccountTokenExpiration: 43200,
    ...base,
  };
}
