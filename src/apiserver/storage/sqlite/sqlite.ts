// Storage on an embedded SQLite database (better-sqlite3), with etcd v3 semantics.
//
// One synchronous writer: every write is one IMMEDIATE transaction whose log row id is the new
// revision, so revisions are assigned in commit order and there are no gaps to wait for. Watchers
// are notified synchronously right after COMMIT. WAL with synchronous=NORMAL loses no acknowledged
// write when the process dies (only an OS crash or power loss may lose the last commits).
import Database from "better-sqlite3";
import type {
  KeyValue,
  ListOptions,
  ListResult,
  Storage,
  StorageEvent,
  WatchHandle,
} from "../interface.ts";
import { StorageError } from "../interface.ts";
import { normalizePrefix, prefixEnd, rangeStart } from "../keys.ts";
import { Hub, type Subscriber } from "./hub.ts";
import { MAX_KEY, SCHEMA, prepareStatements, toEvent, toKeyValue, type KvRow, type Statements } from "./schema.ts";

export interface SQLiteStorageOptions {
  /** Database file, or ":memory:". */
  path: string;
  /** How long a write waits for another connection's lock, in ms (default 10000). */
  busyTimeoutMs?: number;
}

/** Rows read per replay step of a watch, and revisions per compaction transaction. */
const BATCH = 1000;

export class SQLiteStorage implements Storage {
  readonly kind = "sqlite" as const;
  private readonly db: Database.Database;
  private readonly st: Statements;
  private readonly hub = new Hub();
  private rev: number;
  private compacted: number;
  private closed = false;
  private compaction: Promise<void> = Promise.resolve();

  constructor(options: SQLiteStorageOptions) {
    this.db = new Database(options.path, { timeout: options.busyTimeoutMs ?? 10_000 });
    this.db.pragma("journal_mode = WAL");
    this.db.pragma("synchronous = NORMAL");
    this.db.exec(SCHEMA);
    this.st = prepareStatements(this.db);
    this.rev = this.st.sequence.get()?.seq ?? 0;
    this.compacted = this.st.metaGet.get("compacted")?.value ?? 0;
  }

  async currentRevision(): Promise<number> {
    this.checkOpen();
    return this.rev;
  }

  async compactedRevision(): Promise<number> {
    this.checkOpen();
    return this.compacted;
  }

  async get(key: string): Promise<KeyValue | undefined> {
    this.checkOpen();
    const row = this.st.latestGet.get(key);
    return row && toKeyValue(row);
  }

  async list(prefix: string, options: ListOptions = {}): Promise<ListResult> {
    this.checkOpen();
    const p = normalizePrefix(prefix);
    const start = rangeStart(p, options.startKey);
    const end = prefixEnd(p) ?? MAX_KEY;
    const revision = options.revision && options.revision > 0 ? options.revision : this.rev;
    if (revision > this.rev) {
      throw new StorageError("FutureRevision", `revision ${revision} is newer than the current revision ${this.rev}`, {
        currentRevision: this.rev,
      });
    }
    if (revision < this.compacted) throw this.compactedError(revision);
    // SQLite binds a JS number above 2^31 as REAL; no list is that long anyway.
    const limit = options.limit && options.limit > 0 ? Math.min(Math.floor(options.limit), 2 ** 31 - 2) : 0;
    const rows: KvRow[] =
      revision === this.rev
        ? this.st.listLatest.all(start, end, limit ? limit + 1 : -1)
        : this.st.listAt.all(start, end, revision, limit ? limit + 1 : -1);
    const more = limit > 0 && rows.length > limit;
    if (more) rows.length = limit;
    return { items: rows.map(toKeyValue), revision, more };
  }

  /** The watch cache's ChangeCounting capability (see cacher.ts). */
  async changesSince(prefix: string, revision: number): Promise<{ live: number; changed: boolean }> {
    this.checkOpen();
    const p = normalizePrefix(prefix);
    const end = prefixEnd(p) ?? MAX_KEY;
    const live = this.st.countLive.get(p, end)?.n ?? 0;
    const changed = (this.st.countChanged.get(p, end, revision)?.n ?? 0) > 0;
    return { live, changed };
  }

  async create(key: string, value: string): Promise<KeyValue> {
    return this.write(key, (cur) => {
      if (cur) throw new StorageError("KeyExists", `key ${key} already exists`, { key, current: toKeyValue(cur) });
      const rev = this.rev + 1;
      this.st.insert.run(rev, key, value, 1, 0, rev, this.st.lastRowId.get(key)?.id ?? 0);
      this.st.latestSet.run(key, rev);
      const kv: KeyValue = { key, value, createRevision: rev, modRevision: rev };
      return { result: kv, event: { type: "put", kv } };
    });
  }

  async update(key: string, value: string, expectedModRevision: number): Promise<KeyValue> {
    return this.write(key, (cur) => {
      const prev = this.precondition(key, cur, expectedModRevision);
      const rev = this.rev + 1;
      this.st.insert.run(rev, key, value, 0, 0, prev.createRevision, prev.modRevision);
      this.st.latestSet.run(key, rev);
      const kv: KeyValue = { key, value, createRevision: prev.createRevision, modRevision: rev };
      return { result: kv, event: { type: "put", kv, prev } };
    });
  }

  async delete(key: string, expectedModRevision?: number): Promise<KeyValue> {
    return this.write(key, (cur) => {
      const prev = this.precondition(key, cur, expectedModRevision);
      const rev = this.rev + 1;
      this.st.insert.run(rev, key, prev.value, 0, 1, prev.createRevision, prev.modRevision);
      this.st.latestDelete.run(key);
      const kv: KeyValue = { ...prev, modRevision: rev };
      return { result: kv, event: { type: "delete", kv, prev } };
    });
  }

  watch(
    prefix: string,
    afterRevision: number,
    onEvents: (events: StorageEvent[]) => void,
    onError: (err: StorageError) => void,
  ): WatchHandle {
    const sub: Subscriber = { prefix: normalizePrefix(prefix), last: afterRevision, live: false, stopped: false, onEvents, onError };
    const handle = { stop: () => this.hub.remove(sub) };
    if (this.closed) {
      setImmediate(() => onError(new StorageError("Unavailable", "storage is closed")));
      return handle;
    }
    this.hub.add(sub);
    // Nothing to replay: live at once, so the next commit already reaches this watcher.
    if (afterRevision >= this.rev) sub.live = true;
    else setImmediate(() => this.replay(sub));
    return handle;
  }

  /**
   * Replays the log after sub.last in batches (one per event-loop turn, so a long history does not
   * block writers), then switches the subscriber to live delivery in the same synchronous step that
   * reads the last rows: no commit can fall between, so there is no gap and no duplicate.
   */
  private replay(sub: Subscriber): void {
    if (sub.stopped || this.closed) return;
    if (sub.last < this.compacted) return this.hub.fail(sub, this.compactedError(sub.last));
    const start = sub.prefix;
    const end = prefixEnd(sub.prefix) ?? MAX_KEY;
    const rows = this.st.history.all(sub.last, start, end, BATCH);
    const events = rows.map(toEvent);
    if (rows.length < BATCH) {
      sub.last = Math.max(sub.last, this.rev);
      sub.live = true;
    } else {
      sub.last = (rows[rows.length - 1] as KvRow).id;
      setImmediate(() => this.replay(sub));
    }
    if (events.length > 0) this.hub.replay(sub, events);
  }

  async compact(revision: number): Promise<void> {
    this.checkOpen();
    if (revision > this.rev) {
      throw new StorageError("FutureRevision", `cannot compact at ${revision}: current revision is ${this.rev}`, {
        currentRevision: this.rev,
      });
    }
    const run = this.compaction.then(() => this.runCompaction(revision));
    this.compaction = run.catch(() => undefined);
    return run;
  }

  /**
   * Publishes the compacted revision first (reads and watches below it fail from then on), then
   * deletes superseded versions and delete rows in batches of BATCH revisions, one transaction each,
   * yielding to the event loop in between; "swept" records progress so an interrupted compaction is
   * finished by the next one. Never deletes the current version of a live key.
   */
  private async runCompaction(revision: number): Promise<void> {
    if (this.closed || revision <= this.compacted) return;
    this.st.metaSet.run("compacted", revision);
    this.compacted = revision;
    let lo = this.st.metaGet.get("swept")?.value ?? 0;
    const sweep = this.db.transaction((from: number, to: number) => {
      this.st.compactSuperseded.run(from, to);
      this.st.compactDeleted.run(from, to);
      this.st.metaSet.run("swept", to);
    });
    while (lo < revision) {
      if (this.closed) return;
      const hi = Math.min(revision, lo + BATCH);
      sweep.immediate(lo, hi);
      lo = hi;
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    if (!this.closed) this.db.pragma("wal_checkpoint(TRUNCATE)");
  }

  /** Rows in the history log and live keys (for metrics and tests). */
  stats(): { logRows: number; liveKeys: number } {
    this.checkOpen();
    const count = (table: "log" | "latest") =>
      (this.db.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number }).n;
    return { logRows: count("log"), liveKeys: count("latest") };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const sub of [...this.hub.subscribers]) this.hub.remove(sub);
    await this.compaction;
    this.db.close();
  }

  private write(key: string, apply: (cur: KvRow | undefined) => { result: KeyValue; event: StorageEvent }): KeyValue {
    this.checkOpen();
    const tx = this.db.transaction(() => apply(this.st.latestGet.get(key)));
    let out: { result: KeyValue; event: StorageEvent };
    try {
      out = tx.immediate();
    } catch (err) {
      throw mapSqliteError(err);
    }
    this.rev = out.result.modRevision;
    this.hub.publish([out.event]);
    return out.result;
  }

  private precondition(key: string, cur: KvRow | undefined, expected: number | undefined): KeyValue {
    if (!cur) throw new StorageError("NotFound", `key ${key} not found`, { key });
    const current = toKeyValue(cur);
    if (expected !== undefined && expected !== cur.id) {
      throw new StorageError("Conflict", `key ${key} was modified: expected revision ${expected}, found ${cur.id}`, {
        key,
        current,
      });
    }
    return current;
  }

  private compactedError(revision: number): StorageError {
    return new StorageError("Compacted", `revision ${revision} has been compacted (compacted revision ${this.compacted})`, {
      compactedRevision: this.compacted,
      currentRevision: this.rev,
    });
  }

  private checkOpen(): void {
    if (this.closed) throw new StorageError("Unavailable", "storage is closed");
  }
}

function mapSqliteError(err: unknown): unknown {
  if (err instanceof StorageError) return err;
  const code = (err as { code?: unknown }).code;
  if (code === "SQLITE_BUSY" || code === "SQLITE_LOCKED") {
    return new StorageError("Unavailable", "database is locked", {}, { cause: err });
  }
  return err;
}
