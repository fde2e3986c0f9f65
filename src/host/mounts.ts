// Mounts under the state directory (overlays of the host root for machines). Only paths below the state
// directory may be mounted, so sweep finds every leftover mount by path.
import { mkdir, readFile, stat, writeFile } from "node:fs/promises";
import { dirname, resolve, sep } from "node:path";
import { deleteRecords, ownedFields, recorded, type HostContext, type Owned } from "./context.ts";
import { HostSpecError } from "./names.ts";
import { nsutil } from "./native.ts";

export interface OverlaySpec extends Owned {
  /** Mount point, below the state directory. */
  target: string;
  /** Lower layer (default "/": the host root; its submounts are not part of it). */
  lower?: string;
  upper: string;
  work: string;
}

function unescapeMountPath(p: string): string {
  return p.replace(/\\([0-7]{3})/g, (_, oct: string) => String.fromCharCode(parseInt(oct, 8)));
}

/** Mount points of this process's mount namespace, in mount order. */
export async function mountPoints(): Promise<string[]> {
  const text = await readFile("/proc/self/mountinfo", "utf8");
  return text
    .split("\n")
    .filter(Boolean)
    .map((l) => unescapeMountPath(l.split(" ")[4] ?? ""));
}

export function isBelow(dir: string, path: string): boolean {
  const d = resolve(dir);
  const p = resolve(path);
  return p === d || p.startsWith(d.endsWith(sep) ? d : d + sep);
}

/** Mount points at or below `dir`, deepest (last mounted) first: the order to unmount them in. */
export async function mountsBelow(dir: string): Promise<string[]> {
  return (await mountPoints()).filter((m) => isBelow(dir, m)).reverse();
}

function checkTarget(ctx: HostContext, path: string): string {
  const p = resolve(path);
  if (!isBelow(ctx.stateDir, p) || p === resolve(ctx.stateDir)) {
    throw new HostSpecError(`mount target ${p} is not below the state directory ${ctx.stateDir}`);
  }
  return p;
}

function checkOption(path: string): string {
  if (/[,:\n\\]/.test(path)) throw new HostSpecError(`path ${JSON.stringify(path)} cannot be used in mount options`);
  return resolve(path);
}

export async function mountOverlay(ctx: HostContext, spec: OverlaySpec): Promise<void> {
  const target = checkTarget(ctx, spec.target);
  const lower = checkOption(spec.lower ?? "/");
  const upper = checkOption(spec.upper);
  const work = checkOption(spec.work);
  await recorded(ctx, { kind: "mount", target, ...ownedFields(spec) }, async () => {
    if ((await mountPoints()).includes(target)) return;
    for (const d of [target, upper, work]) await mkdir(d, { recursive: true });
    await ctx.exec.run("mount", ["-t", "overlay", "overlay", "-o", `lowerdir=${lower},upperdir=${upper},workdir=${work}`, target]);
  });
}

export interface BindSpec extends Owned {
  /** A host directory or file. */
  source: string;
  /** Mount point, below the state directory (made if missing, as a directory or an empty file like the source). */
  target: string;
}

async function makeMountPoint(source: string, target: string): Promise<void> {
  if ((await stat(source)).isDirectory()) {
    await mkdir(target, { recursive: true });
  } else {
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, "", { flag: "a" });
  }
}

/**
 * Binds a host directory or file read-only, without devices or set-id programs, at target. Set up in the
 * host's mount namespace, the bind is locked read-only in every machine that inherits it, and its files
 * keep their host owners (nobody, to a machine: its root reads only what anybody may read).
 */
export function bindReadOnly(ctx: HostContext, spec: BindSpec): Promise<void> {
  return bind(ctx, spec, async (source, target) => {
    await ctx.exec.run("mount", ["--bind", source, target]);
    await ctx.exec.run("mount", ["-o", "remount,bind,ro,nosuid,nodev", target]);
  });
}

/** A recorded bind of spec.source at spec.target (below the state directory), made by `mount` once. */
async function bind(ctx: HostContext, spec: BindSpec, mount: (source: string, target: string) => Promise<unknown>): Promise<void> {
  const target = checkTarget(ctx, spec.target);
  const source = resolve(spec.source);
  await recorded(ctx, { kind: "mount", target, ...ownedFields(spec) }, async () => {
    if ((await mountPoints()).includes(target)) return;
    await makeMountPoint(source, target);
    await mount(source, target);
  });
}

/**
 * Binds a host directory read-only (and without devices) at target through an idmapped mount: a file owned
 * by host id N appears owned by ids.base + N, which is what a machine's root and users are on the host. Set
 * up in the host's mount namespace, the bind is locked read-only in every machine that inherits it.
 */
export function bindIdmapped(ctx: HostContext, spec: BindSpec): Promise<void> {
  return bind(ctx, spec, async (source, target) => ctx.exec.run(await nsutil(ctx.exec), ["idmap", source, target, String(ctx.ids.base), String(ctx.ids.count)]));
}

/** Unmounts everything at or below `target` (lazily when busy); absent is fine. */
export async function unmount(ctx: HostContext, target: string): Promise<void> {
  const t = checkTarget(ctx, target);
  for (let round = 0; round < 8; round++) {
    const below = await mountsBelow(t);
    if (below.length === 0) break;
    // Deepest first, in one process; what is busy then lazily. umount(8) would parse the whole mount
    // table once per mount point (docs/machines.md#removing-a-thousand-machines).
    const tool = await nsutil(ctx.exec);
    const r = await ctx.exec.run(tool, ["umount", ...below], { okExitCodes: [0, 1] });
    if (r.exitCode !== 0) await ctx.exec.run(tool, ["umount", "-l", ...below], { okExitCodes: [0, 1] });
  }
  if ((await mountsBelow(t)).length > 0) throw new Error(`could not unmount ${t}`);
  await deleteRecords(ctx, (r) => r.kind === "mount" && isBelow(t, r.target));
}
