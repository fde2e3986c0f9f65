// The container shim (shim/shim.c): compiled with the system's C compiler on first use into
// <stateDir>/bin, keyed by a hash of its source (a changed source is rebuilt; concurrent first uses build
// to a temporary name, then rename). Inside a machine the checkout is read-only, so the state directory
// is the one place that is always writable.
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Exec } from "./exec.ts";

const SOURCE = join(dirname(fileURLToPath(import.meta.url)), "shim", "shim.c");
const built = new Map<string, Promise<string>>();

/** The path of the compiled shim for this state directory, building it when missing. */
export function shimBinary(exec: Exec, stateDir: string): Promise<string> {
  let p = built.get(stateDir);
  if (!p) {
    p = build(exec, stateDir).catch((err: unknown) => {
      built.delete(stateDir);
      throw err;
    });
    built.set(stateDir, p);
  }
  return p;
}

async function build(exec: Exec, stateDir: string): Promise<string> {
  const hash = createHash("sha256").update(readFileSync(SOURCE)).digest("hex").slice(0, 16);
  const dir = join(stateDir, "bin");
  const binary = join(dir, `shim-${hash}`);
  if (existsSync(binary)) return binary;
  mkdirSync(dir, { recursive: true });
  const tmp = `${binary}.${process.pid}.tmp`;
  try {
    await exec.run("cc", ["-O2", "-Wall", "-o", tmp, SOURCE]);
    renameSync(tmp, binary);
  } finally {
    rmSync(tmp, { force: true });
  }
  return binary;
}
