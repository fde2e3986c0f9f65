// The manager runs a component's controllers: it serves /healthz, /readyz and /metrics, starts
// the shared cache and waits for it to sync, then (with leader election: once elected) starts the
// controllers. stop() shuts down in reverse: controllers drain, the lease is handed back, the
// cache stops, the server closes. Losing the lease is fatal (as in controller-runtime): the
// manager stops and done() rejects, so the process exits and restarts as a candidate.
import { type EventRecorder, newEventRecorder } from "../client/events.ts";
import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import { pino, type Logger } from "pino";
import { Registry, collectDefaultMetrics } from "prom-client";
import type { Client } from "../client/client.ts";
import type { ResourceType } from "../client/resource.ts";
import { type Clock, realClock } from "../utils/clock.ts";
import { type ByObject, Cache } from "./cache/cache.ts";
import type { InformerBackoff } from "./cache/informer.ts";
import type { Controller } from "./controller.ts";
import { LeaderElector } from "./leaderelection/leaderelection.ts";
import { RuntimeMetrics } from "./metrics.ts";
import { type Check, type ProbeServer, startProbeServer } from "./server.ts";

export interface LeaderElectionOptions {
  namespace: string;
  name: string;
  /** Default: hostname plus a random UUID. */
  identity?: string;
  leaseDurationMs?: number;
  renewDeadlineMs?: number;
  retryPeriodMs?: number;
  jitterFactor?: number;
  releaseOnCancel?: boolean;
}

export interface ManagerOptions {
  client: Client;
  /** Drives queues, requeue-after and leader election. */
  clock?: Clock;
  logger?: Logger;
  cache?: {
    byObject?: ({ type: ResourceType } & ByObject)[];
    /** Clock of the informers' reconnect backoff; default the manager's clock. */
    clock?: Clock;
    backoff?: InformerBackoff;
    pageSize?: number;
  };
  /** Where /healthz, /readyz and /metrics listen; port 0 picks a free port; false for none. Default 127.0.0.1:0. */
  server?: { host?: string; port: number } | false;
  leaderElection?: LeaderElectionOptions;
  registry?: Registry;
  /** Process metrics (CPU, memory, event loop) in /metrics; default true. */
  defaultMetrics?: boolean;
  /** How long stop() waits for running reconciles; default 30 s. */
  gracefulShutdownTimeoutMs?: number;
  /** How long start() waits for the caches to sync; default 2 min. */
  cacheSyncTimeoutMs?: number;
}

/** Anything else the manager should run: started after the caches sync, stopped via the signal. */
export interface Runnable {
  start(signal: AbortSignal): void | Promise<void>;
  /** Run only while this process is the leader (default false). */
  needLeaderElection?: boolean;
}

export class Manager {
  readonly client: Client;
  readonly cache: Cache;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly registry: Registry;
  readonly metrics: RuntimeMetrics;
  private readonly controllers: Controller[] = [];
  private readonly runnables: Runnable[] = [];
  private readonly recorders = new Map<string, EventRecorder>();
  private readonly healthz = new Map<string, Check>([["ping", () => undefined]]);
  private readonly readyz = new Map<string, Check>();
  private readonly abort = new AbortController();
  private leaderAbort: AbortController | undefined;
  private elector: LeaderElector | undefined;
  private electorRun: Promise<void> | undefined;
  private server: ProbeServer | undefined;
  private state: "new" | "starting" | "running" | "stopping" | "stopped" = "new";
  private leading = false;
  private leaderSignal: AbortSignal | undefined;
  private electedWaiters: (() => void)[] = [];
  private stopping: Promise<void> | undefined;
  private fatal: Error | undefined;
  private readonly doneP: Promise<void>;
  private resolveDone!: () => void;
  private rejectDone!: (err: Error) => void;

  constructor(private readonly opts: ManagerOptions) {
    this.client = opts.client;
    this.clock = opts.clock ?? realClock;
    this.logger = opts.logger ?? pino({ level: "silent" });
    this.registry = opts.registry ?? new Registry();
    if (opts.defaultMetrics ?? true) collectDefaultMetrics({ register: this.registry });
    this.metrics = new RuntimeMetrics(this.registry);
    this.cache = new Cache(opts.client, {
      clock: opts.cache?.clock ?? this.clock,
      logger: this.logger,
      metrics: this.metrics,
      backoff: opts.cache?.backoff,
      pageSize: opts.cache?.pageSize,
    });
    for (const { type, ...restrict } of opts.cache?.byObject ?? []) this.cache.configure(type, restrict);
    this.readyz.set("informers-synced", () => {
      if (!this.cache.hasSynced()) throw new Error("caches are not synced yet");
    });
    this.doneP = new Promise<void>((res, rej) => {
      this.resolveDone = res;
      this.rejectDone = rej;
    });
    this.doneP.catch(() => undefined); // callers that never await done() must not see an unhandled rejection
  }

  /** An event recorder writing core/v1 Events as `component` (controller-runtime's GetEventRecorderFor), one per component. */
  eventRecorderFor(component: string): EventRecorder {
    let r = this.recorders.get(component);
    if (!r) {
      r = newEventRecorder(this.client, { clock: this.clock, component, onError: (err) => this.logger.debug({ err, component }, "could not record an event") });
      this.recorders.set(component, r);
    }
    return r;
  }

  addController(c: Controller): void {
    if (this.controllers.some((x) => x.name === c.name)) throw new Error(`controller ${c.name} already exists in this manager`);
    this.controllers.push(c);
    if (this.state === "running" && this.leading) this.startController(c);
  }

  /** The controllers added so far (running or not). */
  getControllers(): readonly Controller[] {
    return this.controllers;
  }

  add(r: Runnable): void {
    this.runnables.push(r);
    if (this.state === "running" && (!r.needLeaderElection || this.leading)) this.startRunnable(r, r.needLeaderElection ? this.leaderSignal! : this.abort.signal);
  }

  addHealthzCheck(name: string, check: Check): void {
    this.healthz.set(name, check);
  }

  addReadyzCheck(name: string, check: Check): void {
    this.readyz.set(name, check);
  }

  /** The probe server's address, once started. */
  address(): { host: string; port: number } | undefined {
    return this.server ? { host: this.server.host, port: this.server.port } : undefined;
  }

  isLeader(): boolean {
    return this.leading;
  }

  /** Resolves when this manager leads (at once without leader election). */
  elected(): Promise<void> {
    if (this.leading) return Promise.resolve();
    return new Promise((resolve) => this.electedWaiters.push(resolve));
  }

  /** Resolves when the manager has stopped; rejects if it stopped because leadership was lost. */
  done(): Promise<void> {
    return this.doneP;
  }

  /** Starts everything; resolves once the caches are synced and the leader campaign has begun. */
  async start(): Promise<void> {
    if (this.state !== "new") throw new Error(`manager cannot start: it is ${this.state}`);
    this.state = "starting";
    try {
      if (this.opts.server !== false) {
        const s = this.opts.server ?? { port: 0 };
        this.server = await startProbeServer({ host: s.host ?? "127.0.0.1", port: s.port, registry: this.registry, healthz: this.healthz, readyz: this.readyz });
        this.logger.info({ address: this.address() }, "serving /healthz, /readyz and /metrics");
      }
      this.cache.start();
      await this.waitForCacheSync();
    } catch (err) {
      await this.stop();
      throw err;
    }
    if (this.abort.signal.aborted) return;
    this.state = "running";
    for (const r of this.runnables) if (!r.needLeaderElection) this.startRunnable(r, this.abort.signal);
    if (this.opts.leaderElection) this.campaign(this.opts.leaderElection);
    else this.becomeLeader(this.abort.signal);
  }

  private async waitForCacheSync(): Promise<void> {
    const timeoutMs = this.opts.cacheSyncTimeoutMs ?? 120_000;
    const t = AbortSignal.timeout(timeoutMs);
    await this.cache.waitForSync(AbortSignal.any([t, this.abort.signal]));
    if (!this.cache.hasSynced() && !this.abort.signal.aborted) throw new Error(`caches did not sync within ${timeoutMs} ms`);
  }

  private campaign(le: LeaderElectionOptions): void {
    this.leaderAbort = new AbortController();
    const gauge = this.metrics.leader;
    this.elector = new LeaderElector({
      client: this.client,
      namespace: le.namespace,
      name: le.name,
      identity: le.identity ?? `${hostname()}_${randomUUID()}`,
      leaseDurationMs: le.leaseDurationMs,
      renewDeadlineMs: le.renewDeadlineMs,
      retryPeriodMs: le.retryPeriodMs,
      jitterFactor: le.jitterFactor,
      releaseOnCancel: le.releaseOnCancel,
      clock: this.clock,
      logger: this.logger,
      onStartedLeading: (signal) => {
        gauge.set({ name: le.name }, 1);
        this.becomeLeader(signal);
      },
      onStoppedLeading: () => gauge.set({ name: le.name }, 0),
    });
    gauge.set({ name: le.name }, 0);
    const leaderSignal = this.leaderAbort.signal;
    this.electorRun = this.elector.run(leaderSignal).then(
      () => {
        if (!leaderSignal.aborted && this.state === "running") this.leadershipLost();
      },
      (err: unknown) => {
        this.logger.error({ err }, "leader election failed");
        if (this.state === "running") this.leadershipLost();
      },
    );
  }

  private becomeLeader(signal: AbortSignal): void {
    if (this.state !== "running") return;
    this.leading = true;
    this.leaderSignal = signal;
    signal.addEventListener(
      "abort",
      () => {
        // Leadership ended: no reconcile may run any more (a no-op during a normal shutdown).
        this.leading = false;
        for (const c of this.controllers) void c.stop();
      },
      { once: true },
    );
    for (const w of this.electedWaiters.splice(0)) w();
    for (const c of this.controllers) this.startController(c);
    for (const r of this.runnables) if (r.needLeaderElection) this.startRunnable(r, signal);
  }

  private leadershipLost(): void {
    this.fatal = new Error(`leader election lost: lease ${this.opts.leaderElection?.namespace}/${this.opts.leaderElection?.name}`);
    this.logger.error({ err: this.fatal }, "leadership lost; stopping the manager");
    void this.stop();
  }

  private startController(c: Controller): void {
    c.start().catch((err: unknown) => this.logger.error({ err, controller: c.name }, "controller failed to start"));
  }

  private startRunnable(r: Runnable, signal: AbortSignal): void {
    Promise.resolve()
      .then(() => r.start(signal))
      .catch((err: unknown) => this.logger.error({ err }, "runnable failed"));
  }

  /** Stops everything (idempotent): controllers drain, lease released, cache and server stop. */
  stop(): Promise<void> {
    this.stopping ??= this.shutdown();
    return this.stopping;
  }

  private async shutdown(): Promise<void> {
    this.state = "stopping";
    this.leading = false;
    const grace = this.opts.gracefulShutdownTimeoutMs ?? 30_000;
    const drained = Promise.all(this.controllers.map((c) => c.stop()));
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<boolean>((r) => (timer = setTimeout(() => r(true), grace)));
    if (await Promise.race([drained.then(() => false), timedOut])) this.logger.warn({ graceMs: grace }, "reconciles still running at the end of the grace period");
    clearTimeout(timer);
    this.leaderAbort?.abort(new Error("manager stopping"));
    await this.electorRun;
    this.abort.abort(new Error("manager stopping"));
    await this.cache.stop();
    await this.server?.close();
    this.state = "stopped";
    this.logger.info("manager stopped");
    if (this.fatal) this.rejectDone(this.fatal);
    else this.resolveDone();
  }
}
