// Where the machine's CPU goes during the create phase's two kinds of slices: raw etcd puts and the
// server's creates. On a machine whose cores the benchmark's client, etcd and the server share, a
// rate is bounded by two budgets: the machine's cores (every process's CPU per operation) and the
// server's one main thread (its CPU per create). These figures show which bound a ratio meets
// (docs/high-availability.md#the-cpu-budget-of-a-create).
import { readFileSync } from "node:fs";

/**
 * The whole machine's CPU in a /proc/stat text, in ms (USER_HZ = 100). Busy: user, nice, system, irq
 * and softirq (guest time is inside user and nice), not idle or iowait. Steal: time the hypervisor
 * gave our cores to other machines, which no process here is charged for.
 */
export function parseMachineCpu(procStat: string): { busyMs: number; stealMs: number } {
  const line = procStat.slice(0, procStat.indexOf("\n"));
  if (!line.startsWith("cpu ")) throw new Error(`/proc/stat: expected the "cpu" line first, got ${JSON.stringify(line.slice(0, 40))}`);
  const [user = 0, nice = 0, system = 0, , , irq = 0, softirq = 0, steal = 0] = line.trim().split(/\s+/).slice(1).map(Number);
  return { busyMs: (user + nice + system + irq + softirq) * 10, stealMs: steal * 10 };
}

export function machineCpu(): { busyMs: number; stealMs: number } {
  return parseMachineCpu(readFileSync("/proc/stat", "utf8"));
}

/** CPU time (user + system) of a /proc/<pid>[/task/<tid>]/stat text, in ms. */
export function parseStatCpuMs(stat: string): number {
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** CPU time one thread of a process used so far, in ms; the main thread's id is the process's. */
export function threadCpuMs(pid: number, tid = pid): number {
  return parseStatCpuMs(readFileSync(`/proc/${pid}/task/${tid}/stat`, "utf8"));
}

/** This process's CPU so far, in ms: the benchmark's client. */
export function clientCpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

export interface CpuSample {
  machineMs: number;
  stealMs: number;
  clientMs: number;
  /** The server process's main thread (undefined when no server process is measured). */
  mainMs?: number;
}

export function sampleCpu(serverPid?: number): CpuSample {
  const { busyMs, stealMs } = machineCpu();
  return { machineMs: busyMs, stealMs, clientMs: clientCpuMs(), ...(serverPid === undefined ? {} : { mainMs: threadCpuMs(serverPid) }) };
}

/** CPU per operation over some slices, in µs, and how many cores were busy meanwhile. */
export interface SliceCpu {
  busyCores: number;
  /** Cores' worth of time the hypervisor took meanwhile: a slice with much of it measured a slower machine. */
  stealCores: number;
  machineUsPerOp: number;
  clientUsPerOp: number;
  /** The server's main thread; undefined for raw etcd puts. */
  mainThreadUsPerOp?: number;
}

/** Sums the CPU of the slices of one kind; add() takes the samples before and after each slice. */
export class CpuTally {
  private ops = 0;
  private ms = 0;
  private machineMs = 0;
  private stealMs = 0;
  private clientMs = 0;
  private mainMs: number | undefined;

  add(before: CpuSample, after: CpuSample, ops: number, ms: number): void {
    this.ops += ops;
    this.ms += ms;
    this.machineMs += after.machineMs - before.machineMs;
    this.stealMs += after.stealMs - before.stealMs;
    this.clientMs += after.clientMs - before.clientMs;
    if (before.mainMs !== undefined && after.mainMs !== undefined) this.mainMs = (this.mainMs ?? 0) + after.mainMs - before.mainMs;
  }

  figures(): SliceCpu {
    const perOp = (ms: number) => (ms * 1000) / Math.max(1, this.ops);
    return {
      busyCores: this.ms > 0 ? this.machineMs / this.ms : 0,
      stealCores: this.ms > 0 ? this.stealMs / this.ms : 0,
      machineUsPerOp: perOp(this.machineMs),
      clientUsPerOp: perOp(this.clientMs),
      ...(this.mainMs === undefined ? {} : { mainThreadUsPerOp: perOp(this.mainMs) }),
    };
  }
}

/**
 * What creates at `rate` per second would take at the measured CPU per create: cores of the
 * machine (all processes) and the share of one core for the server's main thread. Either above
 * what exists (the machine's cores; 1 for a thread) means that rate cannot be reached at that CPU.
 */
export function demandAt(creates: SliceCpu, rate: number): { machineCores: number; mainThreadShare: number | undefined } {
  return {
    machineCores: (creates.machineUsPerOp * rate) / 1e6,
    mainThreadShare: creates.mainThreadUsPerOp === undefined ? undefined : (creates.mainThreadUsPerOp * rate) / 1e6,
  };
}

/** One line for the output: each slice kind's CPU, and what the reference's rate would take of the creates. */
export function describeBudget(raw: SliceCpu, creates: SliceCpu, referencePerSec: number, cores: number): string {
  const us = (n: number) => `${n.toFixed(0)} µs`;
  const busy = (f: SliceCpu) => `${f.busyCores.toFixed(2)} of ${cores} cores busy (steal ${f.stealCores.toFixed(2)})`;
  const need = demandAt(creates, referencePerSec);
  const main = creates.mainThreadUsPerOp === undefined ? "" : `, its main thread ${us(creates.mainThreadUsPerOp)}`;
  const mainNeed = need.mainThreadShare === undefined ? "" : ` and ${(need.mainThreadShare * 100).toFixed(0)}% of the main thread's core`;
  return (
    `per raw put ${us(raw.machineUsPerOp)} of the machine's CPU (the client ${us(raw.clientUsPerOp)}) at ${busy(raw)}; ` +
    `per create ${us(creates.machineUsPerOp)} (the client ${us(creates.clientUsPerOp)}${main}) at ${busy(creates)}; ` +
    `creates at the reference's ${referencePerSec.toFixed(0)}/s would take ${need.machineCores.toFixed(2)} of ${cores} cores${mainNeed}`
  );
}
