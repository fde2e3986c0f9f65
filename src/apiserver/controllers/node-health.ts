// What the node lifecycle controller writes, as pure functions (kube-controller-manager's
// nodelifecycle controller; docs/scheduler.md): conditions turned Unknown when a node's kubelet
// went silent, and the taints a node's conditions imply.
import type { Node, NodeCondition, Taint } from "../../apis/core/v1/types.ts";
import { metaTime } from "../../utils/time.ts";

export const TAINT_NOT_READY = "node.kubernetes.io/not-ready";
export const TAINT_UNREACHABLE = "node.kubernetes.io/unreachable";
export const TAINT_UNSCHEDULABLE = "node.kubernetes.io/unschedulable";

/** The conditions the controller sets to Unknown (adding those the kubelet never posted). */
const MONITORED_CONDITIONS = ["Ready", "MemoryPressure", "DiskPressure", "PIDPressure"];

/** Condition type -> status -> NoSchedule taint key (nodeConditionToTaintKeyStatusMap). */
const CONDITION_TAINTS: Record<string, Record<string, string>> = {
  Ready: { False: TAINT_NOT_READY, Unknown: TAINT_UNREACHABLE },
  MemoryPressure: { True: "node.kubernetes.io/memory-pressure" },
  DiskPressure: { True: "node.kubernetes.io/disk-pressure" },
  NetworkUnavailable: { True: "node.kubernetes.io/network-unavailable" },
  PIDPressure: { True: "node.kubernetes.io/pid-pressure" },
};
const CONDITION_TAINT_KEYS = new Set(Object.values(CONDITION_TAINTS).flatMap((m) => Object.values(m)));

export function readyCondition(node: Node): NodeCondition | undefined {
  return (node.status?.conditions ?? []).find((c) => c.type === "Ready");
}

/**
 * The node's conditions after its kubelet stopped posting: every monitored condition Unknown
 * (NodeStatusUnknown), missing ones added (NodeStatusNeverUpdated). undefined when nothing changes.
 */
export function unknownConditions(node: Node, nowMs: number): NodeCondition[] | undefined {
  const now = metaTime(nowMs);
  const conditions = (node.status?.conditions ?? []).map((c) => ({ ...c }));
  let changed = false;
  for (const type of MONITORED_CONDITIONS) {
    const c = conditions.find((x) => x.type === type);
    if (!c) {
      conditions.push({
        type,
        status: "Unknown",
        reason: "NodeStatusNeverUpdated",
        message: "Kubelet never posted node status.",
        lastHeartbeatTime: node.metadata.creationTimestamp,
        lastTransitionTime: now,
      });
      changed = true;
    } else if (c.status !== "Unknown") {
      c.status = "Unknown";
      c.reason = "NodeStatusUnknown";
      c.message = "Kubelet stopped posting node status.";
      c.lastTransitionTime = now;
      changed = true;
    }
  }
  return changed ? conditions : undefined;
}

/**
 * The node's taints with the controller's own brought in line with its conditions: NoSchedule
 * taints per condition (and unschedulable), NoExecute not-ready/unreachable for Ready False/Unknown.
 * Other taints are kept as they are, taints that stay keep their timeAdded. undefined when nothing changes.
 */
export function reconcileTaints(node: Node, nowMs: number): Taint[] | undefined {
  const wanted: Taint[] = [];
  for (const c of node.status?.conditions ?? []) {
    const key = CONDITION_TAINTS[c.type]?.[c.status];
    if (key) wanted.push({ key, effect: "NoSchedule" });
  }
  if (node.spec?.unschedulable) wanted.push({ key: TAINT_UNSCHEDULABLE, effect: "NoSchedule" });
  const ready = readyCondition(node)?.status;
  if (ready === "False") wanted.push({ key: TAINT_NOT_READY, effect: "NoExecute" });
  if (ready === "Unknown") wanted.push({ key: TAINT_UNREACHABLE, effect: "NoExecute" });

  const managed = (t: Taint) => (t.effect === "NoSchedule" && (CONDITION_TAINT_KEYS.has(t.key) || t.key === TAINT_UNSCHEDULABLE)) || (t.effect === "NoExecute" && (t.key === TAINT_NOT_READY || t.key === TAINT_UNREACHABLE));
  const same = (a: Taint, b: Taint) => a.key === b.key && a.effect === b.effect;
  const current = node.spec?.taints ?? [];
  const kept = current.filter((t) => !managed(t) || wanted.some((w) => same(w, t)));
  const added = wanted.filter((w) => !current.some((t) => same(t, w))).map((w) => ({ ...w, timeAdded: metaTime(nowMs) }));
  if (kept.length === current.length && added.length === 0) return undefined;
  return [...kept, ...added];
}
