// Rate limiters decide how long a key waits before it is handed out again after a failure
// (client-go's workqueue rate limiters). Delays are in milliseconds of the given clock.
import type { Clock } from "../../utils/clock.ts";

export interface RateLimiter {
  /** The delay before `key` may be processed again; counts one more requeue of `key`. */
  when(key: string): number;
  /** Clears the key's failure history (after a success or a requeue-after). */
  forget(key: string): void;
  /** How many times `key` was requeued since it was last forgotten. */
  numRequeues(key: string): number;
}

/** Per-key exponential backoff: base, 2*base, 4*base, ... capped at max (client-go: 5 ms to 1000 s). */
export class ItemExponentialFailureRateLimiter implements RateLimiter {
  private readonly failures = new Map<string, number>();

  constructor(
    readonly baseMs = 5,
    readonly maxMs = 1_000_000,
  ) {}

  when(key: string): number {
    const n = this.failures.get(key) ?? 0;
    this.failures.set(key, n + 1);
    // 2^n overflows to Infinity for large n; the cap keeps the answer finite.
    return Math.min(this.maxMs, this.baseMs * Math.pow(2, n));
  }
  forget(key: string): void {
    this.failures.delete(key);
  }
  numRequeues(key: string): number {
    return this.failures.get(key) ?? 0;
  }
}

/**
 * A token bucket shared by all keys (client-go: 10 qps, burst 100): every requeue takes a token;
 * tokens are reserved ahead, so when the bucket is empty each further requeue waits 1/qps longer.
 */
export class BucketRateLimiter implements RateLimiter {
  private tokens: number;
  private last: number;

  constructor(
    private readonly clock: Clock,
    readonly qps = 10,
    readonly burst = 100,
  ) {
    this.tokens = burst;
    this.last = clock.nowMs();
  }

  when(): number {
    const now = this.clock.nowMs();
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.last) / 1000) * this.qps);
    this.last = now;
    this.tokens -= 1;
    return this.tokens >= 0 ? 0 : (-this.tokens / this.qps) * 1000;
  }
  forget(): void {}
  numRequeues(): number {
    return 0;
  }
}

/** The longest delay of several limiters (client-go's MaxOfRateLimiter). */
export class MaxOfRateLimiter implements RateLimiter {
  private readonly limiters: RateLimiter[];

  constructor(...limiters: RateLimiter[]) {
    this.limiters = limiters;
  }
  when(key: string): number {
    let max = 0;
    for (const l of this.limiters) max = Math.max(max, l.when(key));
    return max;
  }
  forget(key: string): void {
    for (const l of this.limiters) l.forget(key);
  }
  numRequeues(key: string): number {
    let max = 0;
    for (const l of this.limiters) max = Math.max(max, l.numRequeues(key));
    return max;
  }
}

export interface DefaultRateLimiterOptions {
  baseDelayMs?: number;
  maxDelayMs?: number;
  qps?: number;
  burst?: number;
}

/** controller-runtime's default: max of per-key backoff (5 ms .. 1000 s) and a 10 qps / 100 burst bucket. */
export function defaultControllerRateLimiter(clock: Clock, opts: DefaultRateLimiterOptions = {}): RateLimiter {
  return new MaxOfRateLimiter(
    new ItemExponentialFailureRateLimiter(opts.baseDelayMs ?? 5, opts.maxDelayMs ?? 1_000_000),
    new BucketRateLimiter(clock, opts.qps ?? 10, opts.burst ?? 100),
  );
}
