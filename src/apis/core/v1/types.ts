// core/v1 (the legacy group ""): the kinds this server stores itself. Plain JSON shapes, as
// on the wire. Pods live with their own registry.
import type { KubeObject } from "../../meta/v1/types.ts";

export const GROUP = "";
export const VERSION = "v1";
export const API_VERSION = "v1";

/** Namespace finalizer the namespace controller removes once the namespace is empty. */
export const FINALIZER_KUBERNETES = "kubernetes";

export type NamespacePhase = "Active" | "Terminating";

export interface NamespaceCondition {
  type: string;
  status: "True" | "False" | "Unknown";
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

export interface Namespace extends KubeObject {
  spec?: { finalizers?: string[] };
  status?: { phase?: NamespacePhase; conditions?: NamespaceCondition[] };
}

export const SECRET_TYPE_OPAQUE = "Opaque";
export const SECRET_TYPE_SERVICE_ACCOUNT_TOKEN = "kubernetes.io/service-account-token";
export const SECRET_TYPE_DOCKERCFG = "kubernetes.io/dockercfg";
export const SECRET_TYPE_DOCKER_CONFIG_JSON = "kubernetes.io/dockerconfigjson";
export const SECRET_TYPE_BASIC_AUTH = "kubernetes.io/basic-auth";
export const SECRET_TYPE_SSH_AUTH = "kubernetes.io/ssh-auth";
export const SECRET_TYPE_TLS = "kubernetes.io/tls";
export const SECRET_TYPE_BOOTSTRAP_TOKEN = "bootstrap.kubernetes.io/token";

/** Annotation naming the ServiceAccount of a service-account-token Secret. */
export const SERVICE_ACCOUNT_NAME_ANNOTATION = "kubernetes.io/service-account.name";
export const SERVICE_ACCOUNT_UID_ANNOTATION = "kubernetes.io/service-account.uid";

export interface Secret extends KubeObject {
  /** Values are base64-encoded. */
  data?: Record<string, string>;
  /** Write-only convenience: merged into `data` on write, never stored. */
  stringData?: Record<string, string>;
  type?: string;
  immutable?: boolean;
}

export interface ConfigMap extends KubeObject {
  data?: Record<string, string>;
  /** Values are base64-encoded. */
  binaryData?: Record<string, string>;
  immutable?: boolean;
}

export interface ObjectReference {
  kind?: string;
  namespace?: string;
  name?: string;
  uid?: string;
  apiVersion?: string;
  resourceVersion?: string;
  fieldPath?: string;
}

export interface LocalObjectReference {
  name?: string;
}

export interface ServiceAccount extends KubeObject {
  secrets?: ObjectReference[];
  imagePullSecrets?: LocalObjectReference[];
  automountServiceAccountToken?: boolean;
}

export type TaintEffect = "NoSchedule" | "PreferNoSchedule" | "NoExecute";

export interface Taint {
  key: string;
  value?: string;
  effect: TaintEffect;
  timeAdded?: string;
}

export interface NodeSpec {
  podCIDR?: string;
  podCIDRs?: string[];
  providerID?: string;
  unschedulable?: boolean;
  taints?: Taint[];
}

export type NodeAddressType = "Hostname" | "InternalIP" | "ExternalIP" | "InternalDNS" | "ExternalDNS";

export interface NodeAddress {
  type: NodeAddressType | string;
  address: string;
}

export interface NodeCondition {
  type: string;
  status: "True" | "False" | "Unknown";
  lastHeartbeatTime?: string;
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

export interface NodeSystemInfo {
  machineID?: string;
  systemUUID?: string;
  bootID?: string;
  kernelVersion?: string;
  osImage?: string;
  containerRuntimeVersion?: string;
  kubeletVersion?: string;
  kubeProxyVersion?: string;
  operatingSystem?: string;
  architecture?: string;
}

export interface NodeStatus {
  capacity?: Record<string, string | number>;
  allocatable?: Record<string, string | number>;
  phase?: string;
  conditions?: NodeCondition[];
  addresses?: NodeAddress[];
  daemonEndpoints?: { kubeletEndpoint?: { Port: number } };
  nodeInfo?: NodeSystemInfo;
  images?: { names?: string[]; sizeBytes?: number }[];
  volumesInUse?: string[];
  volumesAttached?: { name: string; devicePath: string }[];
  config?: Record<string, unknown>;
}

export interface Node extends KubeObject {
  spec?: NodeSpec;
  status?: NodeStatus;
}

export interface EventSource {
  component?: string;
  host?: string;
}

export interface EventSeries {
  count?: number;
  lastObservedTime?: string;
}

export interface Event extends KubeObject {
  involvedObject: ObjectReference;
  reason?: string;
  message?: string;
  source?: EventSource;
  firstTimestamp?: string;
  lastTimestamp?: string;
  count?: number;
  /** "Normal" or "Warning". */
  type?: string;
  eventTime?: string;
  series?: EventSeries;
  action?: string;
  related?: ObjectReference;
  reportingComponent?: string;
  reportingInstance?: string;
}
