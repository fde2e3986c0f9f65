// A lock file shared by processes: `withFileLock(path, fn)` creates `path` with O_EXCL (holding our pid),
// runs fn and removes it. Two gardenlet/provider processes updating one address book thus never
// read-modify-write it at the same time (docs/machines.md, "Networks and firewalls").
//
// A lock left by a process that died is stale: its pid is no longer alive. Breaking it is itself done
// under a second O_EXCL file (`path.break`), and the lock is re-read there, so two waiters that both saw
// the dead pid never remove a lock a third process has taken meanwhile. A `.break` file only lives for
// the few microseconds of that check; one older than BREAK_STALE_MS was left by a crash and is removed.
import { open, readFile, stat, unlink } from "node:fs/promises";

const BREAK_STALE_MS = 5_000;

export class FileLockTimeoutError extends Error {
  override readonly name = "FileLockTimeoutError";
}

export interface FileLockOptions {
  /** Give up after this long (default 30 s): a live holder never keeps the lock for more than one update. */
  timeoutMs?: number;
}

export async function withFileLock<T>(path: string, fn: () => Promise<T>, o: FileLockOptions = {}): Promise<T> {
  const deadline = Date.now() + (o.timeoutMs ?? 30_000);
  let wait = 1;
  while (!(await tryCreate(path))) {
    if (await holderIsDead(path)) {
      await breakStale(path);
      continue;
    }
    if (Date.now() > deadline) throw new FileLockTimeoutError(`lock ${path} is held by process ${(await readHolder(path)) ?? "?"} for too long`);
    await new Promise((r) => setTimeout(r, wait + Math.random() * wait));
    wait = Math.min(wait * 2, 25);
  }
  try {
    return await fn();
  } finally {
    await unlink(path).catch(() => {});
  }
}

async function tryCreate(path: string): Promise<boolean> {
  try {
    const fh = await open(path, "wx", 0o600);
    try {
      await fh.writeFile(`${process.pid}\n`);
    } finally {
      await fh.close();
    }
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw err;
  }
}

/** The holder's pid; undefined when the lock is gone or its holder has not written its pid yet. */
async function readHolder(path: string): Promise<number | undefined> {
  try {
    const pid = Number.parseInt(await readFile(path, "utf8"), 10);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

async function holderIsDead(path: string): Promise<boolean> {
  const pid = await readHolder(path);
  if (pid !== undefined) return !alive(pid);
  // An empty lock file: its creator is between open and write, or died there.
  try {
    return Date.now() - (await stat(path)).mtimeMs > BREAK_STALE_MS;
  } catch {
    return false;
  }
}

async function breakStale(path: string): Promise<void> {
  const breaker = `${path}.break`;
  if (!(await tryCreate(breaker))) {
    try {
      if (Date.now() - (await stat(breaker)).mtimeMs > BREAK_STALE_MS) await unlink(breaker);
    } catch {
      // gone meanwhile
    }
    await new Promise((r) => setTimeout(r, 1));
    return;
  }
  try {
    if (await holderIsDead(path)) await unlink(path).catch(() => {});
  } finally {
    await unlink(breaker).catch(() => {});
  }
}
