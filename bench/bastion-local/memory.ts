// What the machines of a landscape cost in memory, read from /proc: each machine's supervisor
// (`nsenter ... unshare ...`, its command line names `<hostState>/machines/<name>/`) and every
// descendant count towards that machine (RSS and PSS from smaps_rollup), plus the size of the
// machine's overlay upper dir. `kernelKiB` sees kernel memory (namespaces, veths, nft tables, mounts)
// that no process accounts for; MemAvailable is not used: other work on the host drowns the signal.
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";

export interface MachineMemory {
  name: string;
  processes: number;
  rssKiB: number;
  pssKiB: number;
  upperKiB: number;
}

/** The kB value of `field` in a /proc file of "Name:   123 kB" lines (0 when absent). */
export function kiBField(text: string, field: string): number {
  const m = new RegExp(`^${field}:\\s+(\\d+)\\s*kB`, "m").exec(text);
  return m ? Number(m[1]) : 0;
}

/** The parent pid from the text of /proc/<pid>/stat (the command may contain spaces and parentheses). */
export function ppidFromStat(stat: string): number {
  const rest = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return Number(rest[1]);
}

/** The machine a supervisor's command line belongs to, when it names `<hostState>/machines/<name>/`. */
export function machineOf(cmdline: string, hostState: string): string | undefined {
  const marker = `${hostState}/machines/`;
  const i = cmdline.indexOf(marker);
  if (i < 0) return undefined;
  return cmdline.slice(i + marker.length).split("/")[0] || undefined;
}

export function read(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
}

function dirKiB(dir: string): number {
  if (!existsSync(dir)) return 0;
  try {
    return Number(execFileSync("du", ["-sk", "-x", dir], { encoding: "utf8" }).split("\t")[0]);
  } catch {
    return 0;
  }
}

/**
 * Machine directory name -> the machine's name, where they differ: a bastion claimed from provider-local's
 * pool keeps the held machine's directory (docs/adr/0015-bastion-machine-pool.md); its record says which.
 */
export function claimedDirs(hostState: string): Map<string, string> {
  const out = new Map<string, string>();
  const records = join(hostState, "records");
  let files: string[] = [];
  try {
    files = readdirSync(records).filter((f) => f.startsWith(encodeURIComponent("machine/")) && f.endsWith(".json"));
  } catch {
    return out;
  }
  for (const f of files) {
    try {
      const r = JSON.parse(readFileSync(join(records, f), "utf8")) as { name?: string; dir?: string };
      const dirName = r.dir?.split("/").pop();
      if (r.name && dirName && dirName !== r.name) out.set(dirName, r.name);
    } catch {
      // removed meanwhile
    }
  }
  return out;
}

/** Every process's `/proc/<pid>/stat`, and the machine (below `hostState`) whose supervisor a process descends from. */
export function machineProcesses(hostState: string): { stats: Map<number, string>; owner: (pid: number) => string | undefined } {
  const stats = new Map<number, string>();
  const parent = new Map<number, number>();
  const roots = new Map<number, string>();
  const claimed = claimedDirs(hostState);
  for (const e of readdirSync("/proc")) {
    const pid = Number(e);
    if (!Number.isInteger(pid)) continue;
    const stat = read(`/proc/${pid}/stat`);
    if (stat === undefined) continue;
    stats.set(pid, stat);
    parent.set(pid, ppidFromStat(stat));
    const name = machineOf((read(`/proc/${pid}/cmdline`) ?? "").split("\0").join(" "), hostState);
    if (name !== undefined) roots.set(pid, claimed.get(name) ?? name);
  }
  const owner = (pid: number): string | undefined => {
    for (let p = pid, hops = 0; p > 1 && hops < 64; p = parent.get(p) ?? 0, hops++) {
      const name = roots.get(p);
      if (name !== undefined) return name;
    }
    return undefined;
  };
  return { stats, owner };
}

/** Memory of every machine below `hostState`, by machine name. */
export function machineMemory(hostState: string): MachineMemory[] {
  const { stats, owner } = machineProcesses(hostState);
  const out = new Map<string, MachineMemory>();
  const machinesDir = join(hostState, "machines");
  for (const name of existsSync(machinesDir) ? readdirSync(machinesDir) : []) {
    out.set(name, { name, processes: 0, rssKiB: 0, pssKiB: 0, upperKiB: dirKiB(join(machinesDir, name, "upper")) });
  }
  for (const pid of stats.keys()) {
    const name = owner(pid);
    if (name === undefined) continue;
    const m = out.get(name) ?? { name, processes: 0, rssKiB: 0, pssKiB: 0, upperKiB: 0 };
    const rollup = read(`/proc/${pid}/smaps_rollup`) ?? "";
    m.processes++;
    m.rssKiB += kiBField(rollup, "Rss");
    m.pssKiB += kiBField(rollup, "Pss");
    out.set(name, m);
  }
  return [...out.values()];
}

/** Kernel memory no process accounts for (unreclaimable slab, kernel stacks, page tables), in KiB. */
export function kernelKiB(): number {
  const t = readFileSync("/proc/meminfo", "utf8");
  return kiBField(t, "SUnreclaim") + kiBField(t, "KernelStack") + kiBField(t, "PageTables");
}

export const isBastionMachine = (m: MachineMemory): boolean => m.name.includes("bastion-");

/** Average per bastion machine (only machines that have processes). */
export function perBastion(ms: MachineMemory[]): { n: number; processes: number; rssKiB: number; pssKiB: number; upperKiB: number } {
  const b = ms.filter((m) => isBastionMachine(m) && m.processes > 0);
  const avg = (f: (m: MachineMemory) => number): number => (b.length === 0 ? NaN : b.reduce((s, m) => s + f(m), 0) / b.length);
  return { n: b.length, processes: avg((m) => m.processes), rssKiB: avg((m) => m.rssKiB), pssKiB: avg((m) => m.pssKiB), upperKiB: avg((m) => m.upperKiB) };
}
