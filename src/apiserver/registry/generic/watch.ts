// Watch (docs/kubernetes-api.md#watch): synthetic ADDED events for RV unset/"0", changes after RV n, selector transitions
// (enter -> ADDED, leave -> DELETED with the old object), BOOKMARKs on request, sendInitialEvents
// with its end bookmark, and 410 through the sink's onEnd when the RV is compacted.
import type { KubeObject, WatchEvent } from "../../../apis/meta/v1/types.ts";
import { newInternalError, type StatusError } from "../../../apimachinery/errors.ts";
import type { Timer } from "../../../utils/clock.ts";
import type { KeyValue, StorageEvent, WatchHandle as StorageWatchHandle } from "../../storage/interface.ts";
import { groupVersionOf, type RequestContext } from "../types.ts";
import { decode, decodeShared, listPrefix } from "./codec.ts";
import type { StoreCore } from "./core.ts";
import type { WatchHandle, WatchOptions, WatchSink } from "./interface.ts";
import { validateWatchOptions } from "./list-options.ts";
import { listStorage } from "./read.ts";
import { parseResourceVersion, storageToStatus, tooLargeResourceVersion } from "./rv.ts";
import { parseSelection, type Selection } from "./selection.ts";

export const INITIAL_EVENTS_END_ANNOTATION = "k8s.io/initial-events-end";

export async function watch(core: StoreCore, ctx: RequestContext, options: WatchOptions, sink: WatchSink): Promise<WatchHandle> {
  validateWatchOptions(options);
  const selection = parseSelection(core.def, options);
  const rv = parseResourceVersion(options.resourceVersion);
  const prefix = listPrefix(core.def, ctx.namespace);
  const watcher = new Watcher(core, selection, sink);
  const initial = options.sendInitialEvents === true || (options.sendInitialEvents === undefined && !rv);

  let from: number;
  if (initial) {
    const list = await listStorage(core, prefix, { allowStale: rv === 0 });
    if (rv && list.revision < rv) throw tooLargeResourceVersion(rv, list.revision);
    from = list.revision;
    watcher.lastRevision = from;
    for (const kv of list.items) {
      const obj = decode(core.def, kv);
      if (selection.matches(obj) && !watcher.emit({ type: "ADDED", object: obj })) return watcher;
    }
    if (options.sendInitialEvents && !watcher.emit(watcher.bookmark(true))) return watcher;
  } else {
    from = rv || (await core.storage.currentRevision());
    watcher.lastRevision = from;
  }
  watcher.subscribe(prefix, from, Boolean(options.allowWatchBookmarks));
  return watcher;
}

class Watcher implements WatchHandle {
  lastRevision = 0;
  private stopped = false;
  private inner: StorageWatchHandle | undefined;
  private timer: Timer | undefined;

  constructor(
    private readonly core: StoreCore,
    private readonly selection: Selection,
    private readonly sink: WatchSink,
  ) {}

  subscribe(prefix: string, from: number, bookmarks: boolean): void {
    if (this.stopped) return;
    this.inner = this.core.storage.watch(
      prefix,
      from,
      (events) => this.onEvents(events),
      (err) => this.end(storageToStatus(err, from)),
    );
    if (bookmarks) this.scheduleBookmark();
  }

  /** Delivers one event; false when the watch is over (stopped, or the sink asked to stop). */
  emit(event: WatchEvent): boolean {
    if (this.stopped) return false;
    let more: boolean;
    try {
      more = this.sink.onEvent(event) !== false;
    } catch (err) {
      this.end(newInternalError(err));
      return false;
    }
    if (!more) this.end();
    return more;
  }

  bookmark(initialEventsEnd = false): WatchEvent {
    const object: KubeObject = {
      apiVersion: groupVersionOf(this.core.def),
      kind: this.core.def.kind,
      metadata: { resourceVersion: String(this.lastRevision) },
    };
    if (initialEventsEnd) object.metadata.annotations = { [INITIAL_EVENTS_END_ANNOTATION]: "true" };
    return { type: "BOOKMARK", object };
  }

  stop(): void {
    this.stopped = true;
    this.inner?.stop();
    this.timer?.cancel();
  }

  private end(err?: StatusError): void {
    if (this.stopped) return;
    this.stop();
    this.sink.onEnd(err);
  }

  private onEvents(events: StorageEvent[]): void {
    for (const e of events) {
      if (this.stopped) return;
      let event: WatchEvent | undefined;
      try {
        event = this.transform(e);
      } catch (err) {
        this.end(newInternalError(err));
        return;
      }
      this.lastRevision = Math.max(this.lastRevision, e.kv.modRevision);
      if (event && !this.emit(event)) return;
    }
  }

  /** The event's object: shared between watchers when the sink only reads it, else a fresh copy. */
  private object(kv: KeyValue, revision?: number): KubeObject {
    return this.sink.shared ? decodeShared(this.core.def, kv, revision) : decode(this.core.def, kv, revision);
  }

  private transform(e: StorageEvent): WatchEvent | undefined {
    const def = this.core.def;
    if (e.type === "delete") {
      // kv holds the last value with the deletion's revision.
      return this.selection.matches(decodeShared(def, e.kv)) ? { type: "DELETED", object: this.object(e.kv) } : undefined;
    }
    if (this.selection.everything) return { type: e.prev ? "MODIFIED" : "ADDED", object: this.object(e.kv) };
    // Selector checks only read, so they use the shared decodes.
    const prevMatched = e.prev ? this.selection.matches(decodeShared(def, e.prev)) : false;
    if (this.selection.matches(decodeShared(def, e.kv))) return { type: prevMatched ? "MODIFIED" : "ADDED", object: this.object(e.kv) };
    // Left the selection: the old object, at the revision of the change that made it leave.
    if (prevMatched && e.prev) return { type: "DELETED", object: this.object(e.prev, e.kv.modRevision) };
    return undefined;
  }

  private scheduleBookmark(): void {
    this.timer = this.core.clock.setTimer(this.core.bookmarkIntervalMs, () => {
      if (this.stopped) return;
      // Revision 0 would read as "any" to a client resuming from it: nothing to bookmark yet.
      if (this.lastRevision === 0 || this.emit(this.bookmark())) this.scheduleBookmark();
    });
  }
}
