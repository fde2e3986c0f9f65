// Storage on etcd v3, through our own gRPC client (kv-client.ts). Writes are the apiserver's transactions: "if the key's
// mod (or create) revision is X then put/delete, else get", so a failed precondition reports the
// current value in the same round trip; writes that arrive together share one such transaction
// (write-batch.ts). int64 fields arrive as strings and are turned into numbers.
import type { KeyValue, ListOptions, ListResult, Storage, StorageEvent, WatchHandle, WatchOptions } from "../interface.ts";
import { StorageError } from "../interface.ts";
import { normalizePrefix, rangeStart } from "../keys.ts";
import { WriteBatcher, type BatchedWrite, type WriteOutcome } from "./write-batch.ts";
import { toStorageError } from "./errors.ts";
import { int64, type KvMessage } from "./grpc.ts";
import { EtcdKvClient, Result, Target, type Compare, type RequestOp, type TxnResponse } from "./kv-client.ts";
import { SharedReads } from "./shared-reads.ts";
import { byteRangeEnd, watchEtcd } from "./watch.ts";

export interface EtcdStorageOptions {
  /** e.g. ["http://127.0.0.1:2379"] */
  endpoints: string[];
  /** Prepended to every key, so several API servers can share one etcd. */
  prefix?: string;
  /** Deadline of each unary call, in ms (default 10000). */
  callTimeoutMs?: number;
}

/** A create, update or delete as one part of a batch's Txn. */
interface EtcdWrite extends BatchedWrite {
  verb: "create" | "update" | "delete";
  full: Buffer;
  compares: Compare[];
  ops: RequestOp[];
  /** Its outcome from its operations' responses, once the batch was done. */
  done(responses: TxnResponse["responses"], revision: number): WriteOutcome<KeyValue>;
  /** Its outcome from its key's current version, once the batch was refused. */
  refused(current: KeyValue | undefined): WriteOutcome<KeyValue>;
}

export class EtcdStorage implements Storage {
  readonly kind = "etcd" as const;
  private readonly kv: EtcdKvClient;
  private readonly prefix: string;
  private readonly watches = new Set<WatchHandle>();
  private readonly revisions = new SharedReads<number>();
  private readonly changes = new SharedReads<{ live: number; changed: boolean }>();
  private readonly writes = new WriteBatcher<EtcdWrite, KeyValue>((batch) => this.sendWrites(batch));

  constructor(options: EtcdStorageOptions) {
    const timeout = options.callTimeoutMs ?? 10_000;
    this.prefix = options.prefix ?? "";
    this.kv = new EtcdKvClient(options.endpoints, timeout);
  }

  /**
   * etcd's revision now. Concurrent calls share round trips (shared-reads.ts), so under load one
   * read answers many consistent reads of the watch cache.
   */
  currentRevision(): Promise<number> {
    return this.revisions.read("", () => this.readRevision());
  }

  private async readRevision(): Promise<number> {
    const res = await this.call("current revision", () =>
      this.kv.range({ key: this.probeKey(), count_only: true }),
    );
    return int64(res.header.revision);
  }

  /**
   * etcd does not report its compacted revision directly; it is the oldest revision a read still
   * accepts, found by binary search over revisions (about log2(current) small reads).
   */
  async compactedRevision(): Promise<number> {
    const current = await this.currentRevision();
    const readable = async (rev: number) => {
      try {
        await this.kv.range({ key: this.probeKey(), count_only: true, revision: rev });
        return true;
      } catch (err) {
        const mapped = toStorageError(err, "compacted revision");
        if (mapped instanceof StorageError && mapped.code === "Compacted") return false;
        throw mapped;
      }
    };
    if (current <= 1 || (await readable(1))) return 0;
    let lo = 1; // not readable
    let hi = current; // readable
    while (hi - lo > 1) {
      const mid = Math.floor((lo + hi) / 2);
      if (await readable(mid)) hi = mid;
      else lo = mid;
    }
    return hi;
  }

  async get(key: string): Promise<KeyValue | undefined> {
    const res = await this.call(`get ${key}`, () => this.kv.range({ key: this.full(key) }));
    const kv = res.kvs[0];
    return kv && this.toKeyValue(kv);
  }

  async list(prefix: string, options: ListOptions = {}): Promise<ListResult> {
    const p = normalizePrefix(prefix);
    const startText = this.prefix + rangeStart(p, options.startKey);
    const start = startText === "" ? Buffer.from([0]) : Buffer.from(startText);
    const end = byteRangeEnd(Buffer.from(this.prefix + p));
    const revision = options.revision && options.revision > 0 ? options.revision : 0;
    const limit = options.limit && options.limit > 0 ? options.limit : 0;
    const unbounded = end.length === 1 && end[0] === 0;
    if (!unbounded && Buffer.compare(start, end) >= 0) {
      // The start key lies past the prefix: an empty page, still read at the right revision.
      const res = await this.call(`list ${p}`, () =>
        this.kv.range({ key: this.probeKey(), count_only: true, revision }),
      );
      return { items: [], revision: revision || int64(res.header.revision), more: false };
    }
    const res = await this.call(`list ${p}`, () =>
      this.kv.range({ key: start, range_end: end, revision, limit }),
    );
    return { items: res.kvs.map((kv) => this.toKeyValue(kv)), revision: revision || int64(res.header.revision), more: res.more };
  }

  /**
   * The watch cache's ChangeCounting capability (see cacher.ts): both reads in one transaction, so
   * at one revision. The second is not count_only because etcd counts before applying the
   * mod-revision filter; with a filter etcd reads the whole range and applies the limit afterwards.
   */
  changesSince(prefix: string, revision: number): Promise<{ live: number; changed: boolean }> {
    return this.changes.read(`${revision}\0${prefix}`, () => this.readChanges(prefix, revision));
  }

  private async readChanges(prefix: string, revision: number): Promise<{ live: number; changed: boolean }> {
    const p = this.prefix + normalizePrefix(prefix);
    const key = p === "" ? Buffer.from([0]) : Buffer.from(p);
    const range_end = byteRangeEnd(Buffer.from(p));
    const res = await this.call(`changes under ${prefix}`, () =>
      this.kv.txn({
        compare: [],
        success: [
          { request_range: { key, range_end, count_only: true } },
          { request_range: { key, range_end, keys_only: true, limit: 1, min_mod_revision: revision + 1 } },
        ],
      }),
    );
    const live = int64(res.responses[0]?.response_range?.count ?? 0);
    const changed = (res.responses[1]?.response_range?.kvs.length ?? 0) > 0;
    return { live, changed };
  }

  create(key: string, value: string): Promise<KeyValue> {
    const full = this.full(key);
    return this.submit({
      verb: "create",
      key,
      full,
      bytes: value.length,
      compares: [{ key: full, target: Target.Create, result: Result.Equal, create_revision: 0 }],
      ops: [{ request_put: { key: full, value: Buffer.from(value) } }],
      done: (_, rev) => ({ done: { key, value, createRevision: rev, modRevision: rev } }),
      refused: (current) => (current ? { error: new StorageError("KeyExists", `key ${key} already exists`, { key, current }) } : "again"),
    });
  }

  update(key: string, value: string, expectedModRevision: number): Promise<KeyValue> {
    const full = this.full(key);
    return this.submit({
      verb: "update",
      key,
      full,
      bytes: value.length,
      compares: this.preconditions(full, expectedModRevision),
      // The key's create revision comes from a keys-only read after the put: the put's prev_kv
      // would carry the whole previous value back just for it.
      ops: [{ request_put: { key: full, value: Buffer.from(value) } }, { request_range: { key: full, keys_only: true } }],
      done: (responses, rev) => {
        const kv = responses[1]?.response_range?.kvs[0];
        return { done: { key, value, createRevision: kv ? int64(kv.create_revision) : rev, modRevision: rev } };
      },
      refused: (current) => this.preconditionFailed(key, current, expectedModRevision),
    });
  }

  delete(key: string, expectedModRevision?: number): Promise<KeyValue> {
    const full = this.full(key);
    return this.submit({
      verb: "delete",
      key,
      full,
      bytes: 0,
      compares: this.preconditions(full, expectedModRevision),
      ops: [{ request_delete_range: { key: full, prev_kv: true } }],
      done: (responses, rev) => {
        const prev = responses[0]?.response_delete_range?.prev_kvs[0];
        if (!prev) return { error: new StorageError("NotFound", `key ${key} not found`, { key }) };
        return { done: { ...this.toKeyValue(prev), modRevision: rev } };
      },
      refused: (current) => this.preconditionFailed(key, current, expectedModRevision),
    });
  }

  /** Hands a write to the batcher; its share of the Txn's operations follows from its compares and operations. */
  private submit(w: Omit<EtcdWrite, "weight">): Promise<KeyValue> {
    return this.writes.submit({ ...w, weight: Math.max(w.compares.length, w.ops.length) });
  }

  /** One batch of writes as one Txn (write-batch.ts): every precondition holds and all are done, or every key is read. */
  private async sendWrites(batch: EtcdWrite[]): Promise<WriteOutcome<KeyValue>[]> {
    let res: TxnResponse;
    try {
      res = await this.kv.txn({
        compare: batch.flatMap((w) => w.compares),
        success: batch.flatMap((w) => w.ops),
        failure: batch.map((w) => ({ request_range: { key: w.full } })),
      });
    } catch (err) {
      // Each write fails with its own key in the message.
      return batch.map((w) => ({ error: toStorageError(err, `${w.verb} ${w.key}`) }));
    }
    const rev = int64(res.header.revision);
    if (!res.succeeded) {
      return batch.map((w, i) => {
        const kv = res.responses[i]?.response_range?.kvs[0];
        return w.refused(kv && this.toKeyValue(kv));
      });
    }
    let at = 0;
    return batch.map((w) => {
      const outcome = w.done(res.responses.slice(at, at + w.ops.length), rev);
      at += w.ops.length;
      return outcome;
    });
  }

  /** Why a write's own preconditions failed on the key's current version, or "again" if they hold. */
  private preconditionFailed(key: string, current: KeyValue | undefined, expected: number | undefined): WriteOutcome<KeyValue> {
    if (!current) return { error: new StorageError("NotFound", `key ${key} not found`, { key }) };
    if (expected !== undefined && current.modRevision !== expected) {
      return { error: new StorageError("Conflict", `key ${key} was modified: expected revision ${expected}, found ${current.modRevision}`, { key, current }) };
    }
    return "again";
  }

  watch(
    prefix: string,
    afterRevision: number,
    onEvents: (events: StorageEvent[]) => void,
    onError: (err: StorageError) => void,
    options: WatchOptions = {},
  ): WatchHandle {
    const handle = watchEtcd(
      this.kv,
      this.prefix,
      normalizePrefix(prefix),
      afterRevision,
      onEvents,
      (err) => {
        this.watches.delete(handle);
        onError(err);
      },
      !options.prevKnown,
    );
    this.watches.add(handle);
    return {
      stop: () => {
        handle.stop();
        this.watches.delete(handle);
      },
    };
  }

  /** Compacts etcd's whole keyspace (compaction is global, not per prefix). Older than compacted: no-op. */
  async compact(revision: number): Promise<void> {
    try {
      await this.kv.compact({ revision, physical: true });
    } catch (err) {
      const mapped = toStorageError(err, `compact at ${revision}`);
      if (mapped instanceof StorageError && mapped.code === "Compacted") return;
      throw mapped;
    }
  }

  /** Stops all watches, waits (up to 2 s) for etcd to confirm their cancellation, then disconnects. */
  async close(): Promise<void> {
    for (const w of this.watches) w.stop();
    this.watches.clear();
    this.kv.close();
  }

  /** Some key inside this storage's prefix, for reads that only want a response header. */
  private probeKey(): Buffer {
    return Buffer.from(this.prefix || "/");
  }

  private full(key: string): Buffer {
    return Buffer.from(this.prefix + key);
  }

  private toKeyValue(kv: KvMessage): KeyValue {
    return {
      key: kv.key.toString().slice(this.prefix.length),
      value: kv.value.toString(),
      createRevision: int64(kv.create_revision),
      modRevision: int64(kv.mod_revision),
    };
  }

  /** The key must exist (create revision > 0) and, when given, have the expected mod revision. */
  private preconditions(full: Buffer, expectedModRevision: number | undefined): Compare[] {
    const exists: Compare = { key: full, target: Target.Create, result: Result.Greater, create_revision: 0 };
    if (expectedModRevision === undefined) return [exists];
    return [exists, { key: full, target: Target.Mod, result: Result.Equal, mod_revision: expectedModRevision }];
  }

  private async call<T>(what: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      throw toStorageError(err, what);
    }
  }
}
