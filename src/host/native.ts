// nsutil (native/nsutil.c): the two user-namespace operations machines need that util-linux 2.38 lacks
// (idmapped bind mounts, and entering a user namespace with a range of ids as its root). Compiled with the
// system's C compiler on first use into node_modules/.cache, keyed by a hash of its source, so a changed
// source is rebuilt and concurrent first uses do not race (build to a temporary name, then rename).
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { Exec } from "./exec.ts";

const here = dirname(fileURLToPath(import.meta.url));
const SOURCE = join(here, "native", "nsutil.c");
const CACHE = resolve(here, "..", "..", "node_modules", ".cache", "gardener-access");

let built: Promise<string> | undefined;

/** The path of the compiled nsutil, building it when missing. */
export function nsutil(exec: Exec): Promise<string> {
  built ??= build(exec).catch((err: unknown) => {
    built = undefined;
    throw err;
  });
  return built;
}

async function build(exec: Exec): Promise<string> {
  const hash = createHash("sha256").update(readFileSync(SOURCE)).digest("hex").slice(0, 16);
  const binary = join(CACHE, `nsutil-${hash}`);
  if (existsSync(binary)) return binary;
  mkdirSync(CACHE, { recursive: true });
  const tmp = `${binary}.${process.pid}.tmp`;
  try {
    await exec.run("cc", ["-O2", "-Wall", "-o", tmp, SOURCE]);
    renameSync(tmp, binary);
  } finally {
    rmSync(tmp, { force: true });
  }
  return binary;
}
