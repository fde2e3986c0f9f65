// dashboard.gardener.cloud/v1alpha1 Terminal (docs/terminals.md#the-terminal-kind): a web terminal
// session, a pod on a host cluster with a kubeconfig to a target cluster. Field names, annotations,
// finalizers and resource names are gardener/terminal-controller-manager's.
import type { KubeObject, ObjectMeta } from "../../meta/v1/types.ts";

export const GROUP = "dashboard.gardener.cloud";
export const VERSION = "v1alpha1";
export const API_VERSION = `${GROUP}/${VERSION}`;
export const KIND_TERMINAL = "Terminal";
export const RESOURCE_TERMINALS = "terminals";

/** The creator's username; set by the mutating webhook on CREATE, immutable. */
export const ANNOTATION_CREATED_BY = "gardener.cloud/created-by";
/** The last heartbeat, RFC 3339 UTC (seconds). */
export const ANNOTATION_LAST_HEARTBEAT = "dashboard.gardener.cloud/last-heartbeat-at";
/** `keepalive`: the mutating webhook removes it and bumps the heartbeat. */
export const ANNOTATION_OPERATION = "dashboard.gardener.cloud/operation";
export const OPERATION_KEEPALIVE = "keepalive";
export const ANNOTATION_DESCRIPTION = "dashboard.gardener.cloud/description";
export const ACCESS_SA_DESCRIPTION = "Temporary service account for web-terminal session. Managed by gardener/terminal-controller-manager";
/** The terminal-controller-manager's finalizer on a Terminal. */
export const FINALIZER_TERMINAL = "terminal";

export const LABEL_COMPONENT = "component";
export const COMPONENT_TCM = "terminal-controller-manager";
export const LABEL_IDENTIFIER = "terminal.dashboard.gardener.cloud/identifier";
export const LABEL_TARGET_NS_HASH = "terminal.dashboard.gardener.cloud/target-ns-hash";
export const LABEL_CREATED_BY_HASH = "terminal.dashboard.gardener.cloud/created-by-hash";
export const ANNOTATION_TARGET_NS = "terminal.dashboard.gardener.cloud/target-ns";
export const ANNOTATION_TCM_CREATED_BY = "terminal.dashboard.gardener.cloud/created-by";

export const PREFIX_KUBECONFIG_SECRET = "term-kubeconfig-";
export const PREFIX_TOKEN_SECRET = "term-token-";
export const PREFIX_ATTACH = "term-attach-";
export const PREFIX_ACCESS = "term-access-";
export const PREFIX_POD = "term-";
export const PREFIX_ATTACH_ROLE = "dashboard.gardener.cloud:term-attach-";

export type BindingKind = "ClusterRoleBinding" | "RoleBinding" | "";

export interface ObjectReference {
  kind?: string;
  namespace?: string;
  name?: string;
  uid?: string;
  apiVersion?: string;
  resourceVersion?: string;
  fieldPath?: string;
}

export interface ShootRef {
  namespace: string;
  name: string;
}

/** A Secret in the garden whose key `kubeconfig` reaches the cluster (a seed that is not a ManagedSeed: docs/terminals.md#seed-hosts). */
export interface SecretReference {
  namespace?: string;
  name?: string;
}

export interface ClusterCredentials {
  serviceAccountRef?: ObjectReference;
  shootRef?: ShootRef;
  secretRef?: SecretReference;
}

export interface TerminalContainer {
  image: string;
  command?: string[];
  args?: string[];
  resources?: { limits?: Record<string, string | number>; requests?: Record<string, string | number> };
  privileged?: boolean;
}

export interface TerminalPod {
  labels?: Record<string, string>;
  container?: TerminalContainer;
  /** Deprecated: `container.image`. */
  containerImage?: string;
  /** Deprecated: `container.privileged`. */
  privileged?: boolean;
  hostNetwork?: boolean;
  hostPID?: boolean;
  nodeSelector?: Record<string, string>;
}

export interface HostCluster {
  credentials: ClusterCredentials;
  namespace?: string;
  temporaryNamespace?: boolean;
  pod: TerminalPod;
}

export interface RoleRef {
  apiGroup: string;
  kind: string;
  name: string;
}

export interface TerminalRoleBinding {
  nameSuffix: string;
  roleRef: RoleRef;
  bindingKind: BindingKind;
}

export interface ProjectMembership {
  projectName: string;
  roles: string[];
}

export interface TerminalAPIServer {
  serviceRef?: ObjectReference;
  server?: string;
  /** PEM, base64 in JSON. */
  caData?: string | null;
}

export interface TargetCluster {
  credentials: ClusterCredentials;
  cleanupProjectMembership?: boolean;
  namespace?: string;
  temporaryNamespace?: boolean;
  kubeconfigContextNamespace: string;
  /** Deprecated: `apiServer.serviceRef`. */
  apiServerServiceRef?: ObjectReference;
  apiServer?: TerminalAPIServer;
  /** Deprecated: one binding to ClusterRole `roleName`. */
  roleName?: string;
  bindingKind?: BindingKind;
  authorization?: { roleBindings?: TerminalRoleBinding[]; projectMemberships?: ProjectMembership[] };
}

export interface TerminalSpec {
  identifier: string;
  host: HostCluster;
  target: TargetCluster;
}

export type LastOperationType = "Reconcile" | "Delete";
export type LastOperationState = "Processing" | "Succeeded" | "Error";

export interface LastOperation {
  description: string;
  lastUpdateTime: string;
  state: LastOperationState;
  type: LastOperationType;
}

export interface TerminalStatus {
  attachServiceAccountName?: string;
  podName?: string;
  lastOperation?: LastOperation;
  lastError?: { description: string; lastUpdateTime?: string };
}

export interface Terminal extends KubeObject {
  metadata: ObjectMeta;
  spec: TerminalSpec;
  status?: TerminalStatus;
}
