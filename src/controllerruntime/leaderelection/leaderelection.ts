// Leader election on a coordination.k8s.io/v1 Lease, as client-go's leaderelection does it.
// Expiry is judged on this process's own clock: a lease counts as held until leaseDuration has
// passed since *we observed* its record change, so clock skew between candidates does not matter.
// The holder renews every retryPeriod; if it cannot renew within renewDeadline it steps down.
import { pino, type Logger } from "pino";
import { heldByOther, leaseSpecFor, releasedLeaseSpec } from "../../apimachinery/leaderelection/lease.ts";
import { isAlreadyExists, isConflict, unlessNotFound } from "../../apimachinery/errors.ts";
import { type Lease, type LeaseSpec, Leases } from "../../client/builtins.ts";
import type { Client } from "../../client/client.ts";
import { type Clock, realClock } from "../../utils/clock.ts";

export interface LeaderElectionConfig {
  client: Client;
  namespace: string;
  name: string;
  /** Unique per candidate process. */
  identity: string;
  /** How long a lease is honoured after its last observed renewal; default 15 s. */
  leaseDurationMs?: number;
  /** The holder gives up if it could not renew for this long; default 10 s. */
  renewDeadlineMs?: number;
  /** Pause between attempts; default 2 s. */
  retryPeriodMs?: number;
  /** Acquire attempts wait retryPeriod * (1 + random * jitterFactor); default 1.2 as client-go. */
  jitterFactor?: number;
  /** On a voluntary stop, hand the lease back at once so a standby takes over without waiting; default true. */
  releaseOnCancel?: boolean;
  clock?: Clock;
  logger?: Logger;
  /** Called when this candidate becomes leader; `signal` aborts when leadership ends. */
  onStartedLeading(signal: AbortSignal): void;
  onStoppedLeading?(): void;
  onNewLeader?(identity: string): void;
}

function sameSpec(a: LeaseSpec | undefined, b: LeaseSpec | undefined): boolean {
  return (
    a?.holderIdentity === b?.holderIdentity &&
    a?.renewTime === b?.renewTime &&
    a?.acquireTime === b?.acquireTime &&
    a?.leaseTransitions === b?.leaseTransitions &&
    a?.leaseDurationSeconds === b?.leaseDurationSeconds
  );
}

export class LeaderElector {
  readonly leaseDurationMs: number;
  readonly renewDeadlineMs: number;
  readonly retryPeriodMs: number;
  private readonly clock: Clock;
  private readonly log: Logger;
  private observed: LeaseSpec | undefined;
  private observedAt = 0;
  private lease: Lease | undefined;
  private leading = false;
  private reportedLeader = "";

  constructor(private readonly cfg: LeaderElectionConfig) {
    this.leaseDurationMs = cfg.leaseDurationMs ?? 15_000;
    this.renewDeadlineMs = cfg.renewDeadlineMs ?? 10_000;
    this.retryPeriodMs = cfg.retryPeriodMs ?? 2_000;
    const jitter = cfg.jitterFactor ?? 1.2;
    if (this.leaseDurationMs <= this.renewDeadlineMs) throw new Error("leaseDuration must be greater than renewDeadline");
    if (this.renewDeadlineMs <= jitter * this.retryPeriodMs) throw new Error("renewDeadline must be greater than retryPeriod*jitterFactor");
    if (!cfg.identity) throw new Error("leader election needs an identity");
    this.clock = cfg.clock ?? realClock;
    this.log = (cfg.logger ?? pino({ level: "silent" })).child({ lease: `${cfg.namespace}/${cfg.name}`, identity: cfg.identity });
  }

  isLeader(): boolean {
    return this.leading;
  }

  /** The holder this candidate last observed ("" if none). */
  getLeader(): string {
    return this.observed?.holderIdentity ?? "";
  }

  /** Campaigns until leader, leads until the lease is lost or signal aborts; then returns. */
  async run(signal: AbortSignal): Promise<void> {
    if (!(await this.acquire(signal))) return;
    const leadership = new AbortController();
    this.leading = true;
    this.log.info("became leader");
    try {
      this.cfg.onStartedLeading(leadership.signal);
      await this.renewLoop(signal);
    } finally {
      this.leading = false;
      leadership.abort(new Error("leadership ended"));
      if (signal.aborted && (this.cfg.releaseOnCancel ?? true)) await this.release();
      this.log.info(signal.aborted ? "stopped leading (shutting down)" : "lost leadership");
      this.cfg.onStoppedLeading?.();
    }
  }

  private async acquire(signal: AbortSignal): Promise<boolean> {
    const jitter = this.cfg.jitterFactor ?? 1.2;
    while (!signal.aborted) {
      if (await this.tryAcquireOrRenew()) return true;
      if (!(await this.sleep(this.retryPeriodMs * (1 + Math.random() * jitter), signal))) return false;
    }
    return false;
  }

  private async renewLoop(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      if (!(await this.sleep(this.retryPeriodMs, signal))) return;
      const deadline = this.clock.nowMs() + this.renewDeadlineMs;
      for (;;) {
        if (await this.tryAcquireOrRenew()) break;
        if (signal.aborted) return;
        if (this.clock.nowMs() >= deadline) {
          this.log.error({ renewDeadlineMs: this.renewDeadlineMs }, "failed to renew the lease within the renew deadline");
          return;
        }
        if (!(await this.sleep(this.retryPeriodMs, signal))) return;
      }
    }
  }

  /** Sleeps on the clock; false if the signal aborted. */
  private async sleep(ms: number, signal: AbortSignal): Promise<boolean> {
    try {
      await this.clock.sleep(ms, signal);
      return true;
    } catch {
      return false;
    }
  }

  /** One attempt; true if this candidate holds the lease afterwards. API errors count as "no". */
  private async tryAcquireOrRenew(): Promise<boolean> {
    const key = { namespace: this.cfg.namespace, name: this.cfg.name };
    const opts = { timeoutMs: this.renewDeadlineMs };
    const now = this.clock.nowMs();
    try {
      const lease = await unlessNotFound(this.cfg.client.get(Leases, key, opts));
      if (!lease) {
        const spec = leaseSpecFor(undefined, this.cfg.identity, this.leaseDurationMs, now);
        this.lease = await this.cfg.client.create(Leases, { metadata: { ...key }, spec }, opts);
        this.observe(spec, now);
        return true;
      }
      this.observe(lease.spec, this.clock.nowMs());
      if (heldByOther(lease.spec, this.cfg.identity, this.observedAt, this.clock.nowMs(), this.leaseDurationMs)) return false;
      const spec = leaseSpecFor(lease.spec, this.cfg.identity, this.leaseDurationMs, this.clock.nowMs());
      this.lease = await this.cfg.client.update(Leases, { ...lease, spec }, opts);
      this.observe(spec, this.clock.nowMs());
      return true;
    } catch (err) {
      if (isConflict(err) || isAlreadyExists(err)) this.log.debug({ err }, "lost a race for the lease");
      else this.log.warn({ err }, "lease request failed");
      return false;
    }
  }

  private observe(spec: LeaseSpec | undefined, now: number): void {
    if (!sameSpec(spec, this.observed)) {
      this.observed = spec ? { ...spec } : undefined;
      this.observedAt = now;
    }
    const holder = spec?.holderIdentity ?? "";
    if (holder && holder !== this.reportedLeader) {
      this.reportedLeader = holder;
      this.log.info({ leader: holder }, "new leader observed");
      this.cfg.onNewLeader?.(holder);
    }
  }

  /** Hands the lease back (holder "") if we still hold it, so others need not wait for expiry. */
  private async release(): Promise<void> {
    const lease = this.lease;
    if (!lease || lease.spec?.holderIdentity !== this.cfg.identity) return;
    const spec = releasedLeaseSpec(lease.spec, this.clock.nowMs());
    try {
      await this.cfg.client.update(Leases, { ...lease, spec }, { timeoutMs: this.renewDeadlineMs });
      this.log.info("released the lease");
    } catch (err) {
      this.log.warn({ err }, "could not release the lease");
    }
  }
}
