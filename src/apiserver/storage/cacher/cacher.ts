// The watch cache: a Storage decorator that keeps everything under a root prefix in memory, fed by
// one list plus one watch on the inner storage, and serves get/list/watch from memory.
//
// Consistency: a read without allowStale first asks the inner storage for its current revision and
// waits until the cache has seen it (immediate over SQLite, whose watchers are notified
// synchronously at commit; over etcd the wait is for the watch). After freshnessTimeoutMs it reads
// the inner storage instead. Lists at an explicit revision other than the cache's go to the inner
// storage. Watches resume from the history ring when it still covers their revision, else from the
// inner storage (which fails with Compacted when that is too old).
// Over etcd, writes outside the root also advance the revision without any event reaching the
// cache; an inner storage implementing ChangeCounting lets such reads proceed without the wait.
import type { Clock, Timer } from "../../../utils/clock.ts";
import { realClock } from "../../../utils/clock.ts";
import type { GetOptions, KeyValue, ListOptions, ListResult, Storage, StorageEvent, WatchHandle } from "../interface.ts";
import { StorageError } from "../interface.ts";
import { normalizePrefix, rangeStart } from "../keys.ts";
import { BucketStore, defaultBucketOf, type BucketOf } from "./buckets.ts";
import { EventRing } from "./history.ts";
import { RevisionWaiters } from "./waiters.ts";
import { CacheWatcher, WatcherIndex } from "./watchers.ts";

export interface CacherOptions {
  /** The root prefix cached (default "/registry/"); keys outside it are passed to the inner storage. */
  prefix?: string;
  /** Events kept for watches that resume from a past revision (default 10000). */
  historySize?: number;
  /** Bytes those events may pin (default 128 MiB); older events go first. */
  historyBytes?: number;
  clock?: Clock;
  /** How keys are grouped for lists and watcher dispatch (default: by /registry/<group>/<resource>/). */
  bucketOf?: BucketOf;
  /** How long a consistent read waits for the cache before reading the inner storage (default 3000 ms). */
  freshnessTimeoutMs?: number;
  /** Page size of the initial list (default 1000). */
  listPageSize?: number;
}

/**
 * Optional capability of an inner storage. Over etcd the global revision also moves for writes the
 * cache never sees (other key prefixes); with this the cache can tell, in one read, that its state
 * is still the current one under its root instead of waiting for a revision that never comes.
 */
export interface ChangeCounting {
  /** At the current revision: how many keys live under prefix, and whether any changed after revision. */
  changesSince(prefix: string, revision: number): Promise<{ live: number; changed: boolean }>;
}

function countsChanges(s: Storage): s is Storage & ChangeCounting {
  return typeof (s as Partial<ChangeCounting>).changesSince === "function";
}

/** Default byte bound of the event history. */
export const DEFAULT_HISTORY_BYTES = 128 * 1024 * 1024;
const RETRY_MIN_MS = 100;
const RETRY_MAX_MS = 5000;

export class Cacher implements Storage {
  readonly kind: Storage["kind"];
  private readonly root: string;
  private readonly clock: Clock;
  private readonly bucketOf: BucketOf;
  private readonly pageSize: number;
  private readonly store: BucketStore;
  private readonly history: EventRing;
  private readonly watchers = new WatcherIndex();
  private readonly waiters: RevisionWaiters;
  private rev = 0;
  private ready = false;
  private closed = false;
  /** Incremented whenever the inner watch is replaced; callbacks of older watches are ignored. */
  private epoch = 0;
  private innerWatch: WatchHandle | undefined;
  private retryTimer: Timer | undefined;
  private retryDelay = RETRY_MIN_MS;

  constructor(
    private readonly inner: Storage,
    options: CacherOptions = {},
  ) {
    this.kind = inner.kind;
    this.root = normalizePrefix(options.prefix ?? "/registry/");
    this.clock = options.clock ?? realClock;
    this.bucketOf = options.bucketOf ?? defaultBucketOf;
    this.waiters = new RevisionWaiters(this.clock, options.freshnessTimeoutMs ?? 3000);
    this.pageSize = options.listPageSize ?? 1000;
    this.store = new BucketStore(this.bucketOf);
    this.history = new EventRing(options.historySize ?? 10_000, options.historyBytes ?? DEFAULT_HISTORY_BYTES);
  }

  /** The last revision the cache has seen. */
  get revision(): number {
    return this.rev;
  }

  /** Number of cached keys. */
  get size(): number {
    return this.store.size;
  }

  /** Lists the root prefix and starts watching it. Rejects if the first list fails. */
  async start(): Promise<void> {
    await this.relist();
  }

  currentRevision(): Promise<number> {
    return this.inner.currentRevision();
  }

  compactedRevision(): Promise<number> {
    return this.inner.compactedRevision();
  }

  async get(key: string, options: GetOptions = {}): Promise<KeyValue | undefined> {
    if (!key.startsWith(this.root)) return this.inner.get(key);
    if (options.allowStale && this.ready) return this.store.get(key);
    if (!(await this.fresh())) return this.inner.get(key);
    return this.store.get(key);
  }

  async list(prefix: string, options: ListOptions = {}): Promise<ListResult> {
    const p = normalizePrefix(prefix);
    if (!p.startsWith(this.root) || !this.ready) return this.inner.list(prefix, options);
    if (options.revision && options.revision > 0) {
      if (options.revision !== this.rev) return this.inner.list(prefix, options);
    } else if (!options.allowStale && !(await this.fresh())) {
      return this.inner.list(prefix, options);
    }
    if (!this.ready) return this.inner.list(prefix, options);
    const { items, more } = this.store.list(p, rangeStart(p, options.startKey), options.limit ?? 0);
    return { items, more, revision: this.rev };
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

  watch(
    prefix: string,
    afterRevision: number,
    onEvents: (events: StorageEvent[]) => void,
    onError: (err: StorageError) => void,
  ): WatchHandle {
    const p = normalizePrefix(prefix);
    if (!p.startsWith(this.root) || !this.ready || afterRevision < this.history.oldest) {
      return this.inner.watch(prefix, afterRevision, onEvents, onError);
    }
    const replay = afterRevision < this.rev ? this.history.since(afterRevision, p) : [];
    const w = new CacheWatcher(p, afterRevision, replay, onEvents, onError);
    this.watchers.add(w, this.bucketOf(p));
    queueMicrotask(() => w.flush());
    if (afterRevision > this.rev) void this.failIfFuture(w, afterRevision);
    return {
      stop: () => {
        w.stopped = true;
        this.watchers.remove(w);
      },
    };
  }

  async compact(revision: number): Promise<void> {
    await this.inner.compact(revision);
    this.history.forgetThrough(revision);
  }

  /** Stops the cache (watchers get no more events) and closes the inner storage. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.ready = false;
    this.epoch++;
    this.innerWatch?.stop();
    this.retryTimer?.cancel();
    for (const w of this.watchers.all()) {
      w.stopped = true;
      this.watchers.remove(w);
    }
    this.waiters.cancelAll();
    await this.inner.close();
  }

  /** Lists the root at one revision (in pages), replaces the cached state and watches from there. */
  private async relist(): Promise<void> {
    const epoch = ++this.epoch;
    this.innerWatch?.stop();
    this.innerWatch = undefined;
    const items: KeyValue[] = [];
    let revision = 0;
    let startKey: string | undefined;
    for (;;) {
      const page = await this.inner.list(this.root, { revision: revision || undefined, startKey, limit: this.pageSize });
      revision = page.revision;
      items.push(...page.items);
      const last = page.items[page.items.length - 1];
      if (!page.more || !last) break;
      startKey = `${last.key}\x00`;
    }
    if (epoch !== this.epoch || this.closed) return;
    this.store.reset(items);
    this.history.reset(revision);
    this.rev = revision;
    this.ready = true;
    this.retryDelay = RETRY_MIN_MS;
    this.watchInner();
    this.waiters.wake(this.rev);
  }

  private watchInner(): void {
    const epoch = ++this.epoch;
    this.innerWatch = this.inner.watch(
      this.root,
      this.rev,
      (events) => epoch === this.epoch && this.apply(events),
      (err) => epoch === this.epoch && this.onInnerError(err),
      { prevKnown: true },
    );
  }

  private apply(events: StorageEvent[]): void {
    const fresh: StorageEvent[] = [];
    for (const ev of events) {
      if (ev.kv.modRevision <= this.rev) continue;
      // The inner watch may leave previous values out (prevKnown): they are the cache's own. A put
      // that brings its previous value needs no lookup.
      let full = ev;
      if (ev.type === "delete") {
        const known = this.store.get(ev.kv.key);
        if (known) full = { type: "delete", kv: { ...known, modRevision: ev.kv.modRevision }, prev: known };
        this.store.remove(ev.kv.key);
      } else {
        const known = ev.prev ? undefined : this.store.get(ev.kv.key);
        if (known && known.createRevision === ev.kv.createRevision) full = { type: "put", kv: ev.kv, prev: known };
        this.store.put(ev.kv);
      }
      this.history.push(full);
      fresh.push(full);
    }
    const last = fresh[fresh.length - 1];
    if (!last) return;
    this.rev = last.kv.modRevision;
    this.retryDelay = RETRY_MIN_MS; // the inner watch works again
    this.watchers.dispatch(fresh, (key) => this.store.bucketName(key));
    this.waiters.wake(this.rev);
  }

  /**
   * Compacted: the events between the cache's revision and now are lost, so the cache relists and
   * every cache watcher ends with Compacted (its client relists too). Other errors: the cache
   * keeps its state and watches again from its revision, watchers unaffected.
   */
  private onInnerError(err: StorageError): void {
    this.innerWatch = undefined;
    if (this.closed) return;
    if (err.code === "Compacted") {
      this.ready = false;
      const lost = new StorageError("Compacted", `the watch cache lost its position at revision ${this.rev}: relist`, {
        currentRevision: this.rev,
      });
      for (const w of this.watchers.all()) {
        this.watchers.remove(w);
        w.fail(lost);
      }
      this.retry(() => this.relist());
    } else {
      this.retry(async () => this.watchInner());
    }
  }

  private retry(action: () => Promise<void>): void {
    this.retryTimer?.cancel();
    const delay = this.retryDelay;
    this.retryDelay = Math.min(RETRY_MAX_MS, this.retryDelay * 2);
    this.retryTimer = this.clock.setTimer(delay, () => {
      if (this.closed) return;
      action().catch(() => this.retry(action));
    });
  }

  /** True once the cache has caught up with the inner storage's current revision; false on timeout. */
  private async fresh(): Promise<boolean> {
    if (!this.ready) return false;
    const target = await this.inner.currentRevision();
    if (!this.ready) return false;
    if (this.rev >= target) return true;
    if (countsChanges(this.inner)) {
      // Same keys, none modified after the cache's revision: the state under the root is unchanged
      // up to a revision >= target (a key deleted or modified after it would show).
      const [at, size] = [this.rev, this.store.size];
      const { live, changed } = await this.inner.changesSince(this.root, at);
      if (!this.ready) return false;
      if (this.rev >= target || (this.rev === at && !changed && live === size)) return true;
    }
    return (await this.waiters.wait(target)) && this.ready;
  }

  private async failIfFuture(w: CacheWatcher, afterRevision: number): Promise<void> {
    try {
      const current = await this.inner.currentRevision();
      if (afterRevision <= current || w.stopped) return;
      this.watchers.remove(w);
      w.fail(
        new StorageError("FutureRevision", `revision ${afterRevision} is newer than the current revision ${current}`, {
          currentRevision: current,
        }),
      );
    } catch {
      // the watch simply waits; reads will surface an unavailable storage
    }
  }
}
