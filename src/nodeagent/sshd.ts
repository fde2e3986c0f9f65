// The `sshd-ensurer` part (docs/maintenance-and-rotation.md#the-sshd-ensurer-part) behind a small interface: enabled means
// unmasked, enabled and running (sshd.service, falling back to ssh.service); disabled means disabled,
// masked, stopped and the connections left behind ended. The systemctl implementation works with
// systemd and with the machines' systemctl stand-in (src/host/machine-files.ts).
import { readFile, readdir } from "node:fs/promises";
import { runFile as run } from "../host/spawn.ts";

export interface SshdEnsurer {
  ensure(enabled: boolean): Promise<void>;
}

export const SSHD_UNITS = ["sshd.service", "ssh.service"] as const;

export type CommandRunner = (cmd: string, args: string[]) => Promise<{ code: number; stdout: string }>;

async function defaultRunner(cmd: string, args: string[]): Promise<{ code: number; stdout: string }> {
  try {
    const { stdout } = await run(cmd, args);
    return { code: 0, stdout };
  } catch (err) {
    const e = err as { code?: unknown; stdout?: string };
    if (typeof e.code !== "number") throw err; // the command itself could not run
    return { code: e.code, stdout: e.stdout ?? "" };
  }
}

/** PIDs of `sshd` processes whose parent is PID 1 (the machine's init): connections left behind by a stopped daemon. */
export async function orphanedSshdPids(proc = "/proc"): Promise<number[]> {
  const pids: number[] = [];
  for (const entry of await readdir(proc).catch(() => [] as string[])) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`${proc}/${entry}/stat`, "utf8").catch(() => "");
    const m = /^\d+ \((.*)\) \S+ (\d+)/.exec(stat);
    if (m && m[1] === "sshd" && m[2] === "1") pids.push(Number(entry));
  }
  return pids;
}

/** Ends the SSH connections a stopped sshd left behind (SIGTERM to the orphaned sshd processes). */
export async function endOrphanedConnections(): Promise<void> {
  for (const pid of await orphanedSshdPids()) {
    try {
      process.kill(pid, "SIGTERM");
    } catch {
      // already gone
    }
  }
}

export interface SystemctlSshdOptions {
  runner?: CommandRunner;
  /** Default endOrphanedConnections; only meaningful inside the machine's PID namespace. */
  endConnections?: () => Promise<void>;
}

export function systemctlSshd(o: SystemctlSshdOptions = {}): SshdEnsurer {
  const runner = o.runner ?? defaultRunner;
  const endConnections = o.endConnections ?? endOrphanedConnections;
  const systemctl = (...args: string[]) => runner("systemctl", args);
  return {
    async ensure(enabled) {
      if (enabled) {
        for (const unit of SSHD_UNITS) {
          await systemctl("unmask", unit);
          if ((await systemctl("enable", unit)).code !== 0) continue; // unit not found: try the next name
          if ((await systemctl("is-active", unit)).code === 0) return;
          const started = await systemctl("start", unit);
          if (started.code !== 0) throw new Error(`systemctl start ${unit} failed with exit code ${started.code}`);
          return;
        }
        throw new Error("neither sshd.service nor ssh.service can be enabled");
      }
      for (const unit of SSHD_UNITS) {
        await systemctl("disable", unit);
        await systemctl("mask", unit);
        await systemctl("stop", unit);
      }
      await endConnections();
    },
  };
}

/** Records the desired state only (roots other than "/", tests). */
export class RecordingSshd implements SshdEnsurer {
  readonly calls: boolean[] = [];
  ensure(enabled: boolean): Promise<void> {
    this.calls.push(enabled);
    return Promise.resolve();
  }
  get last(): boolean | undefined {
    return this.calls.at(-1);
  }
}
