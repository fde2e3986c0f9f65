// The scheduler's decisions as pure functions (docs/scheduler.md): which pods it schedules, which
// nodes fit a pod (kube-scheduler's NodeUnschedulable, TaintToleration and NodeAffinity filter
// plugins, in that order, plus Ready), which fitting node it prefers (fewest pods, then name), and
// the FitError message when none fits.
import type { Pod, Toleration } from "../apis/core/v1/pod.ts";
import { DEFAULT_SCHEDULER_NAME } from "../apis/core/v1/pod.ts";
import type { Node, Taint } from "../apis/core/v1/types.ts";

export const TAINT_UNSCHEDULABLE = "node.kubernetes.io/unschedulable";

/** The reasons of kube-scheduler's filter plugins, word for word. */
export const REASON_UNSCHEDULABLE = "node(s) were unschedulable";
export const REASON_SELECTOR = "node(s) didn't match Pod's node affinity/selector";
export const REASON_NOT_READY = "node(s) were not ready";
export const untoleratedTaintReason = (t: Taint): string => `node(s) had untolerated taint {${t.key}: ${t.value ?? ""}}`;
/** ErrNoNodesAvailable: the message when the cluster has no nodes at all. */
export const NO_NODES_MESSAGE = "no nodes available to schedule pods";

/** A pod this scheduler should place: unbound, not being deleted, not gated, for `schedulerName`. */
export function needsScheduling(pod: Pod, schedulerName = DEFAULT_SCHEDULER_NAME): boolean {
  if (pod.spec?.nodeName || pod.metadata.deletionTimestamp) return false;
  if (pod.spec?.schedulingGates?.length) return false;
  const phase = pod.status?.phase;
  if (phase === "Succeeded" || phase === "Failed") return false;
  return (pod.spec?.schedulerName || DEFAULT_SCHEDULER_NAME) === schedulerName;
}

/** v1 Toleration.ToleratesTaint: effect empty matches all, key empty (with Exists) all keys; operator empty means Equal. */
export function toleratesTaint(t: Toleration, taint: Taint): boolean {
  if (t.effect && t.effect !== taint.effect) return false;
  if (t.key && t.key !== taint.key) return false;
  switch (t.operator ?? "Equal") {
    case "Equal":
      return (t.value ?? "") === (taint.value ?? "");
    case "Exists":
      return true;
    default:
      return false;
  }
}

/** The first NoSchedule/NoExecute taint of the node that no toleration tolerates (FindMatchingUntoleratedTaint). */
export function untoleratedTaint(taints: readonly Taint[], tolerations: readonly Toleration[]): Taint | undefined {
  return taints.find((taint) => (taint.effect === "NoSchedule" || taint.effect === "NoExecute") && !tolerations.some((t) => toleratesTaint(t, taint)));
}

export function nodeReady(node: Node): boolean {
  return (node.status?.conditions ?? []).some((c) => c.type === "Ready" && c.status === "True");
}

function matchesSelector(pod: Pod, node: Node): boolean {
  const labels = node.metadata.labels ?? {};
  return Object.entries(pod.spec?.nodeSelector ?? {}).every(([k, v]) => labels[k] === v);
}

/** Why the node does not fit the pod (the first filter that fails), or undefined when it fits. */
export function filterNode(pod: Pod, node: Node): string | undefined {
  const tolerations = pod.spec?.tolerations ?? [];
  if (node.spec?.unschedulable) {
    const taint: Taint = { key: TAINT_UNSCHEDULABLE, effect: "NoSchedule" };
    if (!tolerations.some((t) => toleratesTaint(t, taint))) return REASON_UNSCHEDULABLE;
  }
  const taint = untoleratedTaint(node.spec?.taints ?? [], tolerations);
  if (taint) return untoleratedTaintReason(taint);
  if (!matchesSelector(pod, node)) return REASON_SELECTOR;
  if (!nodeReady(node)) return REASON_NOT_READY;
  return undefined;
}

/** FitError.Error(): `0/<n> nodes are available: <count> <reason>, ... .`, entries sorted as strings. */
export function fitErrorMessage(total: number, reasons: readonly string[]): string {
  if (total === 0) return NO_NODES_MESSAGE;
  const counts = new Map<string, number>();
  for (const r of reasons) counts.set(r, (counts.get(r) ?? 0) + 1);
  const histogram = [...counts].map(([r, n]) => `${n} ${r}`).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  let msg = `0/${total} nodes are available:`;
  if (histogram.length) msg += ` ${histogram.join(", ")}.`;
  return msg;
}

/** Pods that occupy a node: bound to it and not terminal. */
export function podCounts(pods: Iterable<Pod>): Map<string, number> {
  const counts = new Map<string, number>();
  for (const p of pods) {
    const node = p.spec?.nodeName;
    const phase = p.status?.phase;
    if (!node || phase === "Succeeded" || phase === "Failed") continue;
    counts.set(node, (counts.get(node) ?? 0) + 1);
  }
  return counts;
}

export type Placement = { node: string } | { message: string };

/** The fitting node with the fewest pods (ties: the smallest name), or the FitError message. */
export function placePod(pod: Pod, nodes: readonly Node[], counts: ReadonlyMap<string, number>): Placement {
  const reasons: string[] = [];
  let best: { name: string; pods: number } | undefined;
  for (const node of nodes) {
    const name = node.metadata.name ?? "";
    const reason = filterNode(pod, node);
    if (reason) {
      reasons.push(reason);
      continue;
    }
    const pods = counts.get(name) ?? 0;
    if (!best || pods < best.pods || (pods === best.pods && name < best.name)) best = { name, pods };
  }
  return best ? { node: best.name } : { message: fitErrorMessage(nodes.length, reasons) };
}
