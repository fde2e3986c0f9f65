// Components of the landscape as supervised child processes: each runs in its own process group with
// its output appended to a log file, its pid in `<pidDir>/<name>.pid`; a component that exits while the
// supervisor runs is restarted after an exponential backoff (reset after it ran for `stableMs`).
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type Clock, type Timer, realClock } from "../utils/clock.ts";
import { type ChildProcess, startLogged } from "../host/spawn.ts";

export interface ComponentSpec {
  name: string;
  command: string;
  args: readonly string[];
  logFile: string;
  env?: NodeJS.ProcessEnv;
}

export interface ComponentStatus {
  name: string;
  pid: number | undefined;
  /** running, or waiting to be restarted (backoff), or stopped. */
  state: "running" | "backoff" | "stopped";
  restarts: number;
  lastExit?: string;
}

export interface SupervisorOptions {
  pidDir: string;
  clock?: Clock;
  initialBackoffMs?: number;
  maxBackoffMs?: number;
  stableMs?: number;
  /** Progress and restart lines. */
  log?: (line: string) => void;
}

interface Entry {
  spec: ComponentSpec;
  child?: ChildProcess;
  startedAt: number;
  failures: number;
  restarts: number;
  timer?: Timer;
  lastExit?: string;
  exited?: Promise<void>;
  /** Set while restart() replaces the process: its exit is no failure and schedules nothing. */
  replacing?: boolean;
}

/** The backoff before restart number `failures` (1-based): initial * 2^(failures-1), capped. */
export function backoffMs(failures: number, initialMs: number, maxMs: number): number {
  return Math.min(maxMs, initialMs * 2 ** Math.max(0, failures - 1));
}

export class Supervisor {
  private readonly entries = new Map<string, Entry>();
  private readonly clock: Clock;
  private stopping = false;

  constructor(private readonly o: SupervisorOptions) {
    this.clock = o.clock ?? realClock;
    mkdirSync(o.pidDir, { recursive: true });
  }

  /** Starts the component (once; a second call with the same name is ignored). */
  start(spec: ComponentSpec): void {
    if (this.entries.has(spec.name) || this.stopping) return;
    const entry: Entry = { spec, startedAt: 0, failures: 0, restarts: 0 };
    this.entries.set(spec.name, entry);
    this.launch(entry);
  }

  private launch(entry: Entry): void {
    const { spec } = entry;
    entry.timer = undefined;
    const child = startLogged(spec.command, spec.args, { logFile: spec.logFile, env: spec.env });
    entry.child = child;
    entry.startedAt = this.clock.nowMs();
    if (child.pid !== undefined) writeFileSync(join(this.o.pidDir, `${spec.name}.pid`), `${child.pid}\n`);
    entry.exited = new Promise((resolve) => {
      child.once("error", (err) => {
        entry.lastExit = err.message;
      });
      child.once("close", (code, signal) => {
        entry.child = undefined;
        entry.lastExit = signal ? `signal ${signal}` : `exit code ${code}`;
        rmSync(join(this.o.pidDir, `${spec.name}.pid`), { force: true });
        resolve();
        if (this.stopping || entry.replacing) return;
        entry.failures = this.clock.nowMs() - entry.startedAt >= (this.o.stableMs ?? 60_000) ? 1 : entry.failures + 1;
        const delay = backoffMs(entry.failures, this.o.initialBackoffMs ?? 500, this.o.maxBackoffMs ?? 30_000);
        this.o.log?.(`${spec.name} exited (${entry.lastExit}); restarting in ${delay} ms`);
        entry.timer = this.clock.setTimer(delay, () => {
          if (this.stopping) return;
          entry.restarts++;
          this.launch(entry);
        });
      });
    });
  }

  /**
   * Replaces a running component's process with one of `spec` (same name; e.g. other flags, or files it reads
   * at its start): SIGTERM to its process group, SIGKILL after graceMs, then started at once. Counts as a
   * restart, not a failure. A component not started yet is started.
   */
  async restart(spec: ComponentSpec, graceMs = 10_000): Promise<void> {
    const entry = this.entries.get(spec.name);
    if (!entry) return this.start(spec);
    if (this.stopping) return;
    entry.spec = spec;
    entry.timer?.cancel();
    entry.timer = undefined;
    entry.replacing = true;
    try {
      await this.stopOne(entry, graceMs);
    } finally {
      entry.replacing = false;
    }
    if (this.stopping) return;
    entry.restarts++;
    this.o.log?.(`${spec.name} restarted`);
    this.launch(entry);
  }

  status(): ComponentStatus[] {
    return [...this.entries.values()].map((e) => ({
      name: e.spec.name,
      pid: e.child?.pid,
      state: e.child ? "running" : e.timer ? "backoff" : "stopped",
      restarts: e.restarts,
      ...(e.lastExit ? { lastExit: e.lastExit } : {}),
    }));
  }

  /**
   * SIGTERM to every component's process group at once, SIGKILL to those still running after graceMs: a
   * landscape stops in the time its slowest component takes, not in the sum of all of theirs.
   */
  async stop(graceMs = 10_000): Promise<void> {
    this.stopping = true;
    const entries = [...this.entries.values()].reverse();
    for (const e of entries) {
      e.timer?.cancel();
      e.timer = undefined;
    }
    await Promise.all(entries.map((e) => this.stopOne(e, graceMs)));
  }

  private async stopOne(e: Entry, graceMs: number): Promise<void> {
    if (!e.child?.pid) return;
    const pid = e.child.pid;
    killGroup(pid, "SIGTERM");
    let timer: Timer | undefined;
    await Promise.race([e.exited, new Promise<void>((resolve) => (timer = this.clock.setTimer(graceMs, resolve)))]);
    timer?.cancel();
    if (e.child) {
      killGroup(pid, "SIGKILL");
      await e.exited;
    }
  }
}

/** Signals a process group (falls back to the process); absent processes are ignored. */
export function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    try {
      process.kill(pid, signal);
    } catch {
      // gone already
    }
  }
}
