// The main thread's side of SQLiteStorage's writer thread (writer-thread.ts): the writes of an
// event-loop turn go to the thread as one message at the turn's end; the thread answers each group
// once its fdatasync completed, in the order the ops were sent. A crashed thread or a failed
// fdatasync fails every write not yet answered and every later one.
import { closeSync, fsyncSync, openSync } from "node:fs";
import { dirname } from "node:path";
import type { Worker } from "node:worker_threads";
import { startModuleThread } from "../../../utils/module-thread.ts";
import type { FromThread, ThreadOp, ThreadResult, ToThread } from "./writer-protocol.ts";

export interface WriterTarget<T> {
  /** One group made durable: each op's ticket with its result, in the order submitted. */
  done(results: [T, ThreadResult][], syncStartedAt: number): void;
  /** These ops failed and none of them is stored; `fatal`: no later op will succeed either. */
  failed(tickets: T[], err: Error, fatal: boolean): void;
}

export class SQLiteWriter<T> {
  private readonly thread: Worker;
  /** This turn's ops, sent at its end. */
  private ops: ThreadOp[] = [];
  private tickets: T[] = [];
  /** Tickets of the ops sent, oldest first. */
  private readonly sent: T[] = [];
  private idle: (() => void)[] = [];
  private exited: Promise<void>;
  /** Set once the thread failed or an fdatasync failed: every later op fails with it. */
  error: Error | undefined;
  /** Groups committed and made durable so far (each with one fdatasync). */
  groups = 0;

  constructor(path: string, busyTimeoutMs: number, private readonly target: WriterTarget<T>) {
    this.thread = startModuleThread(new URL("./writer-thread.ts", import.meta.url).href, { workerData: { path, busyTimeoutMs } });
    this.thread.unref();
    this.thread.on("message", (m: FromThread) => this.receive(m));
    this.thread.on("error", (err) => this.fail(new Error(`the SQLite writer thread failed: ${err.message}`, { cause: err })));
    this.exited = new Promise((resolve) =>
      this.thread.once("exit", (code) => {
        this.fail(new Error(`the SQLite writer thread exited (code ${code})`));
        resolve();
      }),
    );
  }

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

  /** Queues an op for this turn's message; its ticket comes back through the target. */
  submit(op: ThreadOp, ticket: T): void {
    if (this.error) return this.target.failed([ticket], this.error, true);
    if (this.ops.length === 0) setImmediate(() => this.send());
    this.ops.push(op);
    this.tickets.push(ticket);
  }

  /** Ops sent or queued and not answered yet. */
  get pending(): number {
    return this.sent.length + this.tickets.length;
  }

  /** Sends what is queued, waits until every op is answered, then closes the thread's connection. */
  async close(): Promise<void> {
    this.send();
    if (this.pending > 0 && !this.error) await new Promise<void>((resolve) => this.idle.push(resolve));
    this.thread.ref(); // until the thread has exited
    if (!this.error) this.post({ type: "close" });
    else void this.thread.terminate();
    await this.exited;
  }

  private send(): void {
    if (this.ops.length === 0) return;
    const ops = this.ops;
    this.sent.push(...this.tickets);
    this.ops = [];
    this.tickets = [];
    if (this.error) return this.target.failed(this.sent.splice(0), this.error, true);
    this.thread.ref(); // writes in flight keep the process alive
    this.post({ type: "ops", ops });
  }

  private post(m: ToThread): void {
    this.thread.postMessage(m);
  }

  private receive(m: FromThread): void {
    if (m.type === "closed") return;
    if (m.type === "done") {
      const tickets = this.sent.splice(0, m.results.length);
      this.groups++;
      this.target.done(tickets.map((t, i) => [t, m.results[i]!]), m.syncStartedAt);
    } else {
      const err = Object.assign(new Error(m.message), m.code ? { code: m.code } : {});
      if (m.fatal) this.error ??= err;
      this.target.failed(this.sent.splice(0, m.count), err, m.fatal);
    }
    this.settle();
  }

  /** The thread is gone (or failed): nothing sent will be answered. */
  private fail(err: Error): void {
    this.error ??= err;
    const lost = [...this.sent.splice(0), ...this.tickets.splice(0)];
    this.ops = [];
    if (lost.length > 0) this.target.failed(lost, this.error, true);
    this.settle();
  }

  private settle(): void {
    if (this.sent.length > 0) return;
    this.thread.unref();
    if (this.tickets.length === 0) for (const resolve of this.idle.splice(0)) resolve();
  }
}
