// Waiting for a condition, one way everywhere. `pollUntil` asks until an answer appears or a
// deadline passes (on an injectable clock); `stepUntil` and `advance` drive a FakeClock and, after
// every step, wait until the code under test has settled (an observable state such as "every
// candidate is sleeping on the clock" or "the queue is idle"), never for a fixed real time.
import { type Clock, type FakeClock, realClock } from "./clock.ts";

export interface PollOptions {
  /** Give up after this long (of the clock's time); default 15 s. */
  timeoutMs?: number;
  /** Pause between attempts; default 50 ms. */
  intervalMs?: number;
  clock?: Clock;
  signal?: AbortSignal;
}

/**
 * Calls fn until it returns something other than undefined and returns that. A thrown error
 * counts as "not yet"; the last one is named in the timeout error
 * (`timed out after 15000 ms waiting for <what>: <error>`).
 */
export async function pollUntil<T>(what: string, fn: () => T | undefined | Promise<T | undefined>, o: PollOptions = {}): Promise<T> {
  const clock = o.clock ?? realClock;
  const timeoutMs = o.timeoutMs ?? 15_000;
  const deadline = clock.nowMs() + timeoutMs;
  let last: unknown;
  for (;;) {
    o.signal?.throwIfAborted();
    try {
      const v = await fn();
      if (v !== undefined) return v;
    } catch (err) {
      last = err;
    }
    if (clock.nowMs() > deadline) {
      const why = last === undefined ? "" : `: ${last instanceof Error ? last.message : String(last)}`;
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${why}`);
    }
    await clock.sleep(o.intervalMs ?? 50, o.signal);
  }
}

/** pollUntil for a yes/no condition. */
export async function pollFor(what: string, cond: () => boolean | Promise<boolean>, o: PollOptions = {}): Promise<void> {
  await pollUntil(what, async () => ((await cond()) ? true : undefined), o);
}

export interface StepOptions {
  /** Fake time per step. */
  stepMs: number;
  /**
   * Holds once the code under test has done everything the last step set off (e.g. every
   * candidate waits on the clock again, or a queue is idle). Waited for in real time after each
   * step (at most `settleTimeoutMs`, default 10 s), so a slow machine only makes the test slower.
   */
  settled: () => boolean;
  settleTimeoutMs?: number;
}

async function settle(what: string, o: StepOptions): Promise<void> {
  if (o.settled()) return;
  await pollFor(`${what} (settling after a step of the fake clock)`, o.settled, { timeoutMs: o.settleTimeoutMs ?? 10_000, intervalMs: 1 });
}

/**
 * Moves the fake clock stepMs at a time, settling after each step, until cond() holds. Returns
 * the fake time that passed; throws once maxMs of fake time passed without cond().
 */
export async function stepUntil(clock: FakeClock, what: string, cond: () => boolean | Promise<boolean>, o: StepOptions & { maxMs: number }): Promise<number> {
  const start = clock.nowMs();
  await settle(what, o);
  while (!(await cond())) {
    if (clock.nowMs() - start >= o.maxMs) throw new Error(`${what}: not reached within ${o.maxMs} ms of fake time`);
    clock.step(o.stepMs);
    await settle(what, o);
  }
  return clock.nowMs() - start;
}

/** Lets ms of fake time pass stepMs at a time, settling after each step. */
export async function advance(clock: FakeClock, ms: number, o: StepOptions): Promise<void> {
  for (let passed = 0; passed < ms; passed += o.stepMs) {
    clock.step(o.stepMs);
    await settle(`${ms} ms of fake time`, o);
  }
}
