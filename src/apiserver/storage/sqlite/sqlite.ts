// Storage on an embedded SQLite database (better-sqlite3), with etcd v3 semantics.
//
// One writer: every write's log row id is its revision, assigned in commit order, so there are no
// gaps to wait for. Durability (ADR 0007): a write is acknowledged, and its event reaches watchers,
// only once the WAL holding it was fdatasync'ed. The writes go to a thread of their own
// (ADR 0020, writer.ts and writer-thread.ts): those of an event-loop turn are sent together, and
// the thread commits everything waiting as one group and syncs it before it answers. The main
// thread reads through a connection of its own and never shows a write before it is durable: the
// current revision is the durable one, lists read at it, and a get of a key with a write in flight
// waits for it. Without fsync (or in memory) the writes run on the main thread, each its own
// transaction, visible at once.
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
import { type Applied, appliedOf, applyWrite, type WriteOp } from "./apply.ts";
import { Hub, type Subscriber } from "./hub.ts";
import { MAX_KEY, SCHEMA, prepareStatements, toEvent, toKeyValue, type KvRow, type Statements } from "./schema.ts";
import { SQLiteWriter } from "./writer.ts";
import type { ThreadOp, ThreadResult } from "./writer-protocol.ts";

export interface SQLiteStorageOptions {
  /** Database file, or ":memory:". */
  path: string;
  /** How long a write waits for another connection's lock, in ms (default 10000). */
  busyTimeoutMs?: number;
  /**
   * Acknowledge a write only after it is on disk (default true). False: acknowledged once in the OS
   * (survives a process crash, not a power loss or kernel crash).
   */
  fsync?: boolean;
  /** Each fdatasync of the WAL that succeeded: its duration (start to callback) and the writes it made durable. */
  onSync?(seconds: number, writes: number): void;
}

/** An op sent to the writer thread, and whom to tell of its outcome. */
interface Ticket {
  /** The write (none for compaction's steps). */
  write?: WriteOp;
  resolve(result: KeyValue | undefined): void;
  reject(err: unknown): void;
}

/** Rows read per replay step of a watch, and revisions per compaction transaction. */
const BATCH = 1000;

export class SQLiteStorage implements Storage {
  readonly kind = "sqlite" as const;
  private readonly db: Database.Database;
  private readonly st: Statements;
  private readonly hub = new Hub();
  /** The last revision written here (without the writer thread). */
  private rev: number;
  /** The last durable revision: what readers and watchers see. */
  private durableRev: number;
  private readonly writer: SQLiteWriter<Ticket> | undefined;
  /** Keys with writes in flight on the writer thread, and how many. */
  private readonly pendingKeys = new Map<string, number>();
  /** Reads waiting for the writer's next answer. */
  private answerWaiters: (() => void)[] = [];
  private readonly writeTx: Database.Transaction<(w: WriteOp) => Applied>;
  private readonly onSync: ((seconds: number, writes: number) => void) | undefined;
  private compacted: number;
  private closed = false;
  private compaction: Promise<void> = Promise.resolve();

  constructor(options: SQLiteStorageOptions) {
    const busyTimeoutMs = options.busyTimeoutMs ?? 10_000;
    this.db = new Database(options.path, { timeout: busyTimeoutMs });
    this.db.pragma("journal_mode = WAL");
    this.db.pragma("synchronous = NORMAL");
    this.db.exec(SCHEMA);
    this.st = prepareStatements(this.db);
    this.rev = this.st.sequence.get()?.seq ?? 0;
    this.durableRev = this.rev;
    this.writeTx = this.db.transaction((w: WriteOp) => appliedOf(w, applyWrite(this.st, w, this.rev + 1)));
    this.onSync = options.onSync;
    const onDisk = options.path !== ":memory:" && options.path !== "";
    if (onDisk && options.fsync !== false) {
      SQLiteWriter.syncFileAndDir(options.path);
      this.writer = new SQLiteWriter(options.path, busyTimeoutMs, {
        done: (results, syncStartedAt) => this.onDurable(results, syncStartedAt),
        failed: (tickets, err, fatal) => this.onFailed(tickets, err, fatal),
      });
    }
    this.compacted = this.st.metaGet.get("compacted")?.value ?? 0;
  }

  async currentRevision(): Promise<number> {
    this.checkOpen();
    return this.durableRev;
  }

  async compactedRevision(): Promise<number> {
    this.checkOpen();
    return this.compacted;
  }

  async get(key: string): Promise<KeyValue | undefined> {
    this.checkOpen();
    while (this.pendingKeys.has(key)) {
      await new Promise<void>((resolve) => this.answerWaiters.push(resolve));
      this.checkOpen();
    }
    const row = this.st.latestGet.get(key);
    return row && toKeyValue(row);
  }

  async list(prefix: string, options: ListOptions = {}): Promise<ListResult> {
    this.checkOpen();
    const p = normalizePrefix(prefix);
    const start = rangeStart(p, options.startKey);
    const end = prefixEnd(p) ?? MAX_KEY;
    const current = this.durableRev;
    const revision = options.revision && options.revision > 0 ? options.revision : current;
    if (revision > current) {
      throw new StorageError("FutureRevision", `revision ${revision} is newer than the current revision ${current}`, {
        currentRevision: current,
      });
    }
    if (revision < this.compacted) throw this.compactedError(revision);
    // SQLite binds a JS number above 2^31 as REAL; no list is that long anyway.
    const limit = options.limit && options.limit > 0 ? Math.min(Math.floor(options.limit), 2 ** 31 - 2) : 0;
    // The latest table may hold commits that are not durable yet: then read as of the revision.
    const rows: KvRow[] =
      revision === this.durableRev && this.pendingKeys.size === 0
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
    return this.write({ op: "create", key, value });
  }

  async update(key: string, value: string, expectedModRevision: number): Promise<KeyValue> {
    return this.write({ op: "update", key, value, expected: expectedModRevision });
  }

  async delete(key: string, expectedModRevision?: number): Promise<KeyValue> {
    return this.write(expectedModRevision === undefined ? { op: "delete", key } : { op: "delete", key, expected: expectedModRevision });
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
    // Nothing to replay: live at once, so the next durable commit already reaches this watcher.
    if (afterRevision >= this.durableRev) sub.live = true;
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
    const rows = this.st.history.all(sub.last, this.durableRev, start, end, BATCH);
    const events = rows.map(toEvent);
    if (rows.length < BATCH) {
      sub.last = Math.max(sub.last, this.durableRev);
      sub.live = true;
    } else {
      sub.last = (rows[rows.length - 1] as KvRow).id;
      setImmediate(() => this.replay(sub));
    }
    if (events.length > 0) this.hub.replay(sub, events);
  }

  async compact(revision: number): Promise<void> {
    this.checkOpen();
    if (revision > this.durableRev) {
      throw new StorageError("FutureRevision", `cannot compact at ${revision}: current revision is ${this.durableRev}`, {
        currentRevision: this.durableRev,
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
   * finished by the next one. Never deletes the current version of a live key. With the writer
   * thread, each step is an op of its own there, between the writes.
   */
  private async runCompaction(revision: number): Promise<void> {
    if (this.closed || revision <= this.compacted) return;
    await this.step({ op: "meta", name: "compacted", value: revision });
    this.compacted = revision;
    let lo = this.st.metaGet.get("swept")?.value ?? 0;
    while (lo < revision) {
      if (this.closed) return;
      const hi = Math.min(revision, lo + BATCH);
      await this.step({ op: "sweep", from: lo, to: hi });
      lo = hi;
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    if (this.closed) return;
    await this.step({ op: "checkpoint" });
  }

  /** One of compaction's steps: on the writer thread, or here in a transaction of its own. */
  private async step(op: Exclude<ThreadOp, WriteOp>): Promise<void> {
    if (this.writer) {
      await new Promise<KeyValue | undefined>((resolve, reject) => this.writer!.submit(op, { resolve, reject }));
      return;
    }
    if (op.op === "checkpoint") this.db.pragma("wal_checkpoint(TRUNCATE)");
    else if (op.op === "meta") this.st.metaSet.run(op.name, op.value);
    else {
      this.db.transaction(() => {
        this.st.compactSuperseded.run(op.from, op.to);
        this.st.compactDeleted.run(op.from, op.to);
        this.st.metaSet.run("swept", op.to);
      }).immediate();
    }
  }

  /** fdatasyncs of the WAL so far (0 without fsync). */
  get syncs(): number {
    return this.writer?.groups ?? 0;
  }

  /** Group transactions committed so far (0 without fsync: then every write commits alone). */
  get groups(): number {
    return this.writer?.groups ?? 0;
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
    await this.writer?.close();
    this.wakeReaders();
    this.db.close();
  }

  private write(w: WriteOp): Promise<KeyValue> {
    this.checkOpen();
    const writer = this.writer;
    if (!writer) return Promise.resolve(this.writeHere(w));
    if (writer.error) throw new StorageError("Unavailable", `storage failed: ${writer.error.message}`);
    this.pendingKeys.set(w.key, (this.pendingKeys.get(w.key) ?? 0) + 1);
    return new Promise((resolve, reject) => writer.submit(w, { write: w, resolve: resolve as (kv: KeyValue | undefined) => void, reject }));
  }

  /** A write without the writer thread: its own transaction, visible (and published) at once. */
  private writeHere(w: WriteOp): KeyValue {
    let out: Applied;
    try {
      out = this.writeTx.immediate(w);
    } catch (err) {
      throw mapSqliteError(err);
    }
    this.rev = this.durableRev = out.result.modRevision;
    this.hub.publish([out.event]);
    return out.result;
  }

  /**
   * One group is durable: answer every op, then publish the writes' events in revision order in the
   * check phase, after node has sent the answers (docs/high-availability.md#a-groups-events-after-its-answers).
   * Watchers miss nothing and see nothing twice: one added meanwhile starts after the durable
   * revision or replays up to it, and the hub delivers only events after a watcher's last.
   */
  private onDurable(results: [Ticket, ThreadResult][], syncStartedAt: number): void {
    const events: StorageEvent[] = [];
    for (const [t, r] of results) {
      if (t.write) this.settleKey(t.write.key);
      if (!r.ok) {
        t.reject(new StorageError(r.code, r.message, r.extra));
        continue;
      }
      if (!r.written || !t.write) {
        t.resolve(undefined);
        continue;
      }
      const applied = appliedOf(t.write, r.written);
      this.durableRev = applied.result.modRevision;
      events.push(applied.event);
      t.resolve(applied.result);
    }
    if (events.length > 0) {
      setImmediate(() => {
        if (!this.closed) this.hub.publish(events);
      });
    }
    this.onSync?.((performance.timeOrigin + performance.now() - syncStartedAt) / 1000, events.length);
    this.wakeReaders();
  }

  /** None of these ops is stored: a SQLite error rolled their group back, or storage failed (fatal). */
  private onFailed(tickets: Ticket[], err: Error, fatal: boolean): void {
    const failure = fatal ? new StorageError("Unavailable", `storage failed: ${err.message}`, {}, { cause: err }) : mapSqliteError(err);
    for (const t of tickets) {
      if (t.write) this.settleKey(t.write.key);
      t.reject(failure);
    }
    this.wakeReaders();
  }

  private settleKey(key: string): void {
    const n = this.pendingKeys.get(key) ?? 0;
    if (n > 1) this.pendingKeys.set(key, n - 1);
    else this.pendingKeys.delete(key);
  }

  private wakeReaders(): void {
    for (const resolve of this.answerWaiters.splice(0)) resolve();
  }

  private compactedError(revision: number): StorageError {
    return new StorageError("Compacted", `revision ${revision} has been compacted (compacted revision ${this.compacted})`, {
      compactedRevision: this.compacted,
      currentRevision: this.durableRev,
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
