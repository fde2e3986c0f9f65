// The one way host/ runs commands: execFile-style (no shell), with errors that name the command, its
// exit code and its stderr. Every change to the host goes through an Exec, so a RecordingExec can stand
// in for unit tests of the operations built on it.
import { spawn } from "node:child_process";
import { closeSync, openSync } from "node:fs";
import { readdir } from "node:fs/promises";
import { readStartTime } from "./procs.ts";
import { SpawnServer, type SpawnJob } from "./spawn-server.ts";

export interface RunOptions {
  /** Run inside this named network namespace (`nsenter --net=/run/netns/<name>`). */
  netns?: string;
  /** Written to the command's standard input. */
  input?: string;
  /** Exit codes that count as success (default [0]). */
  okExitCodes?: readonly number[];
  /** Kill the command after this many ms (default 120000). */
  timeoutMs?: number;
  /** Extra environment variables. */
  env?: Record<string, string>;
}

export interface RunResult {
  command: string;
  args: string[];
  exitCode: number;
  stdout: string;
  stderr: string;
}

export interface DetachedOptions {
  /** Start inside this named network namespace. */
  netns?: string;
  /** stdout and stderr are appended here. */
  logFile: string;
  env?: Record<string, string>;
  /** Working directory of the process. */
  cwd?: string;
}

/** A process that outlives the call (and, being in its own session, the caller's process group). */
export interface DetachedProcess {
  pid: number;
  /** /proc/<pid>/stat start time: with the pid, names the process across pid reuse. */
  startTime: string;
  /** Resolves with the exit code (null when killed by a signal); only known to the process that spawned it. */
  exited?: Promise<number | null>;
}

export interface Exec {
  run(command: string, args: readonly string[], options?: RunOptions): Promise<RunResult>;
  spawnDetached(command: string, args: readonly string[], options: DetachedOptions): Promise<DetachedProcess>;
  /**
   * The named network namespaces (what `ip netns list` prints) without starting a process; an Exec without
   * it is asked `ip netns list`. With a thousand namespaces `ip netns list` costs tens of milliseconds (it
   * asks the kernel for every namespace's id), and it runs for every namespace lookup.
   */
  netnsNames?(): Promise<string[]>;
}

/** The names in `ip netns list` output ("name (id: 3)" lines). */
export function parseNetnsList(stdout: string): string[] {
  return stdout
    .split("\n")
    .map((l) => l.trim().split(/\s+/)[0] ?? "")
    .filter((n) => n !== "");
}

/** Where `ip netns` keeps the named network namespaces. */
export const NETNS_RUN_DIR = "/run/netns";

/** A command that could not run or exited with an unexpected code. */
export class CommandError extends Error {
  override readonly name = "CommandError";
  constructor(
    readonly command: string,
    readonly args: readonly string[],
    /** -1 when the command could not be started or was killed by a signal. */
    readonly exitCode: number,
    readonly stderr: string,
    readonly stdout = "",
    options?: { cause?: unknown },
  ) {
    const what = exitCode === -1 ? "could not run" : `failed with exit code ${exitCode}`;
    const detail = stderr.trim() || stdout.trim();
    super(`${[command, ...args].join(" ")} ${what}${detail ? `: ${detail.slice(0, 2000)}` : ""}`, options);
  }
}

/** nsenter prefix that runs a command in a named network namespace. */
export function inNetns(netns: string | undefined, command: string, args: readonly string[]): [string, string[]] {
  if (netns === undefined) return [command, [...args]];
  return ["nsenter", [`--net=/run/netns/${netns}`, "--", command, ...args]];
}

const MAX_OUTPUT = 16 * 1024 * 1024;
/** The helper process that spawns HostExec's commands, shared by every HostExec of the process (spawn-server.ts). */
let spawner: SpawnServer | undefined;

/** The real thing: runs commands on this host. */
export class HostExec implements Exec {
  async netnsNames(): Promise<string[]> {
    try {
      return (await readdir(NETNS_RUN_DIR)).sort();
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return [];
      throw err;
    }
  }

  async run(command: string, args: readonly string[], options: RunOptions = {}): Promise<RunResult> {
    const [cmd, argv] = inNetns(options.netns, command, args);
    const ok = options.okExitCodes ?? [0];
    spawner ??= new SpawnServer(MAX_OUTPUT);
    const job: SpawnJob = { command: cmd, args: argv, input: options.input ?? "", timeoutMs: options.timeoutMs ?? 120_000 };
    if (options.env) job.env = options.env;
    const r = await spawner.run(job);
    if ("error" in r) {
      const hint = r.code === "ENOENT" ? `${cmd} not found (run \`npm run setup\`)` : r.error;
      throw new CommandError(cmd, argv, -1, hint);
    }
    const exitCode = r.exitCode ?? -1;
    if (ok.includes(exitCode)) return { command: cmd, args: argv, exitCode, stdout: r.stdout, stderr: r.stderr };
    throw new CommandError(cmd, argv, exitCode, r.signal ? `${r.stderr}\nkilled by ${r.signal}` : r.stderr, r.stdout);
  }

  async spawnDetached(command: string, args: readonly string[], options: DetachedOptions): Promise<DetachedProcess> {
    const [cmd, argv] = inNetns(options.netns, command, args);
    const fd = openSync(options.logFile, "a", 0o600);
    try {
      const child = spawn(cmd, argv, {
        detached: true,
        stdio: ["ignore", fd, fd],
        ...(options.cwd !== undefined ? { cwd: options.cwd } : {}),
        env: options.env ? { ...process.env, ...options.env } : process.env,
      });
      const spawned = new Promise<number>((resolve, reject) => {
        child.once("spawn", () => resolve(child.pid ?? -1));
        child.once("error", (err) => reject(new CommandError(cmd, argv, -1, err.message, "", { cause: err })));
      });
      const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
      const pid = await spawned;
      child.unref();
      const startTime = readStartTime(pid);
      if (startTime === undefined) {
        throw new CommandError(cmd, argv, -1, `exited at once; see ${options.logFile}`);
      }
      return { pid, startTime, exited };
    } finally {
      closeSync(fd);
    }
  }
}

export interface RecordedCall {
  command: string;
  args: string[];
  netns?: string;
  input?: string;
  detached?: boolean;
}

/** Answers a recorded call: a partial result (exitCode defaults to 0), or undefined for empty success. */
export type FakeAnswer = (call: RecordedCall) => Partial<RunResult> | undefined;

/**
 * An Exec that runs nothing: it records every call and answers from a function, so unit tests can check
 * which commands an operation issues (and that a second, idempotent call issues no changes).
 */
export class RecordingExec implements Exec {
  readonly calls: RecordedCall[] = [];
  private nextPid = 100000;

  constructor(private readonly answer: FakeAnswer = () => undefined) {}

  async run(command: string, args: readonly string[], options: RunOptions = {}): Promise<RunResult> {
    const call: RecordedCall = { command, args: [...args] };
    if (options.netns !== undefined) call.netns = options.netns;
    if (options.input !== undefined) call.input = options.input;
    this.calls.push(call);
    const a = this.answer(call) ?? {};
    const result: RunResult = { command, args: [...args], exitCode: a.exitCode ?? 0, stdout: a.stdout ?? "", stderr: a.stderr ?? "" };
    if (!(options.okExitCodes ?? [0]).includes(result.exitCode)) {
      throw new CommandError(command, args, result.exitCode, result.stderr, result.stdout);
    }
    return result;
  }

  async spawnDetached(command: string, args: readonly string[], options: DetachedOptions): Promise<DetachedProcess> {
    const call: RecordedCall = { command, args: [...args], detached: true };
    if (options.netns !== undefined) call.netns = options.netns;
    this.calls.push(call);
    return { pid: this.nextPid++, startTime: "0" };
  }

  /** The calls as "netns: command args" lines, for compact assertions. */
  lines(): string[] {
    return this.calls.map((c) => `${c.netns ? `${c.netns}: ` : ""}${[c.command, ...c.args].join(" ")}`);
  }
}
