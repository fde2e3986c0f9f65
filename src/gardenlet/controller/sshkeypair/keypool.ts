// A small pool of node key pairs generated ahead (docs/maintenance-and-rotation.md#the-key-pool): a
// rotation takes a ready pair at once instead of waiting for RSA 4096 generation (0.2 s to several
// seconds on a busy host), also when rotations follow each other faster than one pair is generated.
// The pool refills one pair at a time in the background (a worker thread at lower CPU priority) the
// moment a pair is handed out, never holds more than its size, and hands every pair out once. It
// lives in memory only: a restart discards the pairs not handed out yet, which were never used
// anywhere. When it is empty, a caller does not wait for the background thread alone: an urgent
// generation at normal priority starts, and whichever pair comes first serves it. Nothing about a
// pair is logged, only counts and errors.
import type { Logger } from "pino";
import type { Clock } from "../../../utils/clock.ts";
import type { KeyGenerator, KeyPair } from "./keypair.ts";

export const KEY_POOL_SIZE = 8;
/** The first retry after a failed background generation; doubles up to RETRY_MAX_MS. */
export const RETRY_MIN_MS = 1000;
export const RETRY_MAX_MS = 60_000;
/** Urgent generations in flight at most (one per waiting caller up to this). */
export const MAX_URGENT = 2;

export interface KeyPoolOptions {
  /** Fills the pool (one call at a time), e.g. a worker thread. */
  background: KeyGenerator;
  /** Serves callers that find the pool empty. */
  urgent: KeyGenerator;
  clock: Clock;
  /** Pairs held at most; default KEY_POOL_SIZE. */
  size?: number;
  logger?: Logger;
  /** Called whenever the number of ready pairs changes (e.g. a gauge). */
  onLevel?: (available: number, size: number) => void;
}

interface Waiter {
  resolve: (pair: KeyPair) => void;
  reject: (err: Error) => void;
}

export class KeyPool {
  private readonly ready: KeyPair[] = [];
  private readonly waiters: Waiter[] = [];
  private readonly size: number;
  private filling = false;
  private urgent = 0;
  private retryMs = RETRY_MIN_MS;
  private retryTimer: { cancel(): void } | undefined;
  private stopped = false;
  private filledOnce = false;
  private readonly fullWaiters: (() => void)[] = [];

  constructor(private readonly o: KeyPoolOptions) {
    this.size = Math.max(1, o.size ?? KEY_POOL_SIZE);
    this.o.onLevel?.(0, this.size);
    this.fill();
  }

  /** Pairs ready now. */
  get available(): number {
    return this.ready.length;
  }

  /** Pairs held at most. */
  get capacity(): number {
    return this.size;
  }

  /** Whether the pool has been full at least once since it started. */
  get filled(): boolean {
    return this.filledOnce;
  }

  /** Resolves the first time the pool is full (at once if it has been); never when it is stopped first. */
  whenFilled(): Promise<void> {
    if (this.filledOnce) return Promise.resolve();
    return new Promise((resolve) => this.fullWaiters.push(resolve));
  }

  /** A pair nobody else gets: a ready one at once, else the first one generated. */
  take(): Promise<KeyPair> {
    if (this.stopped) return Promise.reject(new Error("the key pool is stopped"));
    const pair = this.ready.shift();
    if (pair) {
      this.o.onLevel?.(this.ready.length, this.size);
      this.fill();
      return Promise.resolve(pair);
    }
    const p = new Promise<KeyPair>((resolve, reject) => this.waiters.push({ resolve, reject }));
    this.startUrgent();
    this.fill();
    return p;
  }

  /** The pool as a KeyGenerator. */
  generator(): KeyGenerator {
    return () => this.take();
  }

  /** Drops the ready pairs and fails the waiting callers; generations in flight are discarded when they end. */
  stop(): void {
    this.stopped = true;
    this.retryTimer?.cancel();
    this.ready.length = 0;
    this.o.onLevel?.(0, this.size);
    for (const w of this.waiters.splice(0)) w.reject(new Error("the key pool is stopped"));
  }

  /** A new pair: to the longest-waiting caller, else into the pool while there is room. */
  private deliver(pair: KeyPair): void {
    if (this.stopped) return;
    const w = this.waiters.shift();
    if (w) w.resolve(pair);
    else if (this.ready.length < this.size) {
      this.ready.push(pair);
      this.o.onLevel?.(this.ready.length, this.size);
      if (this.ready.length === this.size && !this.filledOnce) {
        this.filledOnce = true;
        this.o.logger?.info({ size: this.size }, "SSH key pair pool full");
        for (const resolve of this.fullWaiters.splice(0)) resolve();
      }
    }
  }

  /** One background generation at a time, while the pool is not full (callers waiting: it is empty). */
  private fill(): void {
    if (this.stopped || this.filling || this.retryTimer || this.ready.length >= this.size) return;
    this.filling = true;
    this.o.background().then(
      (pair) => {
        this.filling = false;
        this.retryMs = RETRY_MIN_MS;
        this.deliver(pair);
        this.fill();
      },
      (err: unknown) => {
        this.filling = false;
        if (this.stopped) return;
        this.o.logger?.warn({ err: (err as Error).message, retryInMs: this.retryMs }, "SSH key pair pool: background generation failed");
        this.retryTimer = this.o.clock.setTimer(this.retryMs, () => {
          this.retryTimer = undefined;
          this.fill();
        });
        this.retryMs = Math.min(this.retryMs * 2, RETRY_MAX_MS);
      },
    );
  }

  /** Urgent generations for the callers waiting, up to MAX_URGENT at once. */
  private startUrgent(): void {
    while (!this.stopped && this.urgent < Math.min(this.waiters.length, MAX_URGENT)) {
      this.urgent++;
      this.o.urgent().then(
        (pair) => {
          this.urgent--;
          this.deliver(pair);
          this.startUrgent();
        },
        (err: unknown) => {
          this.urgent--;
          // The oldest caller gets the error (its pass fails and is retried); the others keep waiting.
          this.waiters.shift()?.reject(err as Error);
          this.startUrgent();
        },
      );
    }
  }
}
