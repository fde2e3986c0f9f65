// Test double: a Storage decorator that counts reads and can hold back or break its watches, to
// play a slow or failing inner storage (like etcd) under a Cacher.
import type { GetOptions, KeyValue, ListOptions, ListResult, Storage, StorageError, StorageEvent, WatchHandle, WatchOptions } from "../interface.ts";

interface ActiveWatch {
  handle: WatchHandle;
  onError: (err: StorageError) => void;
}

export class ControlledStorage implements Storage {
  readonly kind: Storage["kind"];
  readonly calls = { get: 0, list: 0, watch: 0, changesSince: 0 };
  /** While true, watch events are queued until release(). */
  hold = false;
  private held: (() => void)[] = [];
  private active = new Set<ActiveWatch>();

  constructor(readonly inner: Storage) {
    this.kind = inner.kind;
  }

  release(): void {
    this.hold = false;
    for (const deliver of this.held.splice(0)) deliver();
  }

  /** Ends every open watch with err (as a broken etcd watch would). */
  failWatches(err: StorageError): void {
    this.held = [];
    for (const w of [...this.active]) {
      this.active.delete(w);
      w.handle.stop();
      w.onError(err);
    }
  }

  currentRevision(): Promise<number> {
    return this.inner.currentRevision();
  }
  compactedRevision(): Promise<number> {
    return this.inner.compactedRevision();
  }
  get(key: string, options?: GetOptions): Promise<KeyValue | undefined> {
    this.calls.get++;
    return this.inner.get(key, options);
  }
  list(prefix: string, options?: ListOptions): Promise<ListResult> {
    this.calls.list++;
    return this.inner.list(prefix, options);
  }
  create(key: string, value: string): Promise<KeyValue> {
    return this.inner.create(key, value);
  }
  update(key: string, value: string, expectedModRevision: number): Promise<KeyValue> {
    return this.inner.update(key, value, expectedModRevision);
  }
  delete(key: string, expectedModRevision?: number): Promise<KeyValue> {
    return this.inner.delete(key, expectedModRevision);
  }
  /** Passes the watch cache's ChangeCounting capability through when the inner storage has it. */
  changesSince(prefix: string, revision: number): Promise<{ live: number; changed: boolean }> {
    this.calls.changesSince++;
    const inner = this.inner as Partial<{ changesSince: ControlledStorage["changesSince"] }>;
    if (!inner.changesSince) return Promise.reject(new Error("the inner storage cannot count changes"));
    return inner.changesSince.call(this.inner, prefix, revision);
  }

  compact(revision: number): Promise<void> {
    return this.inner.compact(revision);
  }
  close(): Promise<void> {
    return this.inner.close();
  }

  watch(
    prefix: string,
    afterRevision: number,
    onEvents: (events: StorageEvent[]) => void,
    onError: (err: StorageError) => void,
    options?: WatchOptions,
  ): WatchHandle {
    this.calls.watch++;
    const handle = this.inner.watch(
      prefix,
      afterRevision,
      (events) => (this.hold ? this.held.push(() => onEvents(events)) : onEvents(events)),
      (err) => {
        this.active.delete(active);
        onError(err);
      },
      options,
    );
    const active: ActiveWatch = { handle, onError };
    this.active.add(active);
    return {
      stop: () => {
        this.active.delete(active);
        handle.stop();
      },
    };
  }
}
