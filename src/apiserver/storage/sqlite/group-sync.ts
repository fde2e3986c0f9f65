// Group commit for SQLiteStorage: a write is acknowledged only after the WAL file holding its
// commit was fdatasync'ed. The fdatasync runs in libuv's thread pool, off the event loop; the
// commits made while one runs share the next one, so many concurrent writers pay for few syncs.
//
// SQLite itself runs with synchronous=NORMAL: its COMMIT appends to the WAL without syncing, and
// it syncs the WAL before every checkpoint and the database file after it. Syncing the WAL after
// each group of commits, before answering, gives synchronous=FULL's guarantee without blocking the
// event loop. fdatasync applies to the file, whichever descriptor wrote it.
import { closeSync, fdatasync, fsyncSync, openSync } from "node:fs";
import { dirname } from "node:path";

export interface Waiting<T> {
  /** The commit's revision. */
  rev: number;
  value: T;
}

export interface SyncTarget<T> {
  /** Called once per completed sync, in revision order, with the commits it made durable. */
  durable(batch: Waiting<T>[]): void;
  /** The sync failed: these commits may be lost; no later commit will be reported durable. */
  failed(batch: Waiting<T>[], err: Error): void;
  /** A sync completed (or failed) and the next one starts right after this call: commits added now are in it. */
  synced?(): void;
  /** A sync succeeded: how long from its start until the event loop heard of it, and how many commits it made durable. */
  observed?(seconds: number, commits: number): void;
}

export class GroupSync<T> {
  private fd: number | undefined;
  private waiting: Waiting<T>[] = [];
  private scheduled = false;
  private running = false;
  private idle: (() => void)[] = [];
  /** Set by the first failed sync: every later commit fails too (the page cache is untrustworthy). */
  error: Error | undefined;
  /** Syncs run so far. */
  syncs = 0;

  constructor(
    private readonly walPath: string,
    private readonly target: SyncTarget<T>,
  ) {}

  /** Makes the database file and its directory entry durable (once, at open). */
  static syncFileAndDir(path: string): void {
    for (const p of [path, dirname(path)]) {
      const fd = openSync(p, "r");
      try {
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
    }
  }

  /** A commit that is in the WAL (in the page cache), to be made durable by the next sync. */
  add(rev: number, value: T): void {
    if (this.error) return this.target.failed([{ rev, value }], this.error);
    this.waiting.push({ rev, value });
    this.schedule();
  }

  /** Commits made together (one transaction): their sync starts at once, or after the running one. */
  addNow(commits: Waiting<T>[]): void {
    if (commits.length === 0) return;
    if (this.error) return this.target.failed(commits, this.error);
    this.waiting.push(...commits);
    if (!this.running) this.run();
  }

  get pending(): boolean {
    return this.running || this.waiting.length > 0;
  }

  /** A sync is running: commits added now wait for the next one. */
  get syncing(): boolean {
    return this.running;
  }

  /** Resolves when every commit added so far was synced (or failed). */
  drained(): Promise<void> {
    if (!this.pending) return Promise.resolve();
    return new Promise((resolve) => this.idle.push(resolve));
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }

  /**
   * Starts the sync after the current event-loop turn, so the commits of the requests handled in
   * this turn share it; while a sync runs, new commits wait for the next one.
   */
  private schedule(): void {
    if (this.scheduled || this.running) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.run();
    });
  }

  private run(): void {
    if (this.running) return;
    const batch = this.waiting;
    if (batch.length === 0) {
      for (const resolve of this.idle.splice(0)) resolve();
      return;
    }
    this.waiting = [];
    this.running = true;
    this.syncs++;
    let fd: number;
    try {
      fd = this.fd ??= openSync(this.walPath, "r");
    } catch (err) {
      return this.finish(batch, err as Error);
    }
    const started = performance.now();
    fdatasync(fd, (err) => this.finish(batch, err ?? undefined, started));
  }

  private finish(batch: Waiting<T>[], err: Error | undefined, started?: number): void {
    this.running = false;
    if (err && !this.error) this.error = new Error(`fdatasync of ${this.walPath} failed: ${err.message}`, { cause: err });
    if (this.error) {
      const all = [...batch, ...this.waiting.splice(0)];
      this.target.failed(all, this.error);
    } else {
      if (started !== undefined) this.target.observed?.((performance.now() - started) / 1000, batch.length);
      this.target.durable(batch);
    }
    this.target.synced?.();
    this.run();
  }
}
