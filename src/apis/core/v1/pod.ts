// core/v1 Pod, Binding and the pieces of PodSpec/PodStatus that this project's code reads.
// Plain JSON shapes (k8s.io/api/core/v1 types.go); fields nobody reads here stay untyped.
import type { KubeObject } from "../../meta/v1/types.ts";
import type { ObjectReference } from "./types.ts";

export type RestartPolicy = "Always" | "OnFailure" | "Never";
export type PodPhase = "Pending" | "Running" | "Succeeded" | "Failed" | "Unknown";

export interface KeySelector {
  name?: string;
  key: string;
  optional?: boolean;
}

export interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: {
    fieldRef?: { apiVersion?: string; fieldPath: string };
    resourceFieldRef?: { containerName?: string; resource: string; divisor?: string | number };
    configMapKeyRef?: KeySelector;
    secretKeyRef?: KeySelector;
  };
}

export interface VolumeMount {
  name: string;
  mountPath: string;
  readOnly?: boolean;
  subPath?: string;
}

export interface SecurityContext {
  privileged?: boolean;
  allowPrivilegeEscalation?: boolean;
  runAsNonRoot?: boolean;
  runAsUser?: number;
  runAsGroup?: number;
  readOnlyRootFilesystem?: boolean;
  procMount?: string;
  capabilities?: { add?: string[]; drop?: string[] };
  seccompProfile?: { type: string; localhostProfile?: string };
  seLinuxOptions?: { user?: string; role?: string; type?: string; level?: string };
  appArmorProfile?: { type: string; localhostProfile?: string };
  windowsOptions?: { hostProcess?: boolean };
}

export interface ContainerPort {
  name?: string;
  containerPort: number;
  hostPort?: number;
  hostIP?: string;
  protocol?: string;
}

export interface Container {
  name: string;
  image?: string;
  command?: string[];
  args?: string[];
  workingDir?: string;
  ports?: ContainerPort[];
  env?: EnvVar[];
  envFrom?: { prefix?: string; configMapRef?: { name?: string }; secretRef?: { name?: string } }[];
  resources?: { limits?: Record<string, string | number>; requests?: Record<string, string | number> };
  volumeMounts?: VolumeMount[];
  imagePullPolicy?: string;
  securityContext?: SecurityContext;
  /** Init containers only: "Always" makes a sidecar. */
  restartPolicy?: string;
  stdin?: boolean;
  stdinOnce?: boolean;
  tty?: boolean;
  [field: string]: unknown;
}

export interface KeyToPath {
  key: string;
  path: string;
  mode?: number;
}

export interface ServiceAccountTokenProjection {
  audience?: string;
  expirationSeconds?: number;
  path: string;
}

export interface VolumeProjection {
  serviceAccountToken?: ServiceAccountTokenProjection;
  configMap?: { name?: string; items?: KeyToPath[]; optional?: boolean };
  secret?: { name?: string; items?: KeyToPath[]; optional?: boolean };
  downwardAPI?: { items?: { path: string; fieldRef?: { apiVersion?: string; fieldPath: string }; mode?: number }[] };
}

export interface Volume {
  name: string;
  emptyDir?: { medium?: string; sizeLimit?: string | number };
  hostPath?: { path: string; type?: string };
  secret?: { secretName?: string; items?: KeyToPath[]; defaultMode?: number; optional?: boolean };
  configMap?: { name?: string; items?: KeyToPath[]; defaultMode?: number; optional?: boolean };
  projected?: { sources?: VolumeProjection[]; defaultMode?: number };
  downwardAPI?: { items?: { path: string; fieldRef?: { apiVersion?: string; fieldPath: string }; mode?: number }[]; defaultMode?: number };
  [source: string]: unknown;
}

export interface Toleration {
  key?: string;
  operator?: "Exists" | "Equal";
  value?: string;
  effect?: "NoSchedule" | "PreferNoSchedule" | "NoExecute";
  tolerationSeconds?: number;
}

export interface PodSecurityContext {
  runAsNonRoot?: boolean;
  runAsUser?: number;
  runAsGroup?: number;
  fsGroup?: number;
  supplementalGroups?: number[];
  sysctls?: { name: string; value: string }[];
  seccompProfile?: { type: string; localhostProfile?: string };
  seLinuxOptions?: { user?: string; role?: string; type?: string; level?: string };
  appArmorProfile?: { type: string; localhostProfile?: string };
  windowsOptions?: { hostProcess?: boolean };
}

export interface PodSpec {
  containers: Container[];
  initContainers?: Container[];
  ephemeralContainers?: Container[];
  volumes?: Volume[];
  restartPolicy?: RestartPolicy;
  terminationGracePeriodSeconds?: number;
  activeDeadlineSeconds?: number;
  nodeSelector?: Record<string, string>;
  serviceAccountName?: string;
  /** Deprecated alias of serviceAccountName. */
  serviceAccount?: string;
  automountServiceAccountToken?: boolean;
  nodeName?: string;
  hostNetwork?: boolean;
  hostPID?: boolean;
  hostIPC?: boolean;
  hostUsers?: boolean;
  securityContext?: PodSecurityContext;
  schedulerName?: string;
  tolerations?: Toleration[];
  imagePullSecrets?: { name?: string }[];
  schedulingGates?: { name: string }[];
  readinessGates?: { conditionType: string }[];
  priority?: number;
  [field: string]: unknown;
}

export interface PodCondition {
  type: string;
  status: "True" | "False" | "Unknown";
  lastProbeTime?: string | null;
  lastTransitionTime?: string | null;
  reason?: string;
  message?: string;
}

export interface ContainerState {
  waiting?: { reason?: string; message?: string };
  running?: { startedAt?: string };
  terminated?: { exitCode: number; signal?: number; reason?: string; message?: string; startedAt?: string; finishedAt?: string };
}

export interface ContainerStatus {
  name: string;
  ready: boolean;
  restartCount: number;
  image: string;
  imageID: string;
  started?: boolean;
  state?: ContainerState;
  lastState?: ContainerState;
  containerID?: string;
}

export interface PodStatus {
  phase?: PodPhase;
  conditions?: PodCondition[];
  message?: string;
  reason?: string;
  nominatedNodeName?: string;
  hostIP?: string;
  hostIPs?: { ip: string }[];
  podIP?: string;
  podIPs?: { ip: string }[];
  startTime?: string;
  initContainerStatuses?: ContainerStatus[];
  containerStatuses?: ContainerStatus[];
  ephemeralContainerStatuses?: ContainerStatus[];
  qosClass?: "Guaranteed" | "Burstable" | "BestEffort";
}

export interface Pod extends KubeObject {
  spec?: PodSpec;
  status?: PodStatus;
}

/** What a scheduler posts to pods/<name>/binding. */
export interface Binding extends KubeObject {
  target: ObjectReference;
}

/** The condition a binding sets, and the one the scheduler reports when no node fits. */
export const POD_SCHEDULED = "PodScheduled";
export const DEFAULT_SCHEDULER_NAME = "default-scheduler";
export const DEFAULT_TERMINATION_GRACE_PERIOD_SECONDS = 30;
