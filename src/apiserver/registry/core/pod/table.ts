// kubectl get pods: NAME READY STATUS RESTARTS AGE, and with -o wide IP NODE NOMINATED NODE
// READINESS GATES (pkg/printers/internalversion printPod).
import type { ContainerStatus, Pod } from "../../../../apis/core/v1/pod.ts";
import type { KubeObject } from "../../../../apis/meta/v1/types.ts";
import type { TableConvertor } from "../../types.ts";
import { translateTimestampSince } from "../age.ts";
import { ageCell, ageColumn, column } from "../printers.ts";

function isRestartableInit(pod: Pod, name: string): boolean {
  return (pod.spec?.initContainers ?? []).some((c) => c.name === name && c.restartPolicy === "Always");
}

function later(a: string, b: string | undefined): string {
  return b && (!a || Date.parse(b) > Date.parse(a)) ? b : a;
}

interface Summary {
  reason: string;
  ready: number;
  total: number;
  restarts: number;
  lastRestart: string;
}

/** STATUS of a pod held by init container i of n: its failure, its waiting reason, or "Init:i/n". */
function initReason(c: ContainerStatus, i: number, n: number): string {
  const t = c.state?.terminated;
  const w = c.state?.waiting;
  if (t) return t.reason ? `Init:${t.reason}` : t.signal ? `Init:Signal:${t.signal}` : `Init:ExitCode:${t.exitCode}`;
  if (w?.reason && w.reason !== "PodInitializing") return `Init:${w.reason}`;
  return `Init:${i}/${n}`;
}

/** The init-container part of printPod: whether the pod is still initializing, and its reason. */
function initStatus(pod: Pod, s: Summary): { initializing: boolean; restartableRestarts: number; restartableLast: string } {
  const inits = pod.status?.initContainerStatuses ?? [];
  const specInits = pod.spec?.initContainers ?? [];
  let restartableRestarts = 0;
  let restartableLast = "";
  for (let i = 0; i < inits.length; i++) {
    const c = inits[i]!;
    s.restarts += c.restartCount ?? 0;
    s.lastRestart = later(s.lastRestart, c.lastState?.terminated?.finishedAt);
    const restartable = isRestartableInit(pod, c.name);
    if (restartable) {
      restartableRestarts += c.restartCount ?? 0;
      restartableLast = later(restartableLast, c.lastState?.terminated?.finishedAt);
    }
    const t = c.state?.terminated;
    if (t && t.exitCode === 0) continue;
    if (restartable && c.started) {
      if (c.ready) s.ready++;
      continue;
    }
    s.reason = initReason(c, i, specInits.length);
    return { initializing: true, restartableRestarts, restartableLast };
  }
  return { initializing: false, restartableRestarts, restartableLast };
}

function containersStatus(pod: Pod, s: Summary, statuses: ContainerStatus[]): void {
  let hasRunning = false;
  for (let i = statuses.length - 1; i >= 0; i--) {
    const c = statuses[i]!;
    s.restarts += c.restartCount ?? 0;
    s.lastRestart = later(s.lastRestart, c.lastState?.terminated?.finishedAt);
    const t = c.state?.terminated;
    if (c.state?.waiting?.reason) s.reason = c.state.waiting.reason;
    else if (t?.reason) s.reason = t.reason;
    else if (t) s.reason = t.signal ? `Signal:${t.signal}` : `ExitCode:${t.exitCode}`;
    else if (c.ready && c.state?.running) {
      hasRunning = true;
      s.ready++;
    }
  }
  if (s.reason === "Completed" && hasRunning) {
    s.reason = (pod.status?.conditions ?? []).some((c) => c.type === "Ready" && c.status === "True") ? "Running" : "NotReady";
  }
}

export function podSummary(pod: Pod): Summary {
  const status = pod.status ?? {};
  const s: Summary = { reason: status.reason || status.phase || "", ready: 0, total: pod.spec?.containers?.length ?? 0, restarts: 0, lastRestart: "" };
  s.total += (pod.spec?.initContainers ?? []).filter((c) => c.restartPolicy === "Always").length;
  if ((status.conditions ?? []).some((c) => c.type === "PodScheduled" && c.reason === "SchedulingGated")) s.reason = "SchedulingGated";
  const init = initStatus(pod, s);
  const initialized = (status.conditions ?? []).some((c) => c.type === "Initialized" && c.status === "True");
  if (!init.initializing || initialized) {
    s.restarts = init.restartableRestarts;
    s.lastRestart = init.restartableLast;
    containersStatus(pod, s, status.containerStatuses ?? []);
  }
  const terminal = status.phase === "Succeeded" || status.phase === "Failed";
  if (pod.metadata.deletionTimestamp && status.reason === "NodeLost") s.reason = "Unknown";
  else if (pod.metadata.deletionTimestamp && !terminal) s.reason = "Terminating";
  return s;
}

function readinessGates(pod: Pod): string {
  const gates = pod.spec?.readinessGates ?? [];
  if (gates.length === 0) return "<none>";
  const conditions = pod.status?.conditions ?? [];
  const ok = gates.filter((g) => conditions.find((c) => c.type === g.conditionType)?.status === "True").length;
  return `${ok}/${gates.length}`;
}

export const podTable: TableConvertor = {
  columns: [
    column("Ready", "string", "The aggregate readiness state of this pod for accepting traffic."),
    column("Status", "string", "The aggregate status of the containers in this pod."),
    column("Restarts", "string", "The number of times the containers in this pod have been restarted and when the last container in this pod has restarted."),
    ageColumn(),
    column("IP", "string", "podIP address allocated to the pod. Routable at least within the cluster. Empty if not yet allocated.", { priority: 1 }),
    column("Node", "string", "NodeName indicates in which node this pod is scheduled.", { priority: 1 }),
    column("Nominated Node", "string", "nominatedNodeName is set only when this pod preempts other pods on the node, but it cannot be scheduled right away as preemption victims receive their graceful termination periods.", { priority: 1 }),
    column("Readiness Gates", "string", "If specified, all readiness gates will be evaluated for pod readiness.", { priority: 1 }),
  ],
  cells(obj: KubeObject, now: Date): unknown[] {
    const pod = obj as Pod;
    const s = podSummary(pod);
    const restarts = s.restarts !== 0 && s.lastRestart ? `${s.restarts} (${translateTimestampSince(s.lastRestart, now)} ago)` : String(s.restarts);
    return [
      `${s.ready}/${s.total}`,
      s.reason,
      restarts,
      ageCell(pod, now),
      pod.status?.podIPs?.[0]?.ip || "<none>",
      pod.spec?.nodeName || "<none>",
      pod.status?.nominatedNodeName || "<none>",
      readinessGates(pod),
    ];
  },
};
