// Storage on an embedded SQLite database (better-sqlite3), with etcd v3 semantics.
//
// One synchronous writer: every write is one IMMEDIATE transaction whose log row id is the new
// revision, so revisions are assigned in commit order and there are no gaps to wait for.
// Durability (ADR 0007): a write is acknowledged, and its event reaches watchers, only once the WAL
// holding it was fdatasync'ed. Group commit: the writes of an event-loop turn share one SQLite
// transaction, committed at the turn's end or, while a sync runs, when it completes (a SQLite error
// in one write fails the group); commits share one fdatasync, which runs off the event loop (group-sync.ts). Reads never show a commit before it is durable: the current revision
// is the durable one, lists read at it, and a get of a key with a commit still syncing waits for it.
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
import { GroupSync } from "./group-sync.ts";
import { Hub, type Subscriber } from "./hub.ts";
import { MAX_KEY, SCHEMA, prepareStatements, toEvent, toKeyValue, type KvRow, type Statements } from "./schema.ts";

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

/** One write inside a transaction; `current` reads the key's live row (a create reads it only on conflict). */
type Apply = (current: () => KvRow | undefined) => { result: KeyValue; event: StorageEvent };

interface Commit {
  key: string;
  result: KeyValue;
  event: StorageEvent;
  resolve(kv: KeyValue): void;
  reject(err: unknown): void;
}

/** Rows read per replay step of a watch, and revisions per compaction transaction. */
const BATCH = 1000;

export class SQLiteStorage implements Storage {
  readonly kind = "sqlite" as const;
  private readonly db: Database.Database;
  private readonly st: Statements;
  private readonly hub = new Hub();
  /** The last committed revision (assigned to writes). */
  private rev: number;
  /** The last durable revision: what readers and watchers see. */
  private durableRev: number;
  private readonly sync: GroupSync<Commit> | undefined;
  /** Keys with a commit not yet durable, and that commit's revision. */
  private readonly syncingKeys = new Map<string, number>();
  private durableWaiters: { rev: number; resolve: () => void }[] = [];
  /** Writes in the open group transaction, and the revision committed before it began. */
  private batch: Commit[] = [];
  private batchBase = 0;
  /** The open group waits for the running sync to complete before it commits. */
  private commitAfterSync = false;
  private committedGroups = 0;
  private readonly writeTx: Database.Transaction<(key: string, apply: Apply) => { result: KeyValue; event: StorageEvent }>;
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
    this.durableRev = this.rev;
    this.writeTx = this.db.transaction((key: string, apply: Apply) => apply(() => this.st.latestGet.get(key)));
    const onDisk = options.path !== ":memory:" && options.path !== "";
    if (onDisk && options.fsync !== false) {
      GroupSync.syncFileAndDir(options.path);
      this.sync = new GroupSync(`${options.path}-wal`, {
        durable: (batch) => this.onDurable(batch.map((w) => w.value)),
        failed: (batch, err) => this.onSyncFailed(batch.map((w) => w.value), err),
        synced: () => this.commitDeferred(),
        ...(options.onSync ? { observed: options.onSync } : {}),
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
    for (let rev = this.syncingKeys.get(key); rev !== undefined; rev = this.syncingKeys.get(key)) {
      await this.durableAt(rev);
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
    return this.write(key, (current) => {
      const rev = this.rev + 1;
      // The live-key row first: a key that exists fails it, and nothing was written. No read before.
      try {
        this.st.latestAdd.run(key, rev);
      } catch (err) {
        const cur = isKeyConflict(err) ? current() : undefined;
        if (cur) throw new StorageError("KeyExists", `key ${key} already exists`, { key, current: toKeyValue(cur) });
        throw err;
      }
      // A create has no previous version (an earlier incarnation's delete row is compacted as a delete).
      this.st.insert.run(rev, key, value, 1, 0, rev, 0);
      const kv: KeyValue = { key, value, createRevision: rev, modRevision: rev };
      return { result: kv, event: { type: "put", kv } };
    });
  }

  async update(key: string, value: string, expectedModRevision: number): Promise<KeyValue> {
    return this.write(key, (current) => {
      const prev = this.precondition(key, current(), expectedModRevision);
      const rev = this.rev + 1;
      this.st.insert.run(rev, key, value, 0, 0, prev.createRevision, prev.modRevision);
      this.st.latestSet.run(key, rev);
      const kv: KeyValue = { key, value, createRevision: prev.createRevision, modRevision: rev };
      return { result: kv, event: { type: "put", kv, prev } };
    });
  }

  async delete(key: string, expectedModRevision?: number): Promise<KeyValue> {
    return this.write(key, (current) => {
      const prev = this.precondition(key, current(), expectedModRevision);
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
   * finished by the next one. Never deletes the current version of a live key.
   */
  private async runCompaction(revision: number): Promise<void> {
    if (this.closed || revision <= this.compacted) return;
    this.commitBatch(); // compaction's own transactions stay out of the writers' group
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
      this.commitBatch();
      sweep.immediate(lo, hi);
      lo = hi;
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    if (this.closed) return;
    this.commitBatch();
    this.db.pragma("wal_checkpoint(TRUNCATE)");
  }

  /** fdatasyncs of the WAL so far (0 without fsync). */
  get syncs(): number {
    return this.sync?.syncs ?? 0;
  }

  /** Group transactions committed so far (0 without fsync: then every write commits alone). */
  get groups(): number {
    return this.committedGroups;
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
    this.commitBatch();
    await this.sync?.drained();
    this.sync?.close();
    for (const w of this.durableWaiters.splice(0)) w.resolve();
    this.db.close();
  }

  private write(key: string, apply: Apply): Promise<KeyValue> {
    this.checkOpen();
    const sync = this.sync;
    if (sync?.error) throw new StorageError("Unavailable", `storage failed: ${sync.error.message}`);
    let out: { result: KeyValue; event: StorageEvent };
    try {
      if (sync && !this.db.inTransaction) this.beginBatch();
      out = sync ? apply(() => this.st.latestGet.get(key)) : this.writeTx.immediate(key, apply);
    } catch (err) {
      // A refused write (a StorageError) changed nothing; a SQLite error may have left half a
      // write in the group transaction, so the whole group is rolled back and fails with it.
      if (sync && !(err instanceof StorageError)) this.abortBatch(err);
      throw mapSqliteError(err);
    }
    const rev = out.result.modRevision;
    this.rev = rev;
    if (!sync) {
      this.durableRev = rev;
      this.hub.publish([out.event]);
      return Promise.resolve(out.result);
    }
    this.syncingKeys.set(key, rev);
    return new Promise((resolve, reject) => this.batch.push({ key, ...out, resolve, reject }));
  }

  /**
   * Opens a group transaction for the writes of this event-loop turn: it commits at the turn's end,
   * so its sync runs while the next requests are worked on (the server starts a few per turn:
   * docs/high-availability.md#requests-paced-per-turn). If a sync is running then, it commits when
   * that sync completes: its writes could not be made durable any sooner, and later turns' writes
   * join it meanwhile.
   */
  private beginBatch(): void {
    this.db.exec("BEGIN IMMEDIATE");
    this.batchBase = this.rev;
    setImmediate(() => this.endGroupTurn());
  }

  private endGroupTurn(): void {
    if (!this.db.inTransaction) return;
    if (this.sync?.syncing) this.commitAfterSync = true;
    else this.commitBatch();
  }

  private commitDeferred(): void {
    if (!this.commitAfterSync) return;
    this.commitAfterSync = false;
    this.commitBatch();
  }

  /** Commits the group transaction and hands its writes to the sync; a failed COMMIT fails them all. */
  private commitBatch(): void {
    if (!this.sync || !this.db.inTransaction) return;
    const batch = this.batch;
    try {
      this.db.exec("COMMIT");
    } catch (err) {
      this.abortBatch(err);
      return;
    }
    this.batch = [];
    this.committedGroups++;
    this.sync.addNow(batch.map((c) => ({ rev: c.result.modRevision, value: c })));
  }

  /** Rolls the group transaction back: its writes fail with err and their revisions will be reused. */
  private abortBatch(err: unknown): void {
    const batch = this.batch;
    this.batch = [];
    try {
      this.db.exec("ROLLBACK");
    } catch {
      // already rolled back by SQLite
    }
    this.rev = this.batchBase;
    const failure = mapSqliteError(err);
    for (const c of batch) {
      if (this.syncingKeys.get(c.key) === c.result.modRevision) this.syncingKeys.delete(c.key);
      c.reject(failure);
    }
    // Reads waiting for these revisions look again.
    for (const w of this.durableWaiters.splice(0)) w.resolve();
  }

  /** One sync made these commits (in revision order) durable: publish and acknowledge them. */
  private onDurable(batch: Commit[]): void {
    const last = batch[batch.length - 1];
    if (!last) return;
    this.durableRev = last.result.modRevision;
    for (const c of batch) if (this.syncingKeys.get(c.key) === c.result.modRevision) this.syncingKeys.delete(c.key);
    if (!this.closed) this.hub.publish(batch.map((c) => c.event));
    for (const c of batch) c.resolve(c.result);
    this.wakeDurable();
  }

  private onSyncFailed(batch: Commit[], err: Error): void {
    const failure = new StorageError("Unavailable", `storage failed: ${err.message}`, {}, { cause: err });
    for (const c of batch) c.reject(failure);
    this.syncingKeys.clear();
    for (const w of this.durableWaiters.splice(0)) w.resolve();
  }

  private durableAt(rev: number): Promise<void> {
    if (this.durableRev >= rev || this.sync?.error) return Promise.resolve();
    return new Promise((resolve) => this.durableWaiters.push({ rev, resolve }));
  }

  private wakeDurable(): void {
    if (this.durableWaiters.length === 0) return;
    const still: typeof this.durableWaiters = [];
    for (const w of this.durableWaiters) {
      if (w.rev <= this.durableRev) w.resolve();
      else still.push(w);
    }
    this.durableWaiters = still;
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

/** A create's INSERT into `latest` hit a live key. */
function isKeyConflict(err: unknown): boolean {
  return (err as { code?: unknown }).code === "SQLITE_CONSTRAINT_PRIMARYKEY";
}
