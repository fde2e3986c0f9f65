// Watchers served from the watch cache, and their index by bucket: an event is offered only to the
// watchers of its key's bucket plus the few "wide" watchers whose prefix spans several buckets.
import { guard } from "../callbacks.ts";
import type { StorageError, StorageEvent } from "../interface.ts";

export class CacheWatcher {
  /** Events at or below this revision were delivered or are not wanted. */
  private last: number;
  /** Replayed events not yet delivered; live events queue behind them. Null once flushed. */
  private pending: StorageEvent[] | null;
  stopped = false;
  /** Set by WatcherIndex.add. */
  bucket: string | undefined;

  constructor(
    readonly prefix: string,
    afterRevision: number,
    replay: StorageEvent[],
    private readonly onEvents: (events: StorageEvent[]) => void,
    private readonly onError: (err: StorageError) => void,
  ) {
    this.last = afterRevision;
    this.pending = replay;
  }

  /** Delivers the replay (asynchronously after watch() returned, never from inside it). */
  flush(): void {
    const evs = this.pending;
    this.pending = null;
    if (evs && evs.length > 0 && !this.stopped) this.emit(evs);
  }

  /** Offers events under this watcher's prefix; delivers those after its position. */
  offer(events: StorageEvent[]): void {
    if (this.stopped) return;
    if (this.pending) {
      this.pending.push(...events);
      return;
    }
    this.emit(events);
  }

  fail(err: StorageError): void {
    if (this.stopped) return;
    this.stopped = true;
    guard(() => this.onError(err));
  }

  private emit(events: StorageEvent[]): void {
    const fresh = events.filter((e) => e.kv.modRevision > this.last);
    if (fresh.length === 0) return;
    this.last = (fresh[fresh.length - 1] as StorageEvent).kv.modRevision;
    guard(() => this.onEvents(fresh));
  }
}

export class WatcherIndex {
  private readonly byBucket = new Map<string, Set<CacheWatcher>>();
  private readonly wide = new Set<CacheWatcher>();

  /** bucket: the watcher's prefix's bucket, undefined when the prefix spans buckets. */
  add(w: CacheWatcher, bucket: string | undefined): void {
    w.bucket = bucket;
    if (bucket === undefined) {
      this.wide.add(w);
      return;
    }
    let set = this.byBucket.get(bucket);
    if (!set) {
      set = new Set();
      this.byBucket.set(bucket, set);
    }
    set.add(w);
  }

  remove(w: CacheWatcher): void {
    if (w.bucket === undefined) {
      this.wide.delete(w);
      return;
    }
    const set = this.byBucket.get(w.bucket);
    set?.delete(w);
    if (set?.size === 0) this.byBucket.delete(w.bucket);
  }

  all(): CacheWatcher[] {
    const out = [...this.wide];
    for (const set of this.byBucket.values()) out.push(...set);
    return out;
  }

  /** Offers each event to the watchers whose prefix matches its key, in order, one batch per watcher. */
  dispatch(events: StorageEvent[], bucketOfKey: (key: string) => string): void {
    const batches = new Map<CacheWatcher, StorageEvent[]>();
    for (const ev of events) {
      const key = ev.kv.key;
      const local = this.byBucket.get(bucketOfKey(key));
      for (const set of local ? [local, this.wide] : [this.wide]) {
        for (const w of set) {
          if (!key.startsWith(w.prefix)) continue;
          const batch = batches.get(w);
          if (batch) batch.push(ev);
          else batches.set(w, [ev]);
        }
      }
    }
    for (const [w, batch] of batches) w.offer(batch);
  }
}
