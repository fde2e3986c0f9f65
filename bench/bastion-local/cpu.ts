// CPU time the bastions cost, from /proc/<pid>/stat (which the load of other work does not distort, unlike
// wall time): each landscape component's own time (utime+stime) and its reaped children's (cutime+cstime:
// the ip, nft, ssh-keygen ... it ran, and the machines it started once they are gone), read from the pids in
// `<stateDir>/run/<component>.pid`; and a machine's processes (every process whose nearest machine supervisor
// is the machine's, each with its reaped children).
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { childrenOf } from "../../src/host/procs.ts";
import { SPAWN_HELPER_TITLE } from "../../src/host/spawn-server.ts";
import { machineProcesses, read } from "./memory.ts";

/** Clock ticks per second of /proc/<pid>/stat times (USER_HZ, 100 on Linux). */
const HZ = 100;

export interface CpuMs {
  /** The process itself. */
  self: number;
  /** Its children that exited and were waited for. */
  children: number;
}

/** utime, stime, cutime, cstime of a /proc/<pid>/stat text, in ms. */
export function cpuFromStat(stat: string): CpuMs {
  const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  // after the command: state(0) ppid(1) ... utime(11) stime(12) cutime(13) cstime(14)
  const t = (i: number) => (Number(f[i]) * 1000) / HZ;
  return { self: t(11) + t(12), children: t(13) + t(14) };
}

/** Each component's CPU ms by name (components without a live pid are left out). */
export function componentCpu(runDir: string): Map<string, CpuMs> {
  const out = new Map<string, CpuMs>();
  let names: string[] = [];
  try {
    names = readdirSync(runDir).filter((n) => n.endsWith(".pid"));
  } catch {
    return out;
  }
  for (const n of names) {
    const pid = Number((read(join(runDir, n)) ?? "").trim());
    const stat = Number.isInteger(pid) && pid > 0 ? read(`/proc/${pid}/stat`) : undefined;
    if (stat !== undefined) out.set(n.slice(0, -".pid".length), withSpawnHelper(pid, cpuFromStat(stat)));
  }
  return out;
}

/**
 * The component's CPU with its live command helper's (src/host/spawn-server.ts) counted as its children's:
 * the commands it runs are the helper's children, reaped by the helper, not by the component.
 */
function withSpawnHelper(pid: number, own: CpuMs): CpuMs {
  let children = own.children;
  for (const c of childrenOf(pid)) {
    const stat = read(`/proc/${c}/stat`);
    if (stat === undefined || !stat.includes(`(${SPAWN_HELPER_TITLE.slice(0, 15)})`)) continue;
    const h = cpuFromStat(stat);
    children += h.self + h.children;
  }
  return { self: own.self, children };
}

/** The difference after - before per component (components in both). */
export function cpuDelta(before: Map<string, CpuMs>, after: Map<string, CpuMs>): Map<string, CpuMs> {
  const out = new Map<string, CpuMs>();
  for (const [k, a] of after) {
    const b = before.get(k);
    if (b) out.set(k, { self: a.self - b.self, children: a.children - b.children });
  }
  return out;
}

/** CPU ms of every machine below `hostState` so far (live processes with their reaped children), by machine name. */
export function machineCpu(hostState: string): Map<string, number> {
  const { stats, owner } = machineProcesses(hostState);
  const out = new Map<string, number>();
  for (const [pid, stat] of stats) {
    const name = owner(pid);
    if (name === undefined) continue;
    const c = cpuFromStat(stat);
    out.set(name, (out.get(name) ?? 0) + c.self + c.children);
  }
  return out;
}

/** Busy and total jiffies of the whole machine (the first line of /proc/stat). */
function machineJiffies(): { busy: number; total: number } {
  const f = (read("/proc/stat") ?? "").split("\n")[0]!.trim().split(/\s+/).slice(1).map(Number);
  const total = f.reduce((a, b) => a + b, 0);
  // idle(3) and iowait(4) are not busy.
  return { busy: total - (f[3] ?? 0) - (f[4] ?? 0), total };
}

/**
 * Waits until the machine is quiet: `windowMs` windows in which less than `maxBusy` (0..1) of all cores was
 * busy, two in a row, at most `timeoutMs`. Right after `up` the landscape still fills its pools (the
 * gardenlet's RSA key pool, provider-local's held machines): a figure taken then measures that work too.
 * Resolves with the ms waited and whether the machine became quiet.
 */
export async function settle(o: { maxBusy: number; windowMs: number; timeoutMs: number }): Promise<{ ms: number; quiet: boolean; busy: number }> {
  const start = performance.now();
  let quietWindows = 0;
  let busy = 1;
  while (performance.now() - start < o.timeoutMs) {
    const a = machineJiffies();
    await new Promise((r) => setTimeout(r, o.windowMs));
    const b = machineJiffies();
    busy = (b.busy - a.busy) / Math.max(1, b.total - a.total);
    quietWindows = busy < o.maxBusy ? quietWindows + 1 : 0;
    if (quietWindows >= 2) return { ms: performance.now() - start, quiet: true, busy };
  }
  return { ms: performance.now() - start, quiet: false, busy };
}
