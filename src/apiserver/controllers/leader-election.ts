// Leader election among API server replicas for the controllers kube-controller-manager would run
// (namespaces, garbage collector, endpoints, node lifecycle, RBAC aggregation, certificates), on a
// coordination.k8s.io/v1 Lease in kube-system as kube-controller-manager does it, so replicas on
// one etcd do not run them twice (docs/high-availability.md). Expiry is judged on this process's
// clock from when it *observed* the lease record change, so clock skew between replicas does not
// matter. The holder renews every retryPeriod; if it cannot renew within renewDeadline it stops
// its controllers and campaigns again.
import { heldByOther, leaseSpecFor, releasedLeaseSpec } from "../../apimachinery/leaderelection/lease.ts";
import type { Lease, LeaseSpec } from "../../apis/coordination/v1/types.ts";
import type { KubeObject } from "../../apis/meta/v1/types.ts";
import type { Clock } from "../../utils/clock.ts";
import type { InternalClient } from "../registry/client.ts";

const LEASES = { group: "coordination.k8s.io", resource: "leases" };
export const CONTROLLERS_LEASE = { namespace: "kube-system", name: "gardener-apiserver-controllers" };

export interface ElectionTiming {
  leaseDurationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
}

export const DEFAULT_ELECTION_TIMING: ElectionTiming = { leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 };

export interface ElectionOptions extends ElectionTiming {
  client: InternalClient;
  clock: Clock;
  /** Unique per replica and stable across its restarts (a restarted replica renews its own lease at once). */
  identity: string;
  /** Starts the led controllers; resolves once they run. Its result stops them. */
  lead(): Promise<{ stop(): void }>;
  onEvent(what: "started leading" | "stopped leading" | "lease request failed", err?: unknown): void;
}

export class ControllerElection {
  private observed = "";
  private observedAt = 0;
  private stopped = false;
  private led: { stop(): void } | undefined;
  private lease: Lease | undefined;
  private readonly abort = new AbortController();

  constructor(private readonly o: ElectionOptions) {}

  isLeader(): boolean {
    return this.led !== undefined;
  }

  /** One attempt at once (so a lone or restarted replica starts its controllers before serving), then campaigns in the background. */
  async start(): Promise<void> {
    if (await this.tryAcquireOrRenew()) await this.becomeLeader();
    void this.run().catch(() => undefined); // ends by the abort of stop()
  }

  private async run(): Promise<void> {
    const sleep = (ms: number) => this.o.clock.sleep(ms, this.abort.signal);
    while (!this.stopped) {
      if (!this.led) {
        await sleep(this.o.retryPeriodMs * (1 + Math.random()));
        if (await this.tryAcquireOrRenew()) await this.becomeLeader();
        continue;
      }
      await sleep(this.o.retryPeriodMs);
      const deadline = this.o.clock.nowMs() + this.o.renewDeadlineMs;
      let renewed = await this.tryAcquireOrRenew();
      while (!renewed && this.o.clock.nowMs() < deadline) {
        await sleep(this.o.retryPeriodMs / 2);
        renewed = await this.tryAcquireOrRenew();
      }
      if (!renewed && !this.stopped) this.stepDown();
    }
  }

  private async becomeLeader(): Promise<void> {
    if (this.stopped) return;
    try {
      this.led = await this.o.lead();
    } catch (err) {
      // Not leading after all: the lease expires and this replica (or another) tries again.
      this.o.onEvent("lease request failed", err);
      return;
    }
    if (this.stopped) return this.led.stop();
    this.o.onEvent("started leading");
  }

  private stepDown(): void {
    const led = this.led;
    this.led = undefined;
    if (!led) return;
    led.stop();
    this.o.onEvent("stopped leading");
  }

  /** Stops the controllers and hands the lease back, so another replica takes over without waiting for expiry. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.abort.abort(new Error("stopped"));
    const wasLeader = this.isLeader();
    this.stepDown();
    const lease = this.lease;
    if (!wasLeader || !lease || lease.spec?.holderIdentity !== this.o.identity) return;
    const spec = releasedLeaseSpec(lease.spec, this.o.clock.nowMs());
    await this.o.client.update(LEASES, { ...lease, spec } as KubeObject).catch(() => undefined);
  }

  private observe(spec: LeaseSpec | undefined): void {
    const text = JSON.stringify(spec ?? {});
    if (text !== this.observed) {
      this.observed = text;
      this.observedAt = this.o.clock.nowMs();
    }
  }

  /** One attempt; true if this replica holds the lease afterwards. Errors (conflicts, etcd unavailable) count as "no". */
  private async tryAcquireOrRenew(): Promise<boolean> {
    const { namespace, name } = CONTROLLERS_LEASE;
    try {
      const current = (await this.o.client.get(LEASES, namespace, name)) as Lease | undefined;
      if (!current) {
        const spec = leaseSpecFor(undefined, this.o.identity, this.o.leaseDurationMs, this.o.clock.nowMs());
        const obj = { apiVersion: "coordination.k8s.io/v1", kind: "Lease", metadata: { namespace, name }, spec };
        this.lease = (await this.o.client.create(LEASES, obj)) as Lease;
        this.observe(spec);
        return true;
      }
      this.observe(current.spec);
      if (heldByOther(current.spec, this.o.identity, this.observedAt, this.o.clock.nowMs(), 0)) return false;
      const spec = leaseSpecFor(current.spec, this.o.identity, this.o.leaseDurationMs, this.o.clock.nowMs());
      this.lease = (await this.o.client.update(LEASES, { ...current, spec } as KubeObject)) as Lease;
      this.observe(spec);
      return true;
    } catch (err) {
      this.o.onEvent("lease request failed", err);
      return false;
    }
  }
}
