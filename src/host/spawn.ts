// Processes that code outside host/ needs (gardenctl's ssh and public-IP command, the node agent's
// user and sshd tools, gardener-local's supervisor and components): the only place besides
// exec.ts that starts processes, so that one rule covers every process this project starts.
import { type ChildProcess, execFile, spawn, spawnSync } from "node:child_process";
import { closeSync, openSync } from "node:fs";
import { constants } from "node:os";
import { promisify } from "node:util";

export type { ChildProcess };

const execFileAsync = promisify(execFile);

/** Runs a command without a shell; rejects (as execFile does) on a non-zero exit. */
export async function runFile(command: string, args: readonly string[]): Promise<{ stdout: string; stderr: string }> {
  const { stdout, stderr } = await execFileAsync(command, [...args]);
  return { stdout, stderr };
}

export interface ShellResult {
  /** null when ended by a signal. */
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs `/bin/sh -c <script>` with stdin closed, killed (SIGTERM) after timeoutMs or on abort. */
export function runShell(script: string, options: { timeoutMs: number; signal?: AbortSignal }): Promise<ShellResult> {
  return new Promise((resolve, reject) => {
    const child = spawn("/bin/sh", ["-c", script], { stdio: ["ignore", "pipe", "pipe"], timeout: options.timeoutMs, signal: options.signal });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("error", reject);
    child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

export interface ForegroundProcess {
  child: ChildProcess;
  /** The exit status; 128 + n for signal n; 255 when it could not start. */
  exited: Promise<number>;
  /** SIGTERM, then SIGKILL after `graceMs`. */
  terminate(graceMs?: number): void;
}

/** Starts a command that shares this process's terminal (inherited stdio). */
export function startForeground(command: string, args: readonly string[], env: NodeJS.ProcessEnv): ForegroundProcess {
  const child = spawn(command, [...args], { stdio: "inherit", env });
  const exited = new Promise<number>((resolve) => {
    child.on("error", () => resolve(255));
    child.on("exit", (code, signal) => resolve(code ?? 128 + (signal ? (constants.signals[signal] ?? 0) : 0)));
  });
  let killTimer: NodeJS.Timeout | undefined;
  void exited.then(() => clearTimeout(killTimer));
  return {
    child,
    exited,
    terminate(graceMs = 5000) {
      child.kill("SIGTERM");
      killTimer = setTimeout(() => child.kill("SIGKILL"), graceMs);
      killTimer.unref();
    },
  };
}

/** Starts a command in its own session with stdout and stderr appended to logFile (stdin closed). */
export function startLogged(command: string, args: readonly string[], options: { logFile: string; env?: NodeJS.ProcessEnv }): ChildProcess {
  const fd = openSync(options.logFile, "a");
  try {
    return spawn(command, [...args], { detached: true, stdio: ["ignore", fd, fd], env: options.env ?? process.env });
  } finally {
    closeSync(fd);
  }
}

/** Runs a command to completion with inherited stdio; its exit status (null when killed). */
export function runInheritingSync(command: string, args: readonly string[]): number | null {
  return spawnSync(command, [...args], { stdio: "inherit" }).status;
}
