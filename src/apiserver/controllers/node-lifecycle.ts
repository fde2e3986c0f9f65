// NodeLifecycleController (kube-controller-manager's nodelifecycle, without eviction; docs/scheduler.md):
// a node is healthy while its kubelet renews the Lease kube-node-lease/<node> (or posts a new Ready
// heartbeat). When neither happened for the grace period (40 s; 60 s for a node that never posted
// Ready), as this server's clock measures it from when the controller *saw* the last renewal, its
// conditions become Unknown. Its not-ready/unreachable (and pressure, unschedulable) taints follow
// its conditions, so they go again when the kubelet reports Ready.
import type { Lease } from "../../apis/coordination/v1/types.ts";
import type { Node } from "../../apis/core/v1/types.ts";
import type { KubeObject } from "../../apis/meta/v1/types.ts";
import { readyCondition, reconcileTaints, unknownConditions } from "./node-health.ts";
import { KeyController, type KeyControllerOptions } from "./keycontroller.ts";
import type { SyncResult } from "./queue.ts";
import { NODES } from "../registry/core/resources.ts";

const LEASES = { group: "coordination.k8s.io", resource: "leases" };
export const NODE_LEASE_NAMESPACE = "kube-node-lease";
export const DEFAULT_NODE_MONITOR_GRACE_PERIOD_MS = 40_000;
export const NODE_STARTUP_GRACE_PERIOD_MS = 60_000;

interface Health {
  /** When (this clock) the controller last saw the kubelet report: lease renewal or Ready heartbeat. */
  probeMs: number;
  renewTime?: string;
  heartbeat?: string;
}

export interface NodeLifecycleOptions extends KeyControllerOptions {
  gracePeriodMs?: number;
}

export class NodeLifecycleController extends KeyController<NodeLifecycleOptions> {
  private readonly health = new Map<string, Health>();
  private readonly gracePeriodMs: number;

  constructor(opts: NodeLifecycleOptions) {
    super(opts);
    this.gracePeriodMs = opts.gracePeriodMs ?? DEFAULT_NODE_MONITOR_GRACE_PERIOD_MS;
    const onLease = (o: KubeObject) => {
      if (o.metadata.namespace === NODE_LEASE_NAMESPACE && o.metadata.name) this.queue.add(o.metadata.name);
    };
    this.watch(NODES, (e) => this.queue.add(e.object.metadata.name ?? ""));
    this.watch(LEASES, (e) => onLease(e.object));
  }

  async sync(name: string): Promise<SyncResult> {
    if (!name) return;
    const client = this.opts.client;
    let node = (await client.get(NODES, undefined, name)) as Node | undefined;
    if (!node) {
      this.health.delete(name);
      return;
    }
    const lease = (await client.get(LEASES, NODE_LEASE_NAMESPACE, name)) as Lease | undefined;
    const now = this.opts.clock.nowMs();
    const h = this.observe(name, node, lease, now);
    const ready = readyCondition(node);
    const grace = ready ? this.gracePeriodMs : NODE_STARTUP_GRACE_PERIOD_MS;
    const left = h.probeMs + grace - now;
    if (left <= 0) {
      const conditions = unknownConditions(node, now);
      if (conditions) node = (await client.update(NODES, { ...node, status: { ...node.status, conditions } }, "status")) as Node;
    }
    const taints = reconcileTaints(node, now);
    if (taints) await client.update(NODES, { ...node, spec: { ...node.spec, taints } });
    return left > 0 ? left : undefined;
  }

  /** The node's health record, its probe time moved to now when the kubelet reported since. */
  private observe(name: string, node: Node, lease: Lease | undefined, now: number): Health {
    const renewTime = lease?.spec?.renewTime ?? undefined;
    const ready = readyCondition(node);
    const heartbeat = ready?.lastHeartbeatTime;
    const h = this.health.get(name);
    if (!h) {
      const fresh: Health = { probeMs: now, renewTime, heartbeat };
      this.health.set(name, fresh);
      return fresh;
    }
    if (renewTime && renewTime !== h.renewTime && (!h.renewTime || Date.parse(renewTime) >= Date.parse(h.renewTime))) {
      h.renewTime = renewTime;
      h.probeMs = now;
    }
    if (heartbeat && heartbeat !== h.heartbeat) {
      h.heartbeat = heartbeat;
      h.probeMs = now;
    }
    return h;
  }
}
