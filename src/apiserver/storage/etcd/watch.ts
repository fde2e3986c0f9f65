// An etcd watch on a key prefix, as the Storage contract wants it: from a revision, with previous
// values unless the caller keeps them itself, events in revision order, no duplicates after the
// client's reconnects.
import type { KeyValue, StorageEvent, WatchHandle } from "../interface.ts";
import { StorageError } from "../interface.ts";
import { int64, type KvMessage } from "./grpc.ts";
import type { EtcdKvClient } from "./kv-client.ts";
import type { WatchResponse, WatchStream } from "./watch-stream.ts";

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

/** Reconnect delays after a watch stream ended: doubling from the first to the last. */
const RETRY_FIRST_MS = 50;
const RETRY_MAX_MS = 2000;
/** After a response with this many bytes of values, the next one waits for the next event-loop turn. */
const YIELD_BYTES = 256 * 1024;
/** Bytes of values waiting for their turn beyond which everything waiting is delivered at once (as before the yield). */
const MAX_WAITING_BYTES = 16 * 1024 * 1024;

function valueBytes(events: StorageEvent[]): number {
  let n = 0;
  for (const e of events) n += e.kv.value.length + (e.prev?.value.length ?? 0);
  return n;
}

/**
 * Watches keyPrefix + prefix for events after afterRevision. keyPrefix is stripped from keys.
 *
 * One Watch stream per watch (watch-stream.ts). When a stream ends without a cancel from etcd (the
 * member died, the connection broke), a new one starts just after the last event delivered here,
 * on the next endpoint, after a short backoff; events at or below that revision are dropped. A
 * server-side cancel (etcd cancels a watch whose start revision was compacted) ends the watch
 * with Compacted.
 *
 * Each response's events are delivered together (a revision is never split), but after a response
 * carrying large values (YIELD_BYTES) the next waits for the next event-loop turn: several 1 MB
 * events arriving together then do not hold other requests for all of their handling at once.
 * What waits is bounded (MAX_WAITING_BYTES): past it, all of it is delivered at once, so a server
 * that cannot keep up lets etcd's flow control hold the rest, as without the yield.
 */
export function watchEtcd(
  client: EtcdKvClient,
  keyPrefix: string,
  prefix: string,
  afterRevision: number,
  onEvents: (events: StorageEvent[]) => void,
  onError: (err: StorageError) => void,
  /** Ask etcd for previous values (prev_kv); without them a put has no prev and a delete only its key and revision. */
  withPrev = true,
): WatchHandle {
  let last = afterRevision;
  let stopped = false;
  let stream: WatchStream | undefined;
  let retryTimer: NodeJS.Timeout | undefined;
  let delay = RETRY_FIRST_MS;
  /** Responses received but not delivered yet (with their values' bytes), and whether a turn to deliver them is scheduled. */
  const queue: { events: StorageEvent[]; bytes: number }[] = [];
  let waitingBytes = 0;
  let scheduled = false;
  const full = Buffer.from(keyPrefix + prefix);
  const key = full.length > 0 ? full : Buffer.from([0]);
  const rangeEnd = byteRangeEnd(full);

  const toKeyValue = (kv: KvMessage): KeyValue => ({
    key: kv.key.toString().slice(keyPrefix.length),
    value: kv.value.toString(),
    createRevision: int64(kv.create_revision),
    modRevision: int64(kv.mod_revision),
  });

  const fail = (err: StorageError): void => {
    if (stopped) return;
    stopped = true;
    stream?.close();
    onError(err);
  };

  const onResponse = (res: WatchResponse): void => {
    if (stopped) return;
    if (res.created) delay = RETRY_FIRST_MS;
    if (res.canceled) {
      const compacted = int64(res.compact_revision);
      fail(
        new StorageError("Compacted", `etcd canceled the watch on ${prefix} after revision ${last}${compacted > 0 ? ` (compacted at ${compacted})` : ""}: ${res.cancel_reason}`, {
          currentRevision: last,
        }),
      );
      return;
    }
    const events: StorageEvent[] = [];
    // One Txn's events share a revision (and one response): compare with the revision delivered
    // before this response, not with the event before.
    const delivered = last;
    for (const ev of res.events) {
      const rev = int64(ev.kv.mod_revision);
      if (rev <= delivered) continue;
      const prev = ev.prev_kv ? toKeyValue(ev.prev_kv) : undefined;
      if (ev.type === 1) {
        const base = prev ?? toKeyValue(ev.kv);
        events.push({ type: "delete", kv: { ...base, modRevision: rev }, prev: base });
      } else {
        const kv = toKeyValue(ev.kv);
        events.push(prev && kv.createRevision === prev.createRevision ? { type: "put", kv, prev } : { type: "put", kv });
      }
      last = rev;
    }
    if (events.length === 0) return;
    const bytes = valueBytes(events);
    queue.push({ events, bytes });
    waitingBytes += bytes;
    if (!scheduled) deliver();
    else if (waitingBytes > MAX_WAITING_BYTES) deliver(true);
  };

  /** Delivers what waits, up to and including the first response with large values (all: everything). */
  const deliver = (all = false): void => {
    scheduled = false;
    for (let next = queue.shift(); next && !stopped; next = queue.shift()) {
      const { events, bytes } = next;
      waitingBytes -= bytes;
      onEvents(events);
      if (bytes >= YIELD_BYTES && !all) {
        scheduled = true;
        setImmediate(deliver);
        return;
      }
    }
  };

  const open = (): void => {
    retryTimer = undefined;
    if (stopped) return;
    stream = client.watch({ key, range_end: rangeEnd, start_revision: last + 1, prev_kv: withPrev }, onResponse, () => {
      stream = undefined;
      if (stopped) return;
      retryTimer = setTimeout(open, delay);
      delay = Math.min(delay * 2, RETRY_MAX_MS);
    });
  };
  open();

  return {
    stop: () => {
      if (stopped) return;
      stopped = true;
      clearTimeout(retryTimer);
      stream?.close();
    },
  };
}
