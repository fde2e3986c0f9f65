// The audit log backend: events as JSON lines, written off the request path. Requests only queue
// an event; a writer turns queued events into lines and appends them, one write per batch. The
// queue is bounded: beyond it events are dropped and counted (as kube-apiserver's buffered
// backends do), never the request held up. Rotation as kube-apiserver's (lumberjack): past
// maxSizeMB the file is renamed to <name>-<UTC time>.<ext> and a new one started; backups beyond
// maxBackups or older than maxAgeDays are removed. Path "-" writes to standard output.
import { createWriteStream, type WriteStream } from "node:fs";
import { open, readdir, rename, unlink, type FileHandle } from "node:fs/promises";
import { basename, dirname, extname, join } from "node:path";

export interface AuditLogOptions {
  /** File path, or "-" for standard output. */
  path: string;
  /** Rotate past this size in MB (0: 100 when maxBackups or maxAgeDays is set; else no rotation). */
  maxSizeMB?: number;
  /** Rotated files kept (0: all). */
  maxBackups?: number;
  /** Days rotated files are kept (0: forever). */
  maxAgeDays?: number;
  /** Events queued at most (default 10000). */
  bufferSize?: number;
  /** For tests: the time used in backup names and ages. */
  now?: () => Date;
  /** Called (at most once per second) when events were dropped. */
  onDrop?: (dropped: number) => void;
  /** A write or rotation failed (its events are lost; later events are tried again). */
  onError?: (err: unknown) => void;
}

export interface AuditSink {
  /** Queues an event; false if it was dropped because the queue is full. */
  write(event: object): boolean;
  /** Writes everything queued so far. */
  flush(): Promise<void>;
  close(): Promise<void>;
  readonly dropped: number;
}

const MB = 1024 * 1024;
/** Lines written per write() call at most. */
const BATCH = 512;

/** lumberjack's backup time format, in UTC: 2006-01-02T15-04-05.000 */
export function backupName(path: string, at: Date): string {
  const ext = extname(path);
  const stem = basename(path, ext);
  const t = at.toISOString().replace(/:/g, "-").replace(/Z$/, "");
  return join(dirname(path), `${stem}-${t}${ext}`);
}

export class AuditLog implements AuditSink {
  private queue: object[] = [];
  private writing: Promise<void> | undefined;
  private file: FileHandle | undefined;
  private stdout: WriteStream | undefined;
  private size = 0;
  private closed = false;
  private lastDropReport = 0;
  dropped = 0;
  private readonly maxBytes: number;
  private readonly bufferSize: number;
  private readonly now: () => Date;

  constructor(private readonly o: AuditLogOptions) {
    const rotating = (o.maxSizeMB ?? 0) > 0 || (o.maxBackups ?? 0) > 0 || (o.maxAgeDays ?? 0) > 0;
    this.maxBytes = rotating ? (o.maxSizeMB || 100) * MB : Infinity;
    this.bufferSize = o.bufferSize ?? 10_000;
    this.now = o.now ?? (() => new Date());
  }

  /** Opens (creates, appends to) the file; fails at start-up rather than at the first event. */
  async open(): Promise<this> {
    if (this.o.path === "-") {
      this.stdout = createWriteStream("", { fd: 1, autoClose: false });
      return this;
    }
    this.file = await open(this.o.path, "a", 0o600);
    this.size = (await this.file.stat()).size;
    return this;
  }

  write(event: object): boolean {
    if (this.closed) return false;
    if (this.queue.length >= this.bufferSize) {
      this.dropped++;
      const t = Date.now();
      if (t - this.lastDropReport >= 1000) {
        this.lastDropReport = t;
        this.o.onDrop?.(this.dropped);
      }
      return false;
    }
    this.queue.push(event);
    if (!this.writing) this.writing = new Promise<void>((resolve) => setImmediate(resolve)).then(() => this.drain());
    return true;
  }

  async flush(): Promise<void> {
    while (this.writing) await this.writing;
  }

  async close(): Promise<void> {
    await this.flush();
    this.closed = true;
    await this.file?.close();
    this.file = undefined;
  }

  private async drain(): Promise<void> {
    try {
      while (this.queue.length > 0) {
        const batch = this.queue.splice(0, BATCH);
        const text = batch.map((e) => JSON.stringify(e)).join("\n") + "\n";
        try {
          await this.append(Buffer.from(text));
        } catch (err) {
          this.dropped += batch.length;
          this.o.onError?.(err);
        }
      }
    } finally {
      this.writing = undefined;
    }
  }

  private async append(buf: Buffer): Promise<void> {
    if (this.stdout) {
      const out = this.stdout;
      await new Promise<void>((resolve, reject) => out.write(buf, (err) => (err ? reject(err) : resolve())));
      return;
    }
    if (this.size > 0 && this.size + buf.length > this.maxBytes) await this.rotate();
    await this.file?.write(buf);
    this.size += buf.length;
  }

  private async rotate(): Promise<void> {
    await this.file?.close();
    await rename(this.o.path, backupName(this.o.path, this.now()));
    this.file = await open(this.o.path, "a", 0o600);
    this.size = 0;
    await this.prune();
  }

  /** Removes backups beyond maxBackups (oldest first) and older than maxAgeDays. */
  private async prune(): Promise<void> {
    const dir = dirname(this.o.path);
    const ext = extname(this.o.path);
    const stem = basename(this.o.path, ext);
    const pattern = new RegExp(`^${escape(stem)}-\\d{4}-\\d{2}-\\d{2}T\\d{2}-\\d{2}-\\d{2}\\.\\d{3}${escape(ext)}$`);
    const names = (await readdir(dir)).filter((n) => pattern.test(n)).sort(); // the name sorts by time
    const remove = new Set<string>();
    const keep = this.o.maxBackups ?? 0;
    if (keep > 0) for (const n of names.slice(0, Math.max(0, names.length - keep))) remove.add(n);
    const maxAge = this.o.maxAgeDays ?? 0;
    if (maxAge > 0) {
      const cutoff = this.now().getTime() - maxAge * 24 * 3600 * 1000;
      for (const n of names) {
        const t = Date.parse(`${n.slice(stem.length + 1, stem.length + 1 + 23).replace(/T(\d{2})-(\d{2})-(\d{2})/, "T$1:$2:$3")}Z`);
        if (Number.isFinite(t) && t < cutoff) remove.add(n);
      }
    }
    for (const n of remove) await unlink(join(dir, n)).catch(() => undefined);
  }
}

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
