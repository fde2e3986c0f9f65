// A controller: sources put keys into one work queue; up to maxConcurrentReconciles workers take
// keys and call the reconciler, then decide from the outcome what happens to the key next.
import { pino, type Logger } from "pino";
import { keyString, parseKey } from "../client/resource.ts";
import { type Clock, realClock } from "../utils/clock.ts";
import type { ControllerMetrics } from "./metrics.ts";
import { type ReconcileFunc, type Reconciler, type Request, type Result, asReconciler, isTerminal } from "./reconcile.ts";
import { type RateLimiter, defaultControllerRateLimiter } from "./workqueue/ratelimiter.ts";
import { WorkQueue } from "./workqueue/queue.ts";

/** Something that feeds keys into a controller's queue (usually an informer plus handler). */
export interface Source {
  start(enqueue: (req: Request) => void, signal: AbortSignal): void;
  /** Resolves when the source has delivered its initial state (its cache is synced). */
  waitForSync?(signal: AbortSignal): Promise<void>;
}

export interface ControllerOptions {
  name: string;
  maxConcurrentReconciles?: number;
  clock?: Clock;
  logger?: Logger;
  rateLimiter?: RateLimiter;
  metrics?: ControllerMetrics;
}

export class Controller {
  readonly name: string;
  readonly queue: WorkQueue;
  readonly maxConcurrentReconciles: number;
  private readonly reconciler: Reconciler;
  private readonly clock: Clock;
  private readonly log: Logger;
  private readonly metrics: ControllerMetrics | undefined;
  private readonly sources: Source[] = [];
  private readonly abort = new AbortController();
  private workers: Promise<void>[] = [];
  private started = false;

  constructor(opts: ControllerOptions, reconciler: Reconciler | ReconcileFunc) {
    this.name = opts.name;
    this.clock = opts.clock ?? realClock;
    this.maxConcurrentReconciles = Math.max(1, opts.maxConcurrentReconciles ?? 1);
    this.log = (opts.logger ?? pino({ level: "silent" })).child({ controller: opts.name });
    this.metrics = opts.metrics;
    this.reconciler = asReconciler(reconciler);
    this.queue = new WorkQueue(this.clock, opts.rateLimiter ?? defaultControllerRateLimiter(this.clock), opts.metrics?.queue);
  }

  /** Adds a source; sources added after start() start at once. */
  watch(source: Source): void {
    this.sources.push(source);
    if (this.started) source.start((r) => this.enqueue(r), this.abort.signal);
  }

  enqueue(req: Request): void {
    this.queue.add(keyString(req));
  }

  isRunning(): boolean {
    return this.started && !this.abort.signal.aborted;
  }

  /** Starts the sources, waits until they are synced, then starts the workers. */
  async start(): Promise<void> {
    if (this.started) throw new Error(`controller ${this.name} already started`);
    this.started = true;
    const signal = this.abort.signal;
    for (const s of this.sources) s.start((r) => this.enqueue(r), signal);
    await Promise.all(this.sources.map((s) => s.waitForSync?.(signal)));
    if (signal.aborted) return;
    this.log.info({ workers: this.maxConcurrentReconciles }, "starting workers");
    for (let i = 0; i < this.maxConcurrentReconciles; i++) this.workers.push(this.worker());
  }

  /** Stops handing out keys, aborts the reconcilers' signal and waits for running reconciles. */
  async stop(): Promise<void> {
    this.abort.abort(new Error(`controller ${this.name} stopped`));
    await this.queue.shutDownWithDrain();
    await Promise.all(this.workers);
  }

  private async worker(): Promise<void> {
    for (;;) {
      const key = await this.queue.get();
      if (key === undefined) return;
      this.metrics?.activeWorkers(1);
      try {
        await this.process(key);
      } finally {
        this.metrics?.activeWorkers(-1);
        this.queue.done(key);
      }
    }
  }

  private async process(key: string): Promise<void> {
    const req = parseKey(key);
    const log = this.log.child(req.namespace ? { namespace: req.namespace, name: req.name } : { name: req.name });
    const started = this.clock.nowMs();
    const seconds = (): number => (this.clock.nowMs() - started) / 1000;
    let result: Result | void;
    try {
      result = await this.reconciler.reconcile(req, { signal: this.abort.signal, log, controller: this.name });
    } catch (err) {
      if (isTerminal(err)) {
        this.queue.forget(key);
        this.metrics?.terminalError();
        this.metrics?.reconciled("error", seconds());
        log.error({ err }, "reconcile failed terminally; not retrying");
        return;
      }
      this.queue.addRateLimited(key);
      this.metrics?.reconciled("error", seconds());
      if (!this.abort.signal.aborted) log.error({ err, retries: this.queue.numRequeues(key) }, "reconcile failed; retrying with backoff");
      return;
    }
    const after = result?.requeueAfterMs ?? 0;
    if (after > 0) {
      // controller-runtime: a scheduled requeue is a success, so the failure backoff starts over.
      this.queue.forget(key);
      this.queue.addAfter(key, after);
      this.metrics?.reconciled("requeue_after", seconds());
    } else if (result?.requeue) {
      this.queue.addRateLimited(key);
      this.metrics?.reconciled("requeue", seconds());
    } else {
      this.queue.forget(key);
      this.metrics?.reconciled("success", seconds());
    }
  }
}
