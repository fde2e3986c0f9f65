// host/'s two C helpers, compiled with the system's C compiler on first use, keyed by a hash of their
// source (a changed source is rebuilt; concurrent first uses build to a temporary name, then rename):
// - nsutil (native/nsutil.c): the user-namespace operations machines need that util-linux 2.38 lacks
//   (idmapped bind mounts, entering a user namespace with a range of ids as its root), built into
//   node_modules/.cache;
// - the container shim (shim/shim.c, see shim.ts), built into a state directory's bin/, because inside a
//   machine the checkout is read-only.
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { Exec } from "./exec.ts";

const here = dirname(fileURLToPath(import.meta.url));
const CACHE = resolve(here, "..", "..", "node_modules", ".cache", "gardener-access");
const built = new Map<string, Promise<string>>();

/** The path of `<name>-<hash of source>` in `dir`, compiling `source` (relative to host/) when missing. */
export function compiled(exec: Exec, source: string, name: string, dir: string): Promise<string> {
  const id = `${dir}/${name}`;
  let p = built.get(id);
  if (!p) {
    p = build(exec, join(here, source), name, dir).catch((err: unknown) => {
      built.delete(id);
      throw err;
    });
    built.set(id, p);
  }
  return p;
}

async function build(exec: Exec, source: string, name: string, dir: string): Promise<string> {
  const hash = createHash("sha256").update(readFileSync(source)).digest("hex").slice(0, 16);
  const binary = join(dir, `${name}-${hash}`);
  if (existsSync(binary)) return binary;
  mkdirSync(dir, { recursive: true });
  const tmp = `${binary}.${process.pid}.tmp`;
  try {
    await exec.run("cc", ["-O2", "-Wall", "-o", tmp, source]);
    renameSync(tmp, binary);
  } finally {
    rmSync(tmp, { force: true });
  }
  return binary;
}

/** The path of the compiled nsutil. */
export function nsutil(exec: Exec): Promise<string> {
  return compiled(exec, join("native", "nsutil.c"), "nsutil", CACHE);
}
