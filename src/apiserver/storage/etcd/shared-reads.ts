// Concurrent identical reads share one round trip without reading stale data: a call joins the
// next read of its key that starts after the call, never one already running (whose answer may
// predate the call). So at most one read per key runs and one waits, however many callers there are.

export class SharedReads<T> {
  private readonly queued = new Map<string, Promise<T>>();
  private readonly running = new Map<string, Promise<void>>();

  read(key: string, fn: () => Promise<T>): Promise<T> {
    const waiting = this.queued.get(key);
    if (waiting) return waiting;
    const next = (this.running.get(key) ?? Promise.resolve()).then(() => {
      this.queued.delete(key);
      const read = fn();
      const done = read.then(
        () => undefined,
        () => undefined,
      );
      this.running.set(key, done);
      void done.then(() => {
        if (this.running.get(key) === done) this.running.delete(key);
      });
      return read;
    });
    this.queued.set(key, next);
    return next;
  }
}
