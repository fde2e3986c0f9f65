// status.json: what the supervisor reports (phase, components, machines), written atomically, and
// its rendering for `gardener-local status`.
import { readFileSync, renameSync, writeFileSync } from "node:fs";
import type { Layout } from "./layout.ts";
import type { ComponentStatus } from "./supervisor.ts";

export type Phase = "Starting" | "Ready" | "Failed" | "Stopping" | "Stopped";

export interface MachineStatus {
  name: string;
  state: "Ready" | "Held" | "Booting" | "Failed" | "Stopped";
  addresses: string[];
}

export interface LandscapeStatus {
  phase: Phase;
  /** The supervisor's pid. */
  pid: number;
  error?: string;
  components: ComponentStatus[];
  machines: MachineStatus[];
}

export function writeStatus(layout: Layout, status: LandscapeStatus): void {
  const tmp = `${layout.status}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(status, null, 2)}\n`);
  renameSync(tmp, layout.status);
}

export function readStatus(layout: Layout): LandscapeStatus | undefined {
  try {
    return JSON.parse(readFileSync(layout.status, "utf8")) as LandscapeStatus;
  } catch {
    return undefined;
  }
}

/** The status as `gardener-local status` prints it; `alive` says whether the supervisor runs. */
export function formatStatus(s: LandscapeStatus | undefined, alive: boolean): string {
  if (!s || (!alive && s.phase !== "Failed")) return "landscape: not running\n";
  const phase = alive ? s.phase : `${s.phase} (supervisor not running)`;
  const lines = [`landscape: ${phase} (supervisor pid ${s.pid})${s.error ? `: ${s.error}` : ""}`, "", "COMPONENT                     STATE     PID       RESTARTS"];
  for (const c of s.components) lines.push(`${c.name.padEnd(30)}${(alive ? c.state : "stopped").padEnd(10)}${String(alive ? (c.pid ?? "-") : "-").padEnd(10)}${c.restarts}`);
  lines.push("", "MACHINE                                     STATE     ADDRESSES");
  for (const m of s.machines) lines.push(`${m.name.padEnd(44)}${m.state.padEnd(10)}${m.addresses.join(",")}`);
  return `${lines.join("\n")}\n`;
}
