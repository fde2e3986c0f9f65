// An injectable clock. Everything that waits, times out or stamps a time takes a Clock, so tests
// control time with FakeClock instead of sleeping.

export interface Timer {
  cancel(): void;
}

export interface Clock {
  now(): Date;
  /** Milliseconds since the epoch. */
  nowMs(): number;
  /** Runs fn once after ms milliseconds (of this clock's time). */
  setTimer(ms: number, fn: () => void): Timer;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export class RealClock implements Clock {
  now(): Date {
    return new Date();
  }
  nowMs(): number {
    return Date.now();
  }
  /**
   * Any ms works: Node's setTimeout fires at once for more than 2^31-1 ms (about 24.8 days), so a
   * longer wait is chained from shorter ones; NaN counts as 0 and Infinity never fires.
   */
  setTimer(ms: number, fn: () => void): Timer {
    let t: NodeJS.Timeout | undefined;
    const wait = (left: number) => {
      if (left === Infinity) return;
      const step = Math.min(left, MAX_TIMEOUT_MS);
      t = setTimeout(() => (left > MAX_TIMEOUT_MS ? wait(left - MAX_TIMEOUT_MS) : fn()), step);
    };
    wait(ms > 0 ? ms : 0);
    return { cancel: () => clearTimeout(t) };
  }
  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return sleepWith(this, ms, signal);
  }
}

/** The longest delay setTimeout honours. */
export const MAX_TIMEOUT_MS = 2 ** 31 - 1;

export const realClock: Clock = new RealClock();

function sleepWith(clock: Clock, ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      timer.cancel();
      reject(signal?.reason);
    };
    const timer = clock.setTimer(ms, () => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    });
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

interface FakeTimer {
  at: number;
  seq: number;
  fn: () => void;
  cancelled: boolean;
}

/** A clock that only moves when told to. Timers fire in time order during step()/set(). */
export class FakeClock implements Clock {
  private ms: number;
  private seq = 0;
  private timers: FakeTimer[] = [];

  constructor(start: Date | number = Date.UTC(2026, 0, 1)) {
    this.ms = typeof start === "number" ? start : start.getTime();
  }
  now(): Date {
    return new Date(this.ms);
  }
  nowMs(): number {
    return this.ms;
  }
  setTimer(ms: number, fn: () => void): Timer {
    const t: FakeTimer = { at: this.ms + Math.max(0, ms), seq: this.seq++, fn, cancelled: false };
    this.timers.push(t);
    return {
      cancel: () => {
        t.cancelled = true;
      },
    };
  }
  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return sleepWith(this, ms, signal);
  }
  /** Number of timers still waiting. */
  pending(): number {
    return this.timers.filter((t) => !t.cancelled).length;
  }
  /** Moves time forward by ms, firing every timer that comes due, in order. */
  step(ms: number): void {
    this.set(this.ms + ms);
  }
  set(target: Date | number): void {
    const end = typeof target === "number" ? target : target.getTime();
    for (;;) {
      this.timers = this.timers.filter((t) => !t.cancelled);
      this.timers.sort((a, b) => a.at - b.at || a.seq - b.seq);
      const next = this.timers[0];
      if (!next || next.at > end) break;
      this.timers.shift();
      this.ms = Math.max(this.ms, next.at);
      next.fn();
    }
    this.ms = Math.max(this.ms, end);
  }
}
