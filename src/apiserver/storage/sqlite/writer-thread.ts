// The writer thread of SQLiteStorage (docs/adr/0020-sqlite-writer-thread.md): its own connection
// makes every write. The ops of every message waiting are one group: one transaction, one COMMIT,
// then one fdatasync of the WAL, and only then the answer. Revisions are assigned here, in commit
// order; a group rolled back gives its revisions to the next. The thread runs at the highest
// priority (WRITER_NICE) where the process may raise it.
import { closeSync, fdatasyncSync, openSync } from "node:fs";
import { setPriority } from "node:os";
import { parentPort, receiveMessageOnPort, workerData } from "node:worker_threads";
import Database from "better-sqlite3";
import { StorageError } from "../interface.ts";
import { applyWrite } from "./apply.ts";
import { prepareStatements } from "./schema.ts";
import { type FromThread, type ThreadOp, type ThreadResult, type ToThread, WRITER_NICE } from "./writer-protocol.ts";

try {
  setPriority(WRITER_NICE); // this thread's own (Linux keeps a nice value per thread)
} catch {
  // Not permitted (no CAP_SYS_NICE): the thread shares the process's priority.
}

const port = parentPort!;
const { path, busyTimeoutMs } = workerData as { path: string; busyTimeoutMs: number };
const db = new Database(path, { timeout: busyTimeoutMs });
db.pragma("journal_mode = WAL");
db.pragma("synchronous = NORMAL");
const st = prepareStatements(db);
let rev = st.sequence.get()?.seq ?? 0;
let walFd: number | undefined;
/** Set by the first failed fdatasync: the page cache cannot be trusted, so nothing is acknowledged any more. */
let fatal: string | undefined;

const post = (m: FromThread) => port.postMessage(m);

port.on("message", (first: ToThread) => {
  let closing = first.type === "close";
  const ops: ThreadOp[] = first.type === "ops" ? [...first.ops] : [];
  for (let m = receiveMessageOnPort(port); m; m = receiveMessageOnPort(port)) {
    const next = m.message as ToThread;
    if (next.type === "close") closing = true;
    else ops.push(...next.ops);
  }
  if (ops.length > 0) runGroup(ops);
  if (closing) {
    if (walFd !== undefined) closeSync(walFd);
    db.close();
    post({ type: "closed" });
    port.close();
  }
});

function runGroup(ops: ThreadOp[]): void {
  if (fatal) return post({ type: "failed", count: ops.length, message: fatal, fatal: true });
  const base = rev;
  const results: ThreadResult[] = [];
  let checkpoint = false;
  try {
    db.exec("BEGIN IMMEDIATE");
    for (const o of ops) {
      if (o.op === "checkpoint") checkpoint = true;
      else if (o.op === "meta") st.metaSet.run(o.name, o.value);
      else if (o.op === "sweep") {
        st.compactSuperseded.run(o.from, o.to);
        st.compactDeleted.run(o.from, o.to);
        st.metaSet.run("swept", o.to);
      } else {
        results.push(write(o));
        continue;
      }
      results.push({ ok: true });
    }
    db.exec("COMMIT");
  } catch (err) {
    if (db.inTransaction) db.exec("ROLLBACK");
    rev = base;
    return post({ type: "failed", count: ops.length, message: (err as Error).message, code: (err as { code?: string }).code, fatal: false });
  }
  const syncStartedAt = performance.timeOrigin + performance.now();
  try {
    fdatasyncSync((walFd ??= openSync(`${path}-wal`, "r")));
  } catch (err) {
    fatal = `fdatasync of ${path}-wal failed: ${(err as Error).message}`;
    return post({ type: "failed", count: ops.length, message: fatal, fatal: true });
  }
  post({ type: "done", results, syncStartedAt });
  if (checkpoint) db.pragma("wal_checkpoint(TRUNCATE)");
}

/** A write refused by its precondition changed nothing and leaves the group alone; any other error fails the group. */
function write(o: Extract<ThreadOp, { key: string }>): ThreadResult {
  try {
    const written = applyWrite(st, o, rev + 1);
    rev++;
    return { ok: true, written };
  } catch (err) {
    if (!(err instanceof StorageError)) throw err;
    return { ok: false, code: err.code, message: err.message, extra: err.extra };
  }
}
