// A per-key mutex: operations on one shoot's network (or one address pool) run one at a time in this
// process, so concurrent reconciles never race on `ip link add` or on an address allocation.
export class KeyedMutex {
  private readonly tails = new Map<string, Promise<void>>();
  /** Per key, the shared run (runShared) that has not started yet. */
  private readonly queued = new Map<string, Promise<unknown>>();

  async run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((r) => (release = r));
    const tail = previous.then(() => mine);
    this.tails.set(key, tail);
    await previous;
    try {
      return await fn();
    } finally {
      release();
      if (this.tails.get(key) === tail) this.tails.delete(key);
    }
  }

  /**
   * Like run, for an idempotent fn that acts on the state it reads when it starts: callers that queue while
   * the key is held share one run, which starts after every one of them arrived. N changes made while a
   * run is under way cost one more run, not N (a thousand bastions of one shoot would otherwise rewrite
   * every worker's sets a thousand times, one after another).
   */
  runShared<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const queued = this.queued.get(key);
    if (queued) return queued as Promise<T>;
    const next: Promise<T> = this.run(key, () => {
      // Started: a caller from now on may have changed what this run already read, so it queues anew.
      if (this.queued.get(key) === next) this.queued.delete(key);
      return fn();
    });
    this.queued.set(key, next);
    return next;
  }
}
