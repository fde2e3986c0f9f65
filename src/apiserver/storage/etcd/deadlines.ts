// Deadlines of the etcd client's calls: each call expires `timeoutMs` after it started, checked by
// one timer for all calls in flight (a timer per call cost more than the rest of opening the call's
// stream). A call expires between timeoutMs and timeoutMs plus one check interval after its start.

export class Deadlines<K> {
  private readonly calls = new Map<K, { due: number; expire: () => void }>();
  private timer: NodeJS.Timeout | undefined;
  private readonly intervalMs: number;

  constructor(
    private readonly timeoutMs: number,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.intervalMs = Math.max(5, Math.min(250, Math.floor(timeoutMs / 4)));
  }

  get size(): number {
    return this.calls.size;
  }

  /** Calls expire() once, when the call's deadline passed and it was not deleted before. */
  add(call: K, expire: () => void): void {
    this.calls.set(call, { due: this.now() + this.timeoutMs, expire });
    // The calls themselves keep the process alive (their streams); the check does not.
    this.timer ??= setInterval(() => this.check(), this.intervalMs).unref();
  }

  delete(call: K): void {
    this.calls.delete(call);
    if (this.calls.size === 0) this.stop();
  }

  clear(): void {
    this.calls.clear();
    this.stop();
  }

  /** Expires every call whose deadline passed (in the order they started). */
  check(): void {
    const t = this.now();
    for (const [call, c] of this.calls) {
      if (c.due > t) break; // started in order, so due in order: the rest are later
      this.calls.delete(call);
      c.expire();
    }
    if (this.calls.size === 0) this.stop();
  }

  private stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }
}
