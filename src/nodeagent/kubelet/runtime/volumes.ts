// Pod volumes on the node. emptyDir is a directory of the pod; secret, configMap, projected and downwardAPI
// hold files the caller hands in, written as the kubelet's atomic writer does: a new timestamped directory,
// then the "..data" link swapped by rename, with each top-level name a link through "..data", so a
// container sees either the old or the new set, never a mix. hostPath is the node's own path.
import { createHash } from "node:crypto";
import { lstat, mkdir, readFile, readdir, readlink, rename, rm, symlink, writeFile } from "node:fs/promises";
import { dirname, join, normalize } from "node:path";
import type { PodInputs, Volume } from "./types.ts";

const MAX_VOLUME_BYTES = 8 * 1024 * 1024;

export class VolumeError extends Error {
  override readonly name = "VolumeError";
}

type Files = NonNullable<PodInputs["volumes"]>[string];

function checkPath(p: string): string {
  const n = normalize(p);
  if (p === "" || n.startsWith("/") || n === ".." || n.startsWith("../") || n.split("/").some((s) => s.startsWith(".."))) {
    throw new VolumeError(`volume file path ${JSON.stringify(p)} must be relative, without ".." elements`);
  }
  return n;
}

/** Writes the files atomically into dir; returns false when they were already current. */
export async function writeAtomic(dir: string, files: Files): Promise<boolean> {
  const entries = Object.entries(files).map(([p, v]) => [checkPath(p), typeof v === "string" ? { data: v } : v] as const);
  const total = entries.reduce((n, [, v]) => n + Buffer.byteLength(v.data), 0);
  if (total > MAX_VOLUME_BYTES) throw new VolumeError(`volume content of ${total} bytes exceeds ${MAX_VOLUME_BYTES}`);
  const hash = createHash("sha256").update(JSON.stringify(entries.sort(([a], [b]) => a.localeCompare(b)))).digest("hex");
  await mkdir(dir, { recursive: true, mode: 0o755 });
  if ((await readFile(join(dir, "..hash"), "utf8").catch(() => "")) === hash) return false;
  const stamp = `..${new Date().toISOString().replace(/[-:]/g, "_").replace("T", "_").replace("Z", "")}.${process.hrtime.bigint() % 1_000_000n}`;
  const next = join(dir, stamp);
  await mkdir(next, { mode: 0o755 });
  for (const [p, v] of entries) {
    await mkdir(dirname(join(next, p)), { recursive: true });
    await writeFile(join(next, p), v.data, { mode: v.mode ?? 0o644 });
  }
  const old = await readlink(join(dir, "..data")).catch(() => undefined);
  await rm(join(dir, "..data_tmp"), { force: true });
  await symlink(stamp, join(dir, "..data_tmp"));
  await rename(join(dir, "..data_tmp"), join(dir, "..data"));
  const top = new Set(entries.map(([p]) => p.split("/")[0]!));
  for (const name of top) {
    if (!(await lstat(join(dir, name)).catch(() => undefined))) await symlink(join("..data", name), join(dir, name));
  }
  for (const name of await readdir(dir)) {
    if (!name.startsWith("..") && !top.has(name)) await rm(join(dir, name), { force: true });
  }
  if (old && old !== stamp) await rm(join(dir, old), { recursive: true, force: true });
  await writeFile(join(dir, "..hash"), hash);
  return true;
}

/** The node path that backs a volume, made or updated; hostPath with type DirectoryOrCreate is created. */
export async function prepareVolume(podDir: string, v: Volume, inputs: PodInputs): Promise<string> {
  if (v.hostPath) {
    if (!v.hostPath.path.startsWith("/")) throw new VolumeError(`hostPath ${v.hostPath.path} must be absolute`);
    if (v.hostPath.type === "DirectoryOrCreate") await mkdir(v.hostPath.path, { recursive: true });
    const st = await lstat(v.hostPath.path).catch(() => undefined);
    if (!st) throw new VolumeError(`hostPath ${v.hostPath.path} does not exist on the node`);
    return v.hostPath.path;
  }
  const dir = join(podDir, "volumes", v.name);
  if (v.secret || v.configMap || v.projected || v.downwardAPI) {
    await writeAtomic(dir, inputs.volumes?.[v.name] ?? {});
  } else {
    await mkdir(dir, { recursive: true, mode: 0o777 });
  }
  return dir;
}
