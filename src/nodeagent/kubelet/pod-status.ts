// The pod status as the kubelet writes it (pkg/kubelet/status/generate.go, kubelet_pods.go): phase, the
// kubelet's conditions (PodScheduled included; other conditions are kept), host and pod IPs,
// startTime, init and container statuses, qosClass. Pure: the caller hands in the runtime's view.
import type { ContainerStatus as ApiContainerStatus, Pod, PodCondition, PodStatus } from "../../apis/core/v1/pod.ts";
import type { ContainerStatus, PodRuntimeStatus } from "./runtime/types.ts";

export const KUBELET_CONDITIONS = ["PodReadyToStartContainers", "Initialized", "Ready", "ContainersReady", "PodScheduled"] as const;

export interface StatusInput {
  pod: Pod;
  /** undefined before the runtime knows the pod (volumes not ready yet). */
  runtime?: PodRuntimeStatus;
  hostIP?: string;
  nowIso: string;
  /** Containers waiting for another reason than the runtime's (CreateContainerConfigError). */
  waiting?: Record<string, { reason: string; message: string }>;
}

type Cond = Omit<PodCondition, "lastTransitionTime" | "lastProbeTime">;

const list = (names: string[]): string => `[${names.join(" ")}]`;

function containersReady(pod: Pod, statuses: ContainerStatus[] | undefined, phase: string): Cond {
  if (phase === "Failed") return { type: "ContainersReady", status: "False", reason: "PodFailed" };
  if (!statuses) return { type: "ContainersReady", status: "False", reason: "UnknownContainerStatuses" };
  const unknown: string[] = [];
  const unready: string[] = [];
  for (const c of pod.spec?.containers ?? []) {
    const s = statuses.find((x) => x.name === c.name);
    if (!s) unknown.push(c.name);
    else if (!s.ready) unready.push(c.name);
  }
  if (phase === "Succeeded" && unknown.length === 0) return { type: "ContainersReady", status: "False", reason: "PodCompleted" };
  const msgs = [...(unknown.length ? [`containers with unknown status: ${list(unknown)}`] : []), ...(unready.length ? [`containers with unready status: ${list(unready)}`] : [])];
  if (msgs.length) return { type: "ContainersReady", status: "False", reason: "ContainersNotReady", message: msgs.join(", ") };
  return { type: "ContainersReady", status: "True" };
}

function initialized(pod: Pod, statuses: ContainerStatus[] | undefined, phase: string): Cond {
  const inits = pod.spec?.initContainers ?? [];
  if (inits.length === 0) return { type: "Initialized", status: "True" };
  const unknown: string[] = [];
  const incomplete: string[] = [];
  for (const c of inits) {
    const s = statuses?.find((x) => x.name === c.name);
    if (!s) unknown.push(c.name);
    else if (s.state.terminated?.exitCode !== 0) incomplete.push(c.name);
  }
  if (phase === "Succeeded" && unknown.length === 0) return { type: "Initialized", status: "True", reason: "PodCompleted" };
  const msgs = [...(unknown.length ? [`containers with unknown status: ${list(unknown)}`] : []), ...(incomplete.length ? [`containers with incomplete status: ${list(incomplete)}`] : [])];
  if (msgs.length) return { type: "Initialized", status: "False", reason: "ContainersNotInitialized", message: msgs.join(", ") };
  return { type: "Initialized", status: "True" };
}

/** The kubelet's conditions for a pod, without times. */
export function kubeletConditions(pod: Pod, rt: PodRuntimeStatus | undefined, phase: string, sandboxReady = rt !== undefined): Cond[] {
  const sandbox = sandboxReady && (rt?.podIP !== undefined || pod.spec?.hostNetwork === true) && phase !== "Succeeded" && phase !== "Failed";
  const ready = containersReady(pod, rt?.containerStatuses, phase);
  return [
    { type: "PodReadyToStartContainers", status: sandbox ? "True" : "False" },
    initialized(pod, rt?.initContainerStatuses, phase),
    { ...ready, type: "Ready" },
    ready,
    // A pod on this node is scheduled (the kubelet writes it too, for pods created with a nodeName).
    { type: "PodScheduled", status: "True" },
  ];
}

/** Sets times: lastTransitionTime kept while a condition's status stays, now when it changes. */
export function mergeConditions(old: PodCondition[] | undefined, mine: Cond[], nowIso: string): PodCondition[] {
  const owned = new Set<string>(KUBELET_CONDITIONS);
  const out: PodCondition[] = mine.map((c) => {
    const prev = old?.find((o) => o.type === c.type);
    const lastTransitionTime = prev && prev.status === c.status && prev.lastTransitionTime ? prev.lastTransitionTime : nowIso;
    return { ...c, lastProbeTime: null, lastTransitionTime };
  });
  for (const o of old ?? []) if (!owned.has(o.type)) out.push(o);
  return out;
}

function apiStatus(s: ContainerStatus, waiting: { reason: string; message: string } | undefined): ApiContainerStatus {
  if (!waiting) return s as ApiContainerStatus;
  return { ...s, state: { waiting: { ...waiting } }, ready: false, started: false } as ApiContainerStatus;
}

function pendingStatus(name: string, image: string, reason: string): ApiContainerStatus {
  return { name, state: { waiting: { reason } }, lastState: {}, ready: false, started: false, restartCount: 0, image, imageID: "" };
}

/** The status to write for the pod. */
export function composeStatus(i: StatusInput): PodStatus {
  const { pod, runtime: rt } = i;
  const old = pod.status ?? {};
  let phase: PodStatus["phase"] = rt?.phase ?? "Pending";
  // A terminal phase stays terminal (the kubelet never moves a pod out of Succeeded or Failed).
  if (old.phase === "Succeeded" || old.phase === "Failed") phase = old.phase;
  const status: PodStatus = { ...old, phase };
  delete status.reason;
  delete status.message;
  if (i.hostIP) {
    status.hostIP = i.hostIP;
    status.hostIPs = [{ ip: i.hostIP }];
  }
  const podIP = pod.spec?.hostNetwork ? i.hostIP : rt?.podIP;
  if (podIP) {
    status.podIP = podIP;
    status.podIPs = [{ ip: podIP }];
  }
  status.startTime = old.startTime ?? i.nowIso;
  const inits = pod.spec?.initContainers ?? [];
  const waiting = i.waiting ?? {};
  if (rt) {
    status.initContainerStatuses = rt.initContainerStatuses.map((s) => apiStatus(s, waiting[s.name]));
    status.containerStatuses = rt.containerStatuses.map((s) => apiStatus(s, waiting[s.name]));
  } else {
    const initReason = inits.length ? "PodInitializing" : "ContainerCreating";
    status.initContainerStatuses = inits.map((c) => apiStatus(pendingStatus(c.name, c.image ?? "", "PodInitializing") as ContainerStatus, waiting[c.name]));
    status.containerStatuses = (pod.spec?.containers ?? []).map((c) => apiStatus(pendingStatus(c.name, c.image ?? "", initReason) as ContainerStatus, waiting[c.name]));
  }
  if (inits.length === 0) delete status.initContainerStatuses;
  const ready: PodRuntimeStatus = rt
    ? { ...rt, containerStatuses: rt.containerStatuses.map((s) => (waiting[s.name] ? { ...s, ready: false } : s)) }
    : { uid: pod.metadata.uid ?? "", initContainerStatuses: (status.initContainerStatuses ?? []) as ContainerStatus[], containerStatuses: (status.containerStatuses ?? []) as ContainerStatus[], phase: "Pending" };
  status.conditions = mergeConditions(old.conditions, kubeletConditions(pod, ready, phase, rt !== undefined), i.nowIso);
  status.qosClass = old.qosClass ?? "BestEffort";
  return status;
}

/** The status without times that only move: equal values mean no patch is needed. */
export function statusKey(s: PodStatus): string {
  return JSON.stringify({ ...s, conditions: s.conditions?.map((c) => ({ type: c.type, status: c.status, reason: c.reason, message: c.message })) });
}
