// Long-running host processes (daemons in a namespace: an OpenVPN server, a proxy), started detached,
// recorded by pid + start time, and stopped only if the recorded process is still the same one.
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { ownNetns, ownedFields, type HostContext, type Owned } from "./context.ts";
import { validateLogicalName } from "./names.ts";
import { killProcesses } from "./netns.ts";
import { isAlive, type ProcessRef } from "./procs.ts";
import type { ProcessRecord } from "./records.ts";

export interface ProcessSpec extends Owned {
  /** Logical name, unique in the state directory. */
  name: string;
  command: string;
  args?: readonly string[];
  netns?: string;
  /** Default <stateDir>/processes/<name>.log. */
  logFile?: string;
  env?: Record<string, string>;
}

export interface ProcessStatus {
  name: string;
  running: boolean;
  process?: ProcessRef;
  logFile: string;
}

function status(r: ProcessRecord): ProcessStatus {
  const s: ProcessStatus = { name: r.name, running: r.process !== undefined && isAlive(r.process), logFile: r.logFile };
  if (r.process) s.process = r.process;
  return s;
}

export async function processStatus(ctx: HostContext, name: string): Promise<ProcessStatus | undefined> {
  const r = await ctx.records.get(`process/${name}`);
  return r?.kind === "process" ? status(r) : undefined;
}

/** Starts the process unless the recorded one still runs. */
export async function startProcess(ctx: HostContext, spec: ProcessSpec): Promise<ProcessStatus> {
  validateLogicalName("process name", spec.name);
  ownNetns(ctx, spec.netns);
  const existing = await processStatus(ctx, spec.name);
  if (existing?.running) return existing;
  const logFile = spec.logFile ?? join(ctx.stateDir, "processes", `${spec.name}.log`);
  await mkdir(join(logFile, ".."), { recursive: true });
  const base = {
    kind: "process" as const,
    name: spec.name,
    command: [spec.command, ...(spec.args ?? [])],
    logFile,
    ...(spec.netns ? { netns: spec.netns } : {}),
    ...ownedFields(spec),
  };
  await ctx.records.put(base, "creating");
  const proc = await ctx.exec.spawnDetached(spec.command, spec.args ?? [], {
    logFile,
    ...(spec.netns ? { netns: spec.netns } : {}),
    ...(spec.env ? { env: spec.env } : {}),
  });
  const record = await ctx.records.put({ ...base, process: { pid: proc.pid, startTime: proc.startTime } }, "created");
  return status(record as ProcessRecord);
}

/** Stops the recorded process (SIGTERM, SIGKILL after graceMs; only if it is still the same process) and forgets it. */
export async function stopProcess(ctx: HostContext, name: string, graceMs = 3000): Promise<void> {
  const r = await ctx.records.get(`process/${name}`);
  if (r?.kind === "process" && r.process) await killProcesses(ctx.exec, [r.process], graceMs);
  // One known record: deleted by its id (a scan would read every record of the state directory).
  await ctx.records.delete(`process/${name}`);
}
