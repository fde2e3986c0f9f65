// The node's heartbeats as the kubelet sends them: the Lease <node> in kube-node-lease renewed every
// 10 s (owned by the Node, 40 s duration), and the Node's status checked every 10 s and written when it
// changed or when the last report is older than the report frequency (5 min). spec.podCIDR is set once.
import type { Node } from "../../apis/core/v1/types.ts";
import { unlessNotFound } from "../../apimachinery/errors.ts";
import { Leases, type Lease } from "../../client/builtins.ts";
import type { Client } from "../../client/client.ts";
import type { Clock } from "../../utils/clock.ts";
import { Nodes } from "../node.ts";
import { type NodeFacts, type NodeHealth, nodeStatus, nodeStatusChanged } from "./node-status.ts";
import { metaTime, microTime } from "../../utils/time.ts";

export const NODE_LEASE_NAMESPACE = "kube-node-lease";
export const LEASE_RENEW_MS = 10_000;
export const LEASE_DURATION_SECONDS = 40;
export const NODE_STATUS_UPDATE_MS = 10_000;
export const NODE_STATUS_REPORT_MS = 5 * 60_000;

export interface HeartbeatOptions {
  client: Client;
  clock: Clock;
  nodeName: string;
  podCIDR?: string;
  facts: () => NodeFacts;
  health?: () => NodeHealth;
  onError?: (what: string, err: unknown) => void;
}

export class Heartbeat {
  private lastReportMs = -Infinity;

  constructor(private readonly o: HeartbeatOptions) {}

  /** Sets spec.podCIDR(s) when the Node has none. */
  async ensurePodCIDR(): Promise<void> {
    if (!this.o.podCIDR) return;
    const node = await this.o.client.get(Nodes, { name: this.o.nodeName });
    if (node.spec?.podCIDR) return;
    await this.o.client.patch(Nodes, { name: this.o.nodeName }, { type: "merge", body: { spec: { podCIDR: this.o.podCIDR, podCIDRs: [this.o.podCIDR] } } });
  }

  /** Writes the Node's status when it changed or is due; returns whether it wrote. */
  async updateNodeStatus(force = false): Promise<boolean> {
    const node = await this.o.client.get(Nodes, { name: this.o.nodeName });
    const now = this.o.clock.now();
    const next = nodeStatus(this.o.facts(), this.o.health?.() ?? { ready: true }, node, metaTime(now));
    if (!force && !nodeStatusChanged(node.status, next) && now.getTime() - this.lastReportMs < NODE_STATUS_REPORT_MS) return false;
    await this.o.client.patchStatus(Nodes, { name: this.o.nodeName }, { type: "merge", body: { status: next } });
    this.lastReportMs = now.getTime();
    return true;
  }

  /** Creates or renews the node's Lease. */
  async renewLease(): Promise<Lease> {
    const key = { namespace: NODE_LEASE_NAMESPACE, name: this.o.nodeName };
    const renewTime = microTime(this.o.clock.now());
    const lease = await unlessNotFound(this.o.client.get(Leases, key));
    // A lease deleted between the read and the update is created again, as a missing one is.
    const renewed = lease && (await unlessNotFound(this.o.client.update(Leases, { ...lease, spec: { ...lease.spec, holderIdentity: this.o.nodeName, leaseDurationSeconds: LEASE_DURATION_SECONDS, renewTime } })));
    if (renewed) return renewed;
    const node: Node = await this.o.client.get(Nodes, { name: this.o.nodeName });
    return this.o.client.create(Leases, {
      metadata: { ...key, ownerReferences: [{ apiVersion: "v1", kind: "Node", name: this.o.nodeName, uid: node.metadata.uid! }] },
      spec: { holderIdentity: this.o.nodeName, leaseDurationSeconds: LEASE_DURATION_SECONDS, renewTime },
    });
  }

  /** Runs both loops until the signal aborts. */
  start(signal: AbortSignal): void {
    const loop = (every: number, what: string, fn: () => Promise<unknown>) => {
      const tick = (): void => {
        if (signal.aborted) return;
        void fn()
          .catch((err: unknown) => this.o.onError?.(what, err))
          .finally(() => {
            if (!signal.aborted) timer = this.o.clock.setTimer(every, tick);
          });
      };
      let timer = { cancel: () => undefined } as { cancel(): void };
      signal.addEventListener("abort", () => timer.cancel(), { once: true });
      tick();
    };
    loop(LEASE_RENEW_MS, "renew lease", () => this.renewLease());
    loop(NODE_STATUS_UPDATE_MS, "update node status", () => this.updateNodeStatus());
  }
}
