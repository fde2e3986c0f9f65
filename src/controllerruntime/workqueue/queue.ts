// A work queue with client-go's guarantees: keys, not events, are queued; a key added again
// while it waits is queued once; a key being processed is never handed out a second time
// until done() (an add meanwhile marks it dirty and it is queued again at done()); delayed adds
// wait on the injected clock; failed keys come back after the rate limiter's delay.
import type { Clock, Timer } from "../../utils/clock.ts";
import type { RateLimiter } from "./ratelimiter.ts";

/** Hooks for metrics; every method is optional. Durations are in ms of the queue's clock. */
export interface QueueMetrics {
  add?(): void;
  depth?(n: number): void;
  retry?(): void;
  /** Time from being queued to being handed out. */
  queueLatency?(ms: number): void;
  /** Time from being handed out to done(). */
  workDuration?(ms: number): void;
}

interface Waiting {
  at: number;
  timer: Timer;
}

export class WorkQueue {
  private items: string[] = [];
  private head = 0;
  private readonly dirty = new Set<string>();
  private readonly processing = new Set<string>();
  private readonly queuedAt = new Map<string, number>();
  private readonly startedAt = new Map<string, number>();
  private readonly waiting = new Map<string, Waiting>();
  private readonly getters: ((key: string | undefined) => void)[] = [];
  private drained: (() => void)[] = [];
  private shuttingDown = false;

  constructor(
    private readonly clock: Clock,
    private readonly rateLimiter: RateLimiter,
    private readonly metrics: QueueMetrics = {},
  ) {}

  /** Queues the key now unless it is already queued. No effect after shutDown(). */
  add(key: string): void {
    if (this.shuttingDown || this.dirty.has(key)) return;
    this.metrics.add?.();
    this.dirty.add(key);
    this.queuedAt.set(key, this.clock.nowMs());
    if (this.processing.has(key)) return;
    this.push(key);
  }

  /** Queues the key after ms; if it already waits, the earlier time wins. */
  addAfter(key: string, ms: number): void {
    if (this.shuttingDown) return;
    if (!(ms > 0)) return this.add(key);
    const at = this.clock.nowMs() + ms;
    const w = this.waiting.get(key);
    if (w && w.at <= at) return;
    w?.timer.cancel();
    const timer = this.clock.setTimer(ms, () => {
      if (this.waiting.get(key)?.timer !== timer) return;
      this.waiting.delete(key);
      this.add(key);
    });
    this.waiting.set(key, { at, timer });
  }

  /** Queues the key after the rate limiter's delay (a failure or an explicit requeue). */
  addRateLimited(key: string): void {
    if (this.shuttingDown) return;
    this.metrics.retry?.();
    this.addAfter(key, this.rateLimiter.when(key));
  }

  /** Forgets the key's failures: its next failure backs off from the base delay again. */
  forget(key: string): void {
    this.rateLimiter.forget(key);
  }

  numRequeues(key: string): number {
    return this.rateLimiter.numRequeues(key);
  }

  /** The next key to process, or undefined once the queue is shut down. Call done(key) afterwards. */
  get(): Promise<string | undefined> {
    if (this.shuttingDown) return Promise.resolve(undefined);
    const key = this.pop();
    if (key !== undefined) return Promise.resolve(key);
    return new Promise((resolve) => this.getters.push(resolve));
  }

  /** Marks the key as processed; if it was added meanwhile, it is queued again. */
  done(key: string): void {
    if (!this.processing.delete(key)) return;
    const started = this.startedAt.get(key);
    this.startedAt.delete(key);
    if (started !== undefined) this.metrics.workDuration?.(this.clock.nowMs() - started);
    if (this.dirty.has(key) && !this.shuttingDown) this.push(key);
    if (this.processing.size === 0 && this.drained.length > 0) {
      const waiters = this.drained;
      this.drained = [];
      for (const w of waiters) w();
    }
  }

  /** Keys waiting to be handed out (not counting delayed or in-flight ones). */
  len(): number {
    return this.items.length - this.head;
  }

  /** Keys being processed right now. */
  inFlight(): number {
    return this.processing.size;
  }

  /** Keys waiting for a delay to pass. */
  delayed(): number {
    return this.waiting.size;
  }

  isShuttingDown(): boolean {
    return this.shuttingDown;
  }

  /** Stops handing out keys and drops queued and delayed ones; waiting get() calls return undefined. */
  shutDown(): void {
    if (this.shuttingDown) return;
    this.shuttingDown = true;
    for (const w of this.waiting.values()) w.timer.cancel();
    this.waiting.clear();
    this.items = [];
    this.head = 0;
    this.metrics.depth?.(0);
    for (const g of this.getters.splice(0)) g(undefined);
  }

  /** shutDown(), then resolves once every key handed out so far is done. */
  shutDownWithDrain(): Promise<void> {
    this.shutDown();
    if (this.processing.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.drained.push(resolve));
  }

  private push(key: string): void {
    const getter = this.getters.shift();
    if (getter) {
      this.take(key);
      getter(key);
      return;
    }
    this.items.push(key);
    this.metrics.depth?.(this.len());
  }

  private pop(): string | undefined {
    if (this.head >= this.items.length) return undefined;
    const key = this.items[this.head++]!;
    if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    this.metrics.depth?.(this.len());
    this.take(key);
    return key;
  }

  private take(key: string): void {
    this.dirty.delete(key);
    this.processing.add(key);
    const queued = this.queuedAt.get(key);
    this.queuedAt.delete(key);
    const now = this.clock.nowMs();
    if (queued !== undefined) this.metrics.queueLatency?.(now - queued);
    this.startedAt.set(key, now);
  }
}
