// The part of core/v1 Pod the runtime reads, what the caller resolves for it (env from Secrets, ConfigMaps
// and fields; volume files), and the container statuses it reports, shaped as the kubelet writes them.

export interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: unknown;
}

export interface VolumeMount {
  name: string;
  mountPath: string;
  readOnly?: boolean;
  subPath?: string;
}

export interface Container {
  name: string;
  image: string;
  command?: string[];
  args?: string[];
  workingDir?: string;
  env?: EnvVar[];
  volumeMounts?: VolumeMount[];
  tty?: boolean;
  stdin?: boolean;
  stdinOnce?: boolean;
  securityContext?: { privileged?: boolean };
}

export interface Volume {
  name: string;
  emptyDir?: object;
  hostPath?: { path: string; type?: string };
  secret?: object;
  configMap?: object;
  projected?: object;
  downwardAPI?: object;
}

export interface PodSpec {
  containers: Container[];
  initContainers?: Container[];
  volumes?: Volume[];
  restartPolicy?: "Always" | "OnFailure" | "Never";
  hostPID?: boolean;
  hostNetwork?: boolean;
  shareProcessNamespace?: boolean;
  hostname?: string;
  terminationGracePeriodSeconds?: number;
}

export interface Pod {
  metadata: { name: string; namespace: string; uid: string };
  spec: PodSpec;
}

/** Values the caller resolved from the API: env (fieldRef, secretKeyRef, configMapKeyRef) and volume files. */
export interface PodInputs {
  /** container name -> variable name -> value (for env entries with valueFrom). */
  env?: Record<string, Record<string, string>>;
  /** volume name -> file path (relative) -> content, for secret, configMap, projected and downwardAPI. */
  volumes?: Record<string, Record<string, string | { data: string; mode?: number }>>;
}

export interface ContainerStateTerminated {
  exitCode: number;
  signal?: number;
  reason: string;
  message?: string;
  startedAt?: string;
  finishedAt: string;
  containerID?: string;
}

export interface ContainerState {
  waiting?: { reason: string; message?: string };
  running?: { startedAt: string };
  terminated?: ContainerStateTerminated;
}

export interface ContainerStatus {
  name: string;
  state: ContainerState;
  lastState: ContainerState;
  ready: boolean;
  started: boolean;
  restartCount: number;
  image: string;
  imageID: string;
  containerID?: string;
}

export interface PodRuntimeStatus {
  uid: string;
  podIP?: string;
  initContainerStatuses: ContainerStatus[];
  containerStatuses: ContainerStatus[];
  /** Every container that will run has run to its end and nothing restarts it: the pod's phase is final. */
  phase: "Pending" | "Running" | "Succeeded" | "Failed";
}
