// The machine image: the root file system a machine boots from, made once per state directory as a VM
// image would be (docs/machines.md). It holds a generated /etc (the host's, without its secrets: no SSH host
// keys, no password hashes, no TLS private keys, no sudoers drop-ins), empty /var, /home, /root, /tmp and
// mount points, and the host's top-level symlinks (/bin -> usr/bin on a merged-/usr system). Every file is
// owned by the machines' id range (host id = base + id), so a machine's root owns it; each machine sees it
// through an overlay whose upper layer is its own. The system directories (/usr and any of /bin, /lib...
// that are real directories) are not copied: machines get them as read-only idmapped binds (nsutil idmap).
import { existsSync } from "node:fs";
import { chmod, lchown, lstat, mkdir, readFile, readdir, readlink, rename, rm, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { HostContext } from "./context.ts";

/** Bumped when the image's contents change, so existing state directories rebuild theirs. */
const IMAGE_VERSION = 1;
/** Top-level host paths that machines see read-only from the host (as symlinks or idmapped binds). */
export const SYSTEM_DIRS = ["usr", "bin", "sbin", "lib", "lib32", "lib64", "libx32"] as const;
const EMPTY_DIRS: ReadonlyArray<readonly [string, number]> = [
  ["home", 0o755], ["root", 0o700], ["tmp", 0o1777], ["proc", 0o555], ["sys", 0o555], ["dev", 0o755], ["run", 0o755],
  ["mnt", 0o755], ["media", 0o755], ["opt", 0o755], ["srv", 0o755], ["var", 0o755], ["var/tmp", 0o1777], ["var/log", 0o755],
  ["var/lib", 0o755], ["var/cache", 0o755], ["var/spool", 0o755], ["var/mail", 0o2775], ["var/local", 0o755], ["var/backups", 0o755],
];

/**
 * One directory per image version and id range: an image is never changed or removed while machines may
 * use it as their lower layer (removeAll removes them all with the state directory's other files).
 */
export function imageDir(ctx: Pick<HostContext, "stateDir" | "ids">): string {
  return join(ctx.stateDir, "image", `v${IMAGE_VERSION}-${ctx.ids.base}`);
}

/** The system directories of the host that are real directories (each becomes an idmapped bind). */
export async function systemBinds(): Promise<string[]> {
  const out: string[] = [];
  for (const d of SYSTEM_DIRS) {
    const st = await lstat(`/${d}`).catch(() => undefined);
    if (st?.isDirectory()) out.push(d);
  }
  return out;
}

const building = new Map<string, Promise<string>>();

/** The image directory, built when missing or out of date. */
export function ensureImage(ctx: HostContext): Promise<string> {
  const dir = imageDir(ctx);
  let p = building.get(dir);
  if (!p) {
    p = buildIfNeeded(ctx, dir).finally(() => building.delete(dir));
    building.set(dir, p);
  }
  return p;
}

async function buildIfNeeded(ctx: HostContext, dir: string): Promise<string> {
  const stamp = `${JSON.stringify({ version: IMAGE_VERSION, base: ctx.ids.base })}\n`;
  const complete = async () => (await readFile(join(dir, ".image"), "utf8").catch(() => "")) === stamp;
  if (await complete()) return dir;
  const tmp = `${dir}.${process.pid}.tmp`;
  await rm(tmp, { recursive: true, force: true });
  await mkdir(tmp, { recursive: true, mode: 0o755 });
  for (const [d, mode] of EMPTY_DIRS) {
    await mkdir(join(tmp, d), { recursive: true });
    await chmod(join(tmp, d), mode);
  }
  await symlink("/run", join(tmp, "var/run"));
  await symlink("/run/lock", join(tmp, "var/lock"));
  for (const d of SYSTEM_DIRS) {
    const st = await lstat(`/${d}`).catch(() => undefined);
    if (st?.isSymbolicLink()) await symlink(await readlink(`/${d}`), join(tmp, d));
    else if (st?.isDirectory()) await mkdir(join(tmp, d), { mode: 0o755 });
  }
  await ctx.exec.run("cp", ["-a", "/etc/.", join(tmp, "etc")]);
  await sanitizeEtc(join(tmp, "etc"));
  await shiftOwnership(tmp, ctx.ids.base);
  await writeFile(join(tmp, ".image"), stamp);
  // Another process may have finished first (its image may be in use already): keep it, drop ours.
  // Only a complete, stamped image is ever renamed into place.
  if (await complete()) {
    await rm(tmp, { recursive: true, force: true });
    return dir;
  }
  try {
    await rename(tmp, dir);
  } catch (err) {
    await rm(tmp, { recursive: true, force: true });
    if (!(await complete())) throw err;
  }
  return dir;
}

/** Removes the host's secrets from a copy of its /etc and fits it to a machine without systemd. */
export async function sanitizeEtc(etc: string): Promise<void> {
  for (const f of await readdir(join(etc, "ssh")).catch(() => [] as string[])) {
    if (f.startsWith("ssh_host_")) await rm(join(etc, "ssh", f), { force: true });
  }
  for (const dir of ["ssl/private", "sudoers.d"]) {
    for (const f of await readdir(join(etc, dir)).catch(() => [] as string[])) {
      if (f !== "README") await rm(join(etc, dir, f), { recursive: true, force: true });
    }
  }
  // No password hash leaves the host: every account of the copy is locked.
  for (const [file, mode] of [["shadow", 0o640], ["gshadow", 0o640], ["shadow-", 0o600], ["gshadow-", 0o600]] as const) {
    const path = join(etc, file);
    if (!existsSync(path)) continue;
    const text = await readFile(path, "utf8");
    const locked = text.split("\n").map((l) => {
      const fields = l.split(":");
      if (fields.length < 2) return l;
      fields[1] = "*";
      return fields.join(":");
    });
    await writeFile(path, locked.join("\n"), { mode });
  }
  for (const f of ["machine-id", ".pwd.lock", "subuid", "subgid", "subuid-", "subgid-"]) await rm(join(etc, f), { force: true });
  await writeFile(join(etc, "machine-id"), "");
  // The audit login uid cannot be set inside a user namespace: pam_loginuid must not fail sessions there.
  for (const f of await readdir(join(etc, "pam.d")).catch(() => [] as string[])) {
    const path = join(etc, "pam.d", f);
    const text = await readFile(path, "utf8").catch(() => undefined);
    if (text === undefined || !/pam_loginuid\.so/.test(text)) continue;
    await writeFile(path, text.replace(/^(session\s+)required(\s+pam_loginuid\.so)/gm, "$1optional$2"));
  }
}

/** Host id N becomes base + N for every file below dir (ids the range cannot hold become its root). */
async function shiftOwnership(dir: string, base: number, count = 65536): Promise<void> {
  const shift = (id: number) => base + (id < count ? id : 0);
  const walk = async (path: string): Promise<void> => {
    const st = await lstat(path);
    await lchown(path, shift(st.uid), shift(st.gid));
    // chown clears set-id bits; restore the mode (symlinks have none to restore).
    if (!st.isSymbolicLink()) await chmod(path, st.mode & 0o7777);
    if (st.isDirectory()) for (const e of await readdir(path)) await walk(join(path, e));
  };
  await walk(dir);
}
