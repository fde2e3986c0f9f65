// How the landscape's VPN processes follow the gardenlet's Secrets (docs/reversed-vpn.md#the-local-landscape):
// a bounded first wait that says what is still missing, then a poll every 2 s that hands a changed value (a
// renewal, a CA rotation), once two polls in a row read it, to whoever restarts or reloads the processes reading it.
import { type Clock, type Timer, realClock } from "../utils/clock.ts";
import { pollUntil } from "../utils/poll.ts";
import type { Read } from "./vpnsecrets.ts";

export const FOLLOW_INTERVAL_MS = 2000;
export const FIRST_WAIT_MS = 120_000;
const PROGRESS_MS = 10_000;

export interface WaitOptions {
  log: (line: string) => void;
  timeoutMs?: number;
  clock?: Clock;
  intervalMs?: number;
}

/**
 * Polls `read` until it has everything; logs what is missing every 10 s and throws after timeoutMs with the
 * missing objects (or the last error) in the message. Errors (an API server restarting) count as "not yet".
 */
export async function waitForSecrets<T>(what: string, read: () => Promise<Read<T>>, o: WaitOptions): Promise<T> {
  const clock = o.clock ?? realClock;
  const start = clock.nowMs();
  const timeoutMs = o.timeoutMs ?? FIRST_WAIT_MS;
  let lastReport = start;
  let why = "nothing read yet";
  const attempt = async (): Promise<T | undefined> => {
    try {
      const r = await read();
      if ("value" in r) return r.value;
      why = `missing ${r.missing.join(", ")}`;
    } catch (err) {
      why = (err as Error).message;
    }
    const now = clock.nowMs();
    if (now - lastReport >= PROGRESS_MS && now - start < timeoutMs) {
      lastReport = now;
      o.log(`waiting for ${what} (${Math.round((now - start) / 1000)} s): ${why}`);
    }
    return undefined;
  };
  try {
    return await pollUntil(what, attempt, { clock, timeoutMs, intervalMs: o.intervalMs ?? 250 });
  } catch {
    throw new Error(`${what}: not there within ${Math.round(timeoutMs / 1000)} s (${why})`);
  }
}

export interface FollowerOptions<T> {
  what: string;
  read: () => Promise<Read<T>>;
  /** Called with each changed value, one at a time; a failure is logged and tried again at the next poll. */
  apply: (value: T) => Promise<void>;
  log: (line: string) => void;
  clock?: Clock;
  intervalMs?: number;
}

/**
 * Polls the Secrets; a value other than the one applied last is applied once two polls in a row read it: the
 * gardenlet writes a pass's Secrets one after another, and a poll between two writes must not restart the
 * processes with half a renewal (and again with the rest). Incomplete reads and errors change nothing.
 */
export class SecretFollower<T> {
  private applied: string | undefined;
  private seen: string | undefined;
  private timer: Timer | undefined;
  private stopped = false;
  private busy: Promise<void> = Promise.resolve();

  constructor(private readonly o: FollowerOptions<T>) {}

  private get clock(): Clock {
    return this.o.clock ?? realClock;
  }

  /** Starts following; `current` is what the processes run with now. */
  start(current: T): void {
    this.applied = JSON.stringify(current);
    this.stopped = false;
    this.schedule();
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = this.clock.setTimer(this.o.intervalMs ?? FOLLOW_INTERVAL_MS, () => {
      this.busy = this.poll().finally(() => this.schedule());
    });
  }

  /** One poll: read, compare, apply. */
  async poll(): Promise<void> {
    let r: Read<T>;
    try {
      r = await this.o.read();
    } catch {
      return;
    }
    if (!("value" in r) || this.stopped) return;
    const text = JSON.stringify(r.value);
    if (text === this.applied) return;
    const settled = text === this.seen;
    this.seen = text;
    if (!settled) return;
    this.o.log(`${this.o.what} changed: applying`);
    try {
      await this.o.apply(r.value);
      this.applied = text;
    } catch (err) {
      this.o.log(`${this.o.what}: could not apply (${(err as Error).message}); trying again`);
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.timer?.cancel();
    await this.busy;
  }
}
