// Containers: a process tree in its own mount, UTS and IPC namespaces (and PID namespace, unless it shares
// the node's or a pod's), in a named network namespace or the node's, under a shim (shim/shim.c) that holds
// its output, terminal and exit status. The shim is a recorded process (kind "process", name = the
// container's name), so a restarted caller finds it, and sweep removes it; everything the container mounts
// lives in its own mount namespace and vanishes with its last process. The container's directory (below the
// state directory) holds its setup spec (container-spec.ts), its exit file, and what the caller puts there.
import { spawn } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { existsSync, readFileSync, readdirSync, readlinkSync } from "node:fs";
import { mkdir, readFile, readdir, rm, stat, writeFile } from "node:fs/promises";
import { constants } from "node:os";
import { join, resolve } from "node:path";
import type { Readable, Writable } from "node:stream";
import { ownNetns, ownedFields, type HostContext, type Owned } from "./context.ts";
import { execPrefix, renderContainerSpec, type ContainerSetupSpec } from "./container-spec.ts";
import { resolveInRoot } from "./mount-target.ts";
import { isBelow } from "./mounts.ts";
import { HostSpecError } from "./names.ts";
import { processStatus, startProcess, stopProcess } from "./processes.ts";
import { isAlive, ref, waitGone, type ProcessRef } from "./procs.ts";
import { ShimClient, type ContainerStream } from "./shim-client.ts";
import { containerInitBinary, shimBinary } from "./shim.ts";
import { waitFor, watchDir, type DirChanges } from "./wait.ts";

export type { ContainerMount } from "./container-spec.ts";
export type { ContainerStream } from "./shim-client.ts";

/** What container-init needs (dir: below the state directory, made if missing), plus the shim's part. */
export interface ContainerSpec extends Owned, ContainerSetupSpec {
  /** Logical name of the shim's process record, unique in the state directory. */
  name: string;
  /** A named network namespace; omitted = the node's. */
  netns?: string;
  /** "new": PID 1 of its own PID namespace; "node": the node's; or the PID namespace of this process. */
  pid: "new" | "node" | { join: ProcessRef };
  tty?: boolean;
  stdin?: boolean;
  stdinOnce?: boolean;
  /** CRI-format log of the container's output. */
  logFile?: string;
  logMaxBytes?: number;
  /** Wait this long for the container to start (default 30 s). */
  startTimeoutMs?: number;
}

export interface ContainerExit {
  exitCode: number;
  signal: number;
  finishedAt: string;
}

export interface ContainerInfo {
  name: string;
  dir: string;
  /** The attach socket. */
  socket: string;
  shim?: ProcessRef;
  /** The container's first process (as the node sees it), once known. */
  init?: ProcessRef;
  /** The container's mount namespace ("mnt:[...]") while it runs. */
  mntns?: string;
  /** The setup finished and the command was executed. */
  started: boolean;
  startedAt?: string;
  exit?: ContainerExit;
  /** The shim or the container still runs. */
  running: boolean;
}

function checkDir(ctx: HostContext, dir: string): string {
  const d = resolve(dir);
  if (!isBelow(ctx.stateDir, d) || d === ctx.stateDir) throw new HostSpecError(`container directory ${d} is not below the state directory`);
  return d;
}

/** The attach socket of a container directory (short: unix socket paths are limited to 107 bytes). */
export function socketPath(ctx: HostContext, dir: string): string {
  return join(ctx.stateDir, "run", `${createHash("sha256").update(resolve(dir)).digest("hex").slice(0, 20)}.sock`);
}

async function readJson<T>(path: string): Promise<T | undefined> {
  try {
    return JSON.parse(await readFile(path, "utf8")) as T;
  } catch {
    return undefined;
  }
}

/** What is known of a container: from its directory, its shim's record and /proc. */
export async function containerInfo(ctx: HostContext, name: string, dir: string): Promise<ContainerInfo> {
  const d = checkDir(ctx, dir);
  const st = await processStatus(ctx, name);
  const info: ContainerInfo = { name, dir: d, socket: socketPath(ctx, d), started: false, running: false };
  if (st?.process) info.shim = st.process;
  const exit = await readJson<ContainerExit>(join(d, "exit"));
  if (exit) info.exit = exit;
  const started = await stat(join(d, "started")).catch(() => undefined);
  if (started && started.size > 0) {
    info.started = true;
    info.startedAt = started.mtime.toISOString();
  }
  const pid = Number((await readFile(join(d, "exit.pid"), "utf8").catch(() => "")).trim());
  const recorded = await readJson<{ init: ProcessRef }>(join(d, "init.json"));
  const init = recorded?.init ?? (pid > 0 ? ref(pid) : undefined);
  if (init) info.init = init;
  if (init && isAlive(init)) {
    try {
      info.mntns = readlinkSync(`/proc/${init.pid}/ns/mnt`);
    } catch {
      // exited meanwhile
    }
  }
  info.running = !info.exit && ((info.shim !== undefined && isAlive(info.shim)) || (init !== undefined && isAlive(init)));
  if (!info.running && !info.exit) {
    // The shim writes the exit file before it exits: one that ended since the first read has it now.
    const late = await readJson<ContainerExit>(join(d, "exit"));
    if (late) info.exit = late;
  }
  return info;
}

/**
 * The info of a container known before, re-read only when it may have changed: a started container whose
 * exit file is missing and whose shim and first process still live is as it was (a kubelet asking every
 * second for every pod's status read seven files per container).
 */
export async function refreshContainerInfo(ctx: HostContext, info: ContainerInfo): Promise<ContainerInfo> {
  const unchanged = info.running && info.started && info.init !== undefined && isAlive(info.init) && (info.shim === undefined || isAlive(info.shim)) && !existsSync(join(info.dir, "exit"));
  return unchanged ? info : containerInfo(ctx, info.name, info.dir);
}

/** Builds the shim and container-init now (otherwise the first container's start waits for the compiler). */
export async function prepareContainers(ctx: HostContext): Promise<void> {
  await Promise.all([shimBinary(ctx.exec, ctx.stateDir), containerInitBinary(ctx.exec, ctx.stateDir)]);
}

/**
 * Starts the container under a new shim and waits until its command runs (or it ended during setup). A
 * container directory is used once: starting again in the same directory is refused.
 */
export async function startContainer(ctx: HostContext, spec: ContainerSpec): Promise<ContainerInfo> {
  const dir = checkDir(ctx, spec.dir);
  if (spec.logFile) checkDir(ctx, spec.logFile);
  const existing = await processStatus(ctx, spec.name);
  if (existing?.running) throw new HostSpecError(`container ${spec.name} already runs`);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  if ((await readdir(dir)).some((f) => f === "exit" || f === "exit.pid")) throw new HostSpecError(`container directory ${dir} was used before`);
  // Targets are resolved inside the container's root first: a link such as /var/run -> /run would
  // otherwise be followed on the node, out of the container's root.
  const mounts = await Promise.all(spec.mounts.map(async (m) => ({ ...m, target: await resolveInRoot(m.target) })));
  const setup = renderContainerSpec({ dir, hostname: spec.hostname, privileged: spec.privileged, mounts, command: spec.command, env: spec.env, ...(spec.workingDir ? { workingDir: spec.workingDir } : {}), ...(spec.rootSize ? { rootSize: spec.rootSize } : {}), ...(spec.hide ? { hide: spec.hide } : {}) });
  await writeFile(join(dir, "setup.spec"), setup, { mode: 0o600 });
  const [shim, init] = await Promise.all([shimBinary(ctx.exec, ctx.stateDir), containerInitBinary(ctx.exec, ctx.stateDir)]);
  const socket = socketPath(ctx, dir);
  await mkdir(join(ctx.stateDir, "run"), { recursive: true, mode: 0o700 });
  const args = ["-s", socket, "-x", join(dir, "exit")];
  if (spec.logFile) args.push("-l", spec.logFile, ...(spec.logMaxBytes ? ["-m", String(spec.logMaxBytes)] : []));
  if (spec.tty) args.push("-t");
  if (spec.stdin) args.push("-i");
  if (spec.stdinOnce) args.push("-o");
  // The shim joins the network namespace itself: one process start fewer than through nsenter.
  if (spec.netns) args.push("-n", `/run/netns/${ownNetns(ctx, spec.netns)}`);
  if (spec.pid === "new") args.push("-N");
  else if (spec.pid !== "node") {
    if (!isAlive(spec.pid.join)) throw new HostSpecError(`the PID namespace of process ${spec.pid.join.pid} is gone`);
    args.push("-J", `/proc/${spec.pid.join.pid}/ns/pid`);
  }
  args.push("--", init, join(dir, "setup.spec"));
  // The container's start and end are files in its directory (started, exit.pid, exit): watched, not polled.
  const changes = watchDir(dir);
  try {
    return await runShim(ctx, spec, dir, shim, args, changes);
  } finally {
    changes.close();
  }
}

/**
 * A start is over once the command runs and its pid is known, or the container ended (or its shim did). The
 * command writes `started` itself, the shim writes `exit.pid` after its fork returns: on a busy machine the
 * first can come well before the second, and a container without its pid cannot be exec'd into yet.
 */
export function startSettled(i: Pick<ContainerInfo, "started" | "init" | "exit" | "running">): boolean {
  return (i.started && i.init !== undefined) || i.exit !== undefined || !i.running;
}

async function runShim(ctx: HostContext, spec: ContainerSpec, dir: string, shim: string, args: string[], changes: DirChanges): Promise<ContainerInfo> {
  await startProcess(ctx, {
    name: spec.name,
    command: shim,
    args,
    logFile: join(dir, "shim.log"),
    ...ownedFields(spec),
  });
  const info = await waitFor(async () => {
    const i = await containerInfo(ctx, spec.name, dir);
    return startSettled(i) ? i : undefined;
  }, spec.startTimeoutMs ?? 30_000, changes);
  if (!info) throw new Error(`container ${spec.name} did not start within ${spec.startTimeoutMs ?? 30_000} ms; see ${join(dir, "shim.log")}`);
  if (info.init) await writeFile(join(dir, "init.json"), JSON.stringify({ init: info.init }));
  return info;
}

/** Processes (other than `except`) whose mount namespace is `mntns`. */
export function processesInMountNamespace(mntns: string): ProcessRef[] {
  const out: ProcessRef[] = [];
  for (const p of readdirSync("/proc")) {
    if (!/^\d+$/.test(p)) continue;
    try {
      if (readlinkSync(`/proc/${p}/ns/mnt`) !== mntns) continue;
    } catch {
      continue;
    }
    const r = ref(Number(p));
    if (r) out.push(r);
  }
  return out;
}

/** Sends a signal to the container's first process. */
export function signalContainer(info: ContainerInfo, signal: NodeJS.Signals): void {
  if (info.init && isAlive(info.init)) {
    try {
      process.kill(info.init.pid, signal);
    } catch {
      // exited meanwhile
    }
  }
}

/**
 * Stops the container: SIGTERM to its first process and a hangup of its terminal, SIGKILL to all its
 * processes after graceMs (a PID namespace dies with its PID 1; in a shared or the node's PID namespace its
 * processes are found by mount namespace). Resolves once the shim wrote the exit status, or is gone.
 */
export async function stopContainer(ctx: HostContext, name: string, dir: string, graceMs: number): Promise<ContainerInfo> {
  let info = await containerInfo(ctx, name, dir);
  if (!info.running) return info;
  const mntns = info.mntns;
  if (graceMs > 0 && info.init && isAlive(info.init)) {
    signalContainer(info, "SIGTERM");
    await new ShimClient(info.socket).hangup().catch(() => undefined);
    await waitGone([info.init], graceMs);
  }
  const victims = [...(info.init && isAlive(info.init) ? [info.init] : []), ...(mntns ? processesInMountNamespace(mntns) : [])];
  for (const v of victims) {
    try {
      if (isAlive(v)) process.kill(v.pid, "SIGKILL");
    } catch {
      // exited meanwhile
    }
  }
  await waitGone(victims, 10_000);
  info = (await waitFor(async () => {
    const i = await containerInfo(ctx, name, dir);
    return i.running ? undefined : i;
  }, 5000)) ?? info;
  if (info.shim && isAlive(info.shim)) await stopProcess(ctx, name);
  return containerInfo(ctx, name, dir);
}

/** Stops what still runs, forgets the shim's record and removes the container's directory and socket. */
export async function removeContainer(ctx: HostContext, name: string, dir: string): Promise<void> {
  const d = checkDir(ctx, dir);
  await stopContainer(ctx, name, d, 0);
  await stopProcess(ctx, name);
  await rm(socketPath(ctx, d), { force: true });
  await rm(d, { recursive: true, force: true });
}

/** Attaches to the container's shim: its output from now on, its input (if kept open) and its terminal. */
export function attachContainer(info: ContainerInfo): Promise<ContainerStream> {
  return new ShimClient(info.socket).attach();
}

export interface ExecOptions {
  tty?: boolean;
  /** The terminal's size when the command starts (with `tty`). */
  size?: { width: number; height: number };
  stdin?: boolean;
  privileged: boolean;
  env: readonly (readonly [string, string])[];
}

/**
 * Runs a command in a running container's namespaces (mount, UTS, IPC, network, PID), root and working
 * directory, with its capabilities and environment. With a terminal it runs under a shim of its own (not
 * recorded: it ends with the command or with the container).
 */
function sizeArgs(size: ExecOptions["size"]): string[] {
  if (!size || size.width <= 0 || size.height <= 0) return [];
  return ["-W", `${Math.min(size.width, 65535)}x${Math.min(size.height, 65535)}`];
}

export async function execInContainer(ctx: HostContext, info: ContainerInfo, command: readonly string[], options: ExecOptions): Promise<ContainerStream> {
  if (!info.init || !isAlive(info.init)) throw new HostSpecError(`container ${info.name} is not running`);
  if (command.length === 0) throw new HostSpecError("exec needs a command");
  const enter = ["nsenter", "-t", String(info.init.pid), "-m", "-u", "-i", "-n", "-p", "-r", "-w", "--", ...execPrefix(options.privileged, options.env), ...command];
  if (!options.tty) {
    const child = spawn(enter[0]!, enter.slice(1), { stdio: [options.stdin ? "pipe" : "ignore", "pipe", "pipe"] });
    const exit = new Promise<number>((resolveExit, reject) => {
      child.once("error", reject);
      child.once("close", (code, signal) => resolveExit(code ?? 128 + (signal ? signalNumber(signal) : 0)));
    });
    return {
      stdin: (child.stdin as Writable | null) ?? null,
      stdout: child.stdout as Readable,
      stderr: child.stderr as Readable,
      resize: () => undefined,
      exit,
      close: () => void child.kill("SIGKILL"),
    };
  }
  const runDir = join(ctx.stateDir, "run");
  await mkdir(runDir, { recursive: true, mode: 0o700 });
  const id = randomBytes(8).toString("hex");
  const socket = join(runDir, `exec-${id}.sock`);
  const exitFile = join(runDir, `exec-${id}.exit`);
  // The shim forks the command's session inside the container's PID namespace (-J), so the command leads its
  // own session there with the terminal as its controlling one: an interactive shell can then put its
  // jobs in the foreground (through nsenter -p the session leader would stay outside, and sh fails with
  // "Cannot set tty process group"). -w holds the command until this client is connected: a shell's first
  // prompt would otherwise be read from the terminal before anyone listens, and lost (an exec has no log).
  const enterTty = ["nsenter", "-t", String(info.init.pid), "-m", "-u", "-i", "-n", "-r", "-w", "--", ...execPrefix(options.privileged, options.env), ...command];
  const shim = spawn(await shimBinary(ctx.exec, ctx.stateDir), ["-s", socket, "-x", exitFile, "-t", ...sizeArgs(options.size), ...(options.stdin ? ["-i"] : []), "-w", "-J", `/proc/${info.init.pid}/ns/pid`, "--", ...enterTty], { stdio: ["ignore", "ignore", "pipe"] });
  let shimErr = "";
  shim.stderr?.on("data", (d: Buffer) => (shimErr = (shimErr + String(d)).slice(-4096)));
  const done = new Promise<void>((r) => shim.once("close", () => r()));
  void done.then(() => Promise.all([rm(socket, { force: true }), rm(exitFile, { force: true }), rm(`${exitFile}.pid`, { force: true }), rm(`${exitFile}.tmp`, { force: true })]));
  await waitFor(async () => ((await stat(socket).catch(() => undefined)) ? true : undefined), 5000);
  const stream = await new ShimClient(socket).attach().catch(async (err: Error) => {
    shim.kill("SIGTERM");
    await Promise.race([done, new Promise((r) => setTimeout(r, 500))]);
    throw new Error(`${err.message}${shimErr ? `: ${shimErr.trim()}` : ""}`);
  });
  return { ...stream, close: () => void shim.kill("SIGTERM") };
}

function signalNumber(signal: NodeJS.Signals): number {
  return constants.signals[signal] ?? 0;
}

/** The shim's pid as it wrote it, for tests and diagnostics. */
export function shimChildPid(dir: string): number | undefined {
  try {
    return Number(readFileSync(join(dir, "exit.pid"), "utf8").trim()) || undefined;
  } catch {
    return undefined;
  }
}
