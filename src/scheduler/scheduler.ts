// The scheduling controller (docs/scheduler.md): a pod that needs a node is placed by the pure
// filter/score of filter.ts on the manager's cached nodes and pods, and bound via pods/binding.
// Bound pods are "assumed" on their node until the cache shows the binding, so pods scheduled in
// quick succession spread as they should. No fitting node: PodScheduled=False/Unschedulable and a
// FailedScheduling event, retried with per-pod backoff (1 s doubling to 5 min) and at once when a
// node appears or changes in a way that matters.
import type { Binding, Pod } from "../apis/core/v1/pod.ts";
import { DEFAULT_SCHEDULER_NAME, POD_SCHEDULED } from "../apis/core/v1/pod.ts";
import type { Node } from "../apis/core/v1/types.ts";
import { isConflict, isNotFound } from "../apimachinery/errors.ts";
import { Nodes, Pods } from "../client/builtins.ts";
import type { EventRecorder } from "../client/events.ts";
import { type ObjectKey, keyOf, keyString, resourcePath } from "../client/resource.ts";
import { fieldIndexName } from "../controllerruntime/cache/cache.ts";
import type { Store } from "../controllerruntime/cache/store.ts";
import { newControllerManagedBy } from "../controllerruntime/builder.ts";
import type { Controller } from "../controllerruntime/controller.ts";
import type { Manager } from "../controllerruntime/manager.ts";
import type { Predicate } from "../controllerruntime/predicates.ts";
import type { ReconcileContext, Request, Result } from "../controllerruntime/reconcile.ts";
import { ItemExponentialFailureRateLimiter } from "../controllerruntime/workqueue/ratelimiter.ts";
import { needsScheduling, placePod } from "./filter.ts";
import { metaTime } from "../utils/time.ts";
import { unlessNotFound } from "../client/helpers.ts";

export { Nodes, Pods };

const NODE_NAME = "spec.nodeName";
/** kube-scheduler's podInitialBackoffDuration; the cap is its unschedulable-pods flush interval. */
export const BACKOFF_BASE_MS = 1_000;
export const BACKOFF_MAX_MS = 5 * 60_000;

export interface SchedulerOptions {
  /** The pods' spec.schedulerName this scheduler serves; default default-scheduler. */
  schedulerName?: string;
}

/** A node change that can make an unschedulable pod fit. */
function nodeChangeMatters(o: Node, n: Node): boolean {
  const ready = (x: Node) => (x.status?.conditions ?? []).find((c) => c.type === "Ready")?.status;
  return (
    ready(o) !== ready(n) ||
    Boolean(o.spec?.unschedulable) !== Boolean(n.spec?.unschedulable) ||
    JSON.stringify(o.spec?.taints ?? []) !== JSON.stringify(n.spec?.taints ?? []) ||
    JSON.stringify(o.metadata.labels ?? {}) !== JSON.stringify(n.metadata.labels ?? {})
  );
}

export class SchedulerReconciler {
  readonly schedulerName: string;
  /** Pods bound by this scheduler that the cache still shows unbound: key -> node. */
  private readonly assumed = new Map<string, string>();
  private readonly recorder: EventRecorder;

  constructor(
    private readonly mgr: Manager,
    opts: SchedulerOptions = {},
  ) {
    this.schedulerName = opts.schedulerName ?? DEFAULT_SCHEDULER_NAME;
    this.recorder = mgr.eventRecorderFor(this.schedulerName);
  }

  private podStore(): Store<Pod> {
    return this.mgr.cache.informerFor(Pods).store;
  }

  /** Keys of the cached pods waiting for this scheduler (what a node change enqueues). */
  pendingPods(): ObjectKey[] {
    return this.podStore()
      .list()
      .filter((p) => needsScheduling(p, this.schedulerName) && !this.assumed.has(keyString(keyOf(p))))
      .map(keyOf);
  }

  /**
   * The predicate of the pod watch: pods to schedule, and pods this scheduler still assumes. An
   * update of a waiting pod counts only when more than its status changed (its own
   * PodScheduled=False write is no reason to try again).
   */
  podPredicate(): Predicate<Pod> {
    const assumed = (p: Pod) => this.assumed.has(keyString(keyOf(p)));
    const waiting = (p: Pod) => needsScheduling(p, this.schedulerName);
    const relevant = (p: Pod) => JSON.stringify([p.spec, p.metadata.labels, p.metadata.annotations, p.metadata.deletionTimestamp]);
    return {
      create: (p) => waiting(p) || assumed(p),
      update: (o, n) => assumed(n) || (waiting(n) && (!waiting(o) || relevant(o) !== relevant(n))),
      delete: assumed,
    };
  }

  async reconcile(req: Request, ctx: ReconcileContext): Promise<Result | void> {
    const key = keyString(req);
    const pod = this.podStore().get(key);
    if (!pod || !needsScheduling(pod, this.schedulerName)) {
      this.assumed.delete(key);
      return;
    }
    if (this.assumed.has(key)) return; // bound; the cache has not seen it yet
    const nodes = this.mgr.cache.informerFor(Nodes).store.list();
    const placement = placePod(pod, nodes, this.podCounts(nodes));
    if ("node" in placement) {
      await this.bind(pod, placement.node, ctx);
      return;
    }
    ctx.log.info({ reason: placement.message }, "unschedulable");
    await this.markUnschedulable(pod, placement.message, ctx);
    this.recorder.event(pod, "Warning", "FailedScheduling", placement.message);
    return { requeue: true };
  }

  private podCounts(nodes: Node[]): Map<string, number> {
    const store = this.podStore();
    const counts = new Map<string, number>();
    for (const n of nodes) {
      const name = n.metadata.name ?? "";
      const bound = store.byIndex(fieldIndexName(NODE_NAME), name).filter((p) => p.status?.phase !== "Succeeded" && p.status?.phase !== "Failed");
      counts.set(name, bound.length);
    }
    for (const [key, node] of this.assumed) {
      const cached = store.get(key);
      if (cached?.spec?.nodeName) continue; // the cache shows the binding: counted above already
      counts.set(node, (counts.get(node) ?? 0) + 1);
    }
    return counts;
  }

  private async bind(pod: Pod, node: string, ctx: ReconcileContext): Promise<void> {
    const { namespace, name, uid } = pod.metadata;
    const binding: Binding = { apiVersion: "v1", kind: "Binding", metadata: { name, namespace, uid }, target: { kind: "Node", name: node } };
    try {
      await this.mgr.client.transport.request({
        method: "POST",
        path: resourcePath(Pods, namespace, name, "binding"),
        query: { fieldManager: this.mgr.client.fieldManager },
        body: binding,
        signal: ctx.signal,
      });
    } catch (err) {
      // Bound meanwhile (another scheduler, a retry), being deleted, or gone: nothing to do.
      if (isConflict(err) || isNotFound(err)) {
        ctx.log.debug({ err }, "binding not needed");
        return;
      }
      throw err;
    }
    this.assumed.set(keyString(keyOf(pod)), node);
    ctx.log.info({ node }, "bound");
    this.recorder.event(pod, "Normal", "Scheduled", `Successfully assigned ${namespace}/${name} to ${node}`);
  }

  /** PodScheduled=False/Unschedulable with the message, written only when it changes. */
  private async markUnschedulable(pod: Pod, message: string, ctx: ReconcileContext): Promise<void> {
    const current = (pod.status?.conditions ?? []).find((c) => c.type === POD_SCHEDULED);
    if (current?.status === "False" && current.reason === "Unschedulable" && current.message === message) return;
    const now = metaTime(this.mgr.clock.now());
    const condition = {
      type: POD_SCHEDULED,
      status: "False",
      lastProbeTime: null,
      lastTransitionTime: current?.status === "False" ? (current.lastTransitionTime ?? now) : now,
      reason: "Unschedulable",
      message,
    };
    await unlessNotFound(this.mgr.client.patchStatus(Pods, keyOf(pod), { type: "strategic", body: { status: { conditions: [condition] } } }, { signal: ctx.signal }));
  }
}

export interface SchedulerController {
  controller: Controller;
  reconciler: SchedulerReconciler;
}

/** Adds the scheduling controller to the manager: pods to schedule, and node changes that matter. */
export function addScheduler(mgr: Manager, opts: SchedulerOptions = {}): SchedulerController {
  const reconciler = new SchedulerReconciler(mgr, opts);
  mgr.cache.indexField(Pods, NODE_NAME);
  const nodePredicate: Predicate<Node> = { update: nodeChangeMatters, delete: () => false };
  const controller = newControllerManagedBy(mgr)
    .named("scheduler")
    .for(Pods, [reconciler.podPredicate()])
    .watches(Nodes, () => reconciler.pendingPods(), [nodePredicate])
    .withOptions({ rateLimiter: new ItemExponentialFailureRateLimiter(BACKOFF_BASE_MS, BACKOFF_MAX_MS) })
    .complete(reconciler);
  return { controller, reconciler };
}
