// An etcd watch on a key prefix, as the Storage contract wants it: from a revision, with previous
// values, events in revision order, no duplicates after the client's reconnects.
import type { Etcd3, IEvent, IWatchResponse, Watcher } from "etcd3";
import type { KeyValue, StorageEvent, WatchHandle } from "../interface.ts";
import { StorageError } from "../interface.ts";

/** etcd's range end for a byte prefix: the prefix with its last byte < 0xff incremented; "\0" = no end. */
export function byteRangeEnd(prefix: Buffer): Buffer {
  for (let i = prefix.length - 1; i >= 0; i--) {
    const b = prefix[i] as number;
    if (b < 0xff) {
      const end = Buffer.from(prefix.subarray(0, i + 1));
      end[i] = b + 1;
      return end;
    }
  }
  return Buffer.from([0]);
}

export interface EtcdWatch extends WatchHandle {
  /** Settles once etcd confirmed the cancellation of a stopped watch (or gave up). */
  cancelled(): Promise<void>;
}

/**
 * Watches keyPrefix + prefix for events after afterRevision. keyPrefix is stripped from keys.
 *
 * The etcd3 client reconnects by itself, resuming from the revision in the last response header;
 * that header can be ahead of events still to come while etcd replays history, so on every
 * (re)connect the start revision is reset to just after the last event delivered here, and events
 * at or below it are dropped. A server-side cancel (etcd cancels a watch whose start revision was
 * compacted) ends the watch with Compacted.
 */
export function watchEtcd(
  client: Etcd3,
  keyPrefix: string,
  prefix: string,
  afterRevision: number,
  onEvents: (events: StorageEvent[]) => void,
  onError: (err: StorageError) => void,
): EtcdWatch {
  let last = afterRevision;
  let stopped = false;
  const full = Buffer.from(keyPrefix + prefix);
  const watcher: Watcher = client
    .watch()
    .inRange({ start: full.length > 0 ? full : Buffer.from([0]), end: byteRangeEnd(full) })
    .startRevision(String(afterRevision + 1))
    .withPreviousKV()
    .watcher();

  const toKeyValue = (kv: IEvent["kv"]): KeyValue => ({
    key: kv.key.toString().slice(keyPrefix.length),
    value: kv.value.toString(),
    createRevision: Number(kv.create_revision),
    modRevision: Number(kv.mod_revision),
  });

  watcher.on("connecting", () => {
    watcher.request.start_revision = String(last + 1);
  });
  watcher.on("data", (res: IWatchResponse) => {
    if (stopped) return;
    const events: StorageEvent[] = [];
    for (const ev of res.events) {
      const rev = Number(ev.kv.mod_revision);
      if (rev <= last) continue;
      const prev = ev.prev_kv ? toKeyValue(ev.prev_kv) : undefined;
      if (ev.type === "Delete") {
        const base = prev ?? toKeyValue(ev.kv);
        events.push({ type: "delete", kv: { ...base, modRevision: rev }, prev: base });
      } else {
        const kv = toKeyValue(ev.kv);
        events.push(prev && kv.createRevision === prev.createRevision ? { type: "put", kv, prev } : { type: "put", kv });
      }
      last = rev;
    }
    if (events.length > 0) onEvents(events);
  });
  watcher.on("error", (err: Error) => {
    if (stopped) return;
    stopped = true;
    onError(
      new StorageError("Compacted", `etcd canceled the watch on ${prefix} after revision ${last} (compacted): ${err.message}`, {
        currentRevision: last,
      }, { cause: err }),
    );
  });
  let cancelled: Promise<void> = Promise.resolve();
  return {
    stop: () => {
      if (stopped) return;
      stopped = true;
      cancelled = watcher.cancel().catch(() => undefined);
    },
    cancelled: () => cancelled,
  };
}
