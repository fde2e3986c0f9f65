// The container shim (shim/shim.c) and the container's first program (shim/container-init.c): compiled on first use (native.ts) into <stateDir>/bin. Inside a
// machine the checkout is read-only, so the state directory is the one place that is always writable.
import { join } from "node:path";
import type { Exec } from "./exec.ts";
import { compiled } from "./native.ts";

/** The path of the compiled shim for this state directory, building it when missing. */
export function shimBinary(exec: Exec, stateDir: string): Promise<string> {
  return compiled(exec, join("shim", "shim.c"), "shim", join(stateDir, "bin"));
}

/** The path of the compiled container-init for this state directory, building it when missing. */
export function containerInitBinary(exec: Exec, stateDir: string): Promise<string> {
  return compiled(exec, join("shim", "container-init.c"), "container-init", join(stateDir, "bin"));
}
