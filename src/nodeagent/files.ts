// File operations of the node agent, all relative to its root ("/" on a machine, a temp dir in
// tests): atomic writes with mode and owner, and chown that is skipped where it cannot work (an
// unprivileged test process may only give files to itself).
import { randomBytes } from "node:crypto";
import { chmod, chown, lstat, mkdir, open, readFile, rename, rm } from "node:fs/promises";
import { dirname, join } from "node:path";

export interface Owner {
  uid: number;
  gid: number;
}

export const ROOT_OWNER: Owner = { uid: 0, gid: 0 };

/** The host path of an absolute machine path under root. */
export function under(root: string, path: string): string {
  return join(root, path);
}

function mayChown(owner: Owner): boolean {
  const me = process.getuid?.();
  return me === 0 || me === owner.uid;
}

export async function chownIfPossible(path: string, owner: Owner): Promise<void> {
  if (mayChown(owner)) await chown(path, owner.uid, owner.gid);
}

export async function readIfExists(path: string): Promise<Buffer | undefined> {
  try {
    return await readFile(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw err;
  }
}

/** True when the file holds exactly `content` with exactly `mode` and (where checkable) `owner`. */
export async function fileIs(path: string, content: Buffer, mode: number, owner: Owner): Promise<boolean> {
  const [data, st] = await Promise.all([readIfExists(path), lstat(path).catch(() => undefined)]);
  if (!data || !st || !st.isFile() || !data.equals(content)) return false;
  if ((st.mode & 0o7777) !== mode) return false;
  return !mayChown(owner) || (st.uid === owner.uid && st.gid === owner.gid);
}

/**
 * Writes `content` atomically: a temporary file in the same directory, created with `mode`,
 * given to `owner`, flushed, then renamed over `path`. Readers never see a partial file.
 * Returns false when the file was already exactly so (nothing written).
 */
export async function writeFileAtomic(path: string, content: Buffer, mode: number, owner: Owner): Promise<boolean> {
  if (await fileIs(path, content, mode, owner)) return false;
  const dir = dirname(path);
  await mkdir(dir, { recursive: true });
  const tmp = join(dir, `.${randomBytes(6).toString("hex")}.tmp`);
  const fh = await open(tmp, "wx", mode);
  try {
    await fh.chmod(mode); // the umask may have taken bits away
    if (mayChown(owner)) await fh.chown(owner.uid, owner.gid);
    await fh.writeFile(content);
    await fh.sync();
  } catch (err) {
    await fh.close();
    await rm(tmp, { force: true });
    throw err;
  }
  await fh.close();
  try {
    await rename(tmp, path);
  } catch (err) {
    await rm(tmp, { force: true });
    throw err;
  }
  return true;
}

/** Ensures a directory with exactly `mode` and `owner` (created if missing). */
export async function ensureDir(path: string, mode: number, owner: Owner): Promise<void> {
  await mkdir(path, { recursive: true, mode });
  const st = await lstat(path);
  if (!st.isDirectory()) throw new Error(`${path} exists and is not a directory`);
  if ((st.mode & 0o7777) !== mode) await chmod(path, mode);
  if (mayChown(owner) && (st.uid !== owner.uid || st.gid !== owner.gid)) await chown(path, owner.uid, owner.gid);
}

/** Removes a file; true when there was one. */
export async function removeFile(path: string): Promise<boolean> {
  try {
    await rm(path);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return false;
    throw err;
  }
}
