// A tiny work queue for the server's own controllers: keys, not events; a key queued while it is
// waiting is queued once; one key at a time; "check again later" is a result (milliseconds on the
// injected clock), failures retry after a delay.
import type { Clock, Timer } from "../../utils/clock.ts";

/** What a sync returns: undefined when done, or the milliseconds after which to check again. */
export type SyncResult = number | undefined | void;

export class KeyQueue {
  private readonly pending = new Set<string>();
  private readonly timers = new Map<string, Timer>();
  private running: Promise<void> | undefined;
  private stopped = false;

  constructor(
    private readonly clock: Clock,
    private readonly sync: (key: string) => Promise<SyncResult>,
    private readonly onError: (key: string, err: unknown) => void = () => undefined,
    private readonly retryMs = 1000,
  ) {}

  add(key: string): void {
    if (this.stopped) return;
    this.timers.get(key)?.cancel();
    this.timers.delete(key);
    this.pending.add(key);
    this.running ??= this.drain();
  }

  /** Queues key after ms of the clock (an earlier add wins). */
  addAfter(key: string, ms: number): void {
    if (this.stopped || this.timers.has(key)) return;
    this.timers.set(
      key,
      this.clock.setTimer(ms, () => {
        this.timers.delete(key);
        this.add(key);
      }),
    );
  }

  /** Resolves when nothing is queued or running (timers may still be waiting). */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  /** Keys waiting for a timer. */
  waiting(): string[] {
    return [...this.timers.keys()];
  }

  stop(): void {
    this.stopped = true;
    this.pending.clear();
    for (const t of this.timers.values()) t.cancel();
    this.timers.clear();
  }

  private async drain(): Promise<void> {
    try {
      while (!this.stopped && this.pending.size) {
        const key = this.pending.values().next().value as string;
        this.pending.delete(key);
        try {
          const again = await this.sync(key);
          if (typeof again === "number") this.addAfter(key, again);
        } catch (err) {
          this.onError(key, err);
          this.addAfter(key, this.retryMs);
        }
      }
    } finally {
      this.running = undefined;
    }
  }
}
