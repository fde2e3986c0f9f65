// Observing a machine: its status (from its record, /proc and the status files its init writes), waiting
// for readiness as it happens (inotify on the control directory), and running commands inside it.
import { readFileSync, watch } from "node:fs";
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import type { HostContext } from "./context.ts";
import type { RunOptions, RunResult } from "./exec.ts";
import { CTL } from "./machine-files.ts";
import { childrenOf, isAlive, listeningTcp, ref, type ProcessRef } from "./procs.ts";
import type { MachineRecord } from "./records.ts";

export interface MachineInterface {
  /** Name inside the machine (eth0, ...). */
  name: string;
  /** Address with prefix length. */
  address: string;
  /** The veth end attached to the bridge. */
  hostLink: string;
  bridge: string;
  bridgeNetns?: string;
  /** Ranges the machine routes for on this network (normalised CIDRs), which it may send from. */
  routed?: string[];
}

export interface MachineInfo {
  name: string;
  hostname: string;
  netns: string;
  /** <stateDir>/machines/<name> */
  dir: string;
  /** The machine's root as the host sees it (the overlay mount). */
  rootDir: string;
  /** The overlay's upper layer: every file the machine changed. */
  upperDir: string;
  consoleLog: string;
  interfaces: MachineInterface[];
  /** The supervisor (and so the machine) is alive. */
  running: boolean;
  /** User-data finished with 0 and sshd listens on every listen address. */
  ready: boolean;
  /** A pool machine waiting for its claim (docs/adr/0015-bastion-machine-pool.md). */
  held?: boolean;
  userDataExitCode?: number;
  /** Why the boot failed, if it did. */
  failed?: string;
  supervisor?: ProcessRef;
  /** The machine's PID 1, as seen from the host. */
  init?: ProcessRef;
  sshd: { port: number; listenAddresses: string[] };
  /** Public host keys sshd serves, "<type> <base64>", sorted by type. */
  hostKeys: string[];
}

/** The machine did not get ready in time (it may still). */
export class MachineNotReadyError extends Error {
  override readonly name = "MachineNotReadyError";
  constructor(readonly machine: string, readonly info?: MachineInfo) {
    super(`waiting for machine ${machine} to get ready`);
  }
}

/** The machine's boot failed: it exited, its user-data failed, or sshd did not start. */
export class MachineBootError extends Error {
  override readonly name = "MachineBootError";
  constructor(readonly machine: string, reason: string, readonly info?: MachineInfo) {
    super(`machine ${machine}: ${reason}`);
  }
}

export class MachineNotFoundError extends Error {
  override readonly name = "MachineNotFoundError";
  constructor(readonly machine: string) {
    super(`machine ${machine} not found`);
  }
}

/** A small status file's text (synchronous: a few microseconds, as records.ts explains); undefined when absent. */
async function readText(path: string): Promise<string | undefined> {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
}

export async function tail(path: string, lines = 20): Promise<string> {
  return ((await readText(path)) ?? "").trimEnd().split("\n").slice(-lines).join("\n");
}

/** "<type> <base64>" of each public key file in the directory, sorted by type. */
export async function readHostKeys(dir: string, files: readonly string[]): Promise<string[]> {
  const out: string[] = [];
  for (const f of files) {
    const text = await readText(join(dir, `${f}.pub`));
    const [type, key] = (text ?? "").trim().split(/\s+/);
    if (type && key) out.push(`${type} ${key}`);
  }
  return out.sort();
}

export function ctlDir(rec: MachineRecord): string {
  return join(rec.dir, "ctl");
}

/** The machine's PID 1: recorded, or the supervisor's child. */
export function findInit(rec: MachineRecord): ProcessRef | undefined {
  if (rec.init && isAlive(rec.init)) return rec.init;
  if (!rec.supervisor || !isAlive(rec.supervisor)) return undefined;
  const child = childrenOf(rec.supervisor.pid)[0];
  return child === undefined ? undefined : ref(child);
}

/** sshd listens on every listen address: IPv4's table first, IPv6's only when that does not show them all. */
function listens(init: ProcessRef | undefined, rec: MachineRecord): boolean {
  if (!init) return false;
  const wild = (a: string) => a === "0.0.0.0" || a === "::";
  const all = (socks: { address: string; port: number }[]) =>
    rec.sshd.listenAddresses.every((want) => socks.some((s) => s.port === rec.sshd.port && (s.address === want || wild(s.address))));
  return all(listeningTcp(init.pid, ["tcp"])) || all(listeningTcp(init.pid));
}

export async function getMachineRecord(ctx: HostContext, name: string): Promise<MachineRecord | undefined> {
  const r = await ctx.records.get(`machine/${name}`);
  return r?.kind === "machine" ? r : undefined;
}

export interface StatusOptions {
  /**
   * Whether `ready` also checks that sshd listens (default true). The check reads the machine's
   * /proc/<pid>/net/tcp, for which the kernel walks the whole host's TCP hash table (about 10 ms on a
   * 24 GiB host, whatever the namespace holds); without it `ready` trusts the machine's own report, which
   * its init writes only once sshd has written its pid file, that is, listens.
   */
  sockets?: boolean;
}

export async function statusOf(rec: MachineRecord, o: StatusOptions = {}): Promise<MachineInfo> {
  const ctl = ctlDir(rec);
  // A claim that did not finish (its claimer crashed) is no running machine: it is stopped and made anew.
  const running = rec.supervisor !== undefined && isAlive(rec.supervisor) && !(rec.claimedFrom !== undefined && rec.state === "creating");
  const init = running ? findInit(rec) : undefined;
  const exitText = await readText(join(ctl, "user-data.exit"));
  const failed = (await readText(join(ctl, "failed")))?.trim();
  const readyFile = (await readText(join(ctl, "ready"))) !== undefined;
  const info: MachineInfo = {
    name: rec.name,
    hostname: rec.hostname,
    netns: rec.netns,
    dir: rec.dir,
    rootDir: join(rec.dir, "root"),
    upperDir: join(rec.dir, "upper"),
    consoleLog: join(rec.dir, "console.log"),
    interfaces: rec.interfaces.map((i) => ({ ...i })),
    running,
    ready: false,
    sshd: { port: rec.sshd.port, listenAddresses: [...rec.sshd.listenAddresses] },
    hostKeys: await readHostKeys(rec.hostKeysDir, rec.sshd.hostKeyFiles),
  };
  if (exitText !== undefined && exitText.trim() !== "") info.userDataExitCode = Number(exitText.trim());
  if (failed) info.failed = failed;
  // Held until a claim begins (its marker, machine-handover.ts), even before the claim removes `held`.
  if (rec.hold && running && !failed && (await readText(join(ctl, "held"))) !== undefined && (await readText(join(rec.dir, "claimed-by"))) === undefined) info.held = true;
  if (rec.supervisor) info.supervisor = rec.supervisor;
  if (init) info.init = init;
  info.ready = running && readyFile && info.userDataExitCode === 0 && !failed && (o.sockets === false || listens(init, rec));
  return info;
}

export async function machineStatus(ctx: HostContext, name: string, o?: StatusOptions): Promise<MachineInfo | undefined> {
  const rec = await getMachineRecord(ctx, name);
  return rec ? statusOf(rec, o) : undefined;
}

async function bootFailure(rec: MachineRecord, info: MachineInfo): Promise<MachineBootError | undefined> {
  const ctl = ctlDir(rec);
  if (!info.running) return new MachineBootError(rec.name, `exited during boot:\n${await tail(info.consoleLog)}`, info);
  if (info.userDataExitCode !== undefined && info.userDataExitCode !== 0) {
    return new MachineBootError(rec.name, `user-data exited with ${info.userDataExitCode}:\n${await tail(join(ctl, "user-data.log"))}`, info);
  }
  if (info.failed) return new MachineBootError(rec.name, `${info.failed}:\n${await tail(join(ctl, "sshd.log"))}`, info);
  return undefined;
}

/** Exit promises of supervisors this process spawned, so a death is seen at once. */
export const supervisorExits = new Map<string, Promise<unknown>>();

/**
 * Resolves when the machine is ready; rejects with MachineBootError when its boot failed and with
 * MachineNotReadyError after `timeoutMs`. Driven by inotify events on the control directory; a slow timer
 * only notices a machine that died without writing anything.
 */
export function waitMachineReady(ctx: HostContext, name: string, timeoutMs = 60_000): Promise<MachineInfo> {
  return waitMachine(ctx, name, timeoutMs, "ready");
}

/** As waitMachineReady, until a held (pool) machine reports that it waits for its claim. */
export function waitMachineHeld(ctx: HostContext, name: string, timeoutMs = 60_000): Promise<MachineInfo> {
  return waitMachine(ctx, name, timeoutMs, "held");
}

async function waitMachine(ctx: HostContext, name: string, timeoutMs: number, until: "ready" | "held"): Promise<MachineInfo> {
  const rec = await getMachineRecord(ctx, name);
  if (!rec) throw new MachineNotFoundError(name);
  return new Promise<MachineInfo>((resolve, reject) => {
    let done = false;
    let running = false;
    let again = false;
    const watcher = watch(ctlDir(rec), () => void check());
    const timer = setInterval(() => void check(), 1000);
    const deadline = setTimeout(() => {
      void statusOf(rec).then((info) => finish(new MachineNotReadyError(name, info)), (err: unknown) => finish(err));
    }, timeoutMs);
    const finish = (err: unknown, info?: MachineInfo) => {
      if (done) return;
      done = true;
      watcher.close();
      clearInterval(timer);
      clearTimeout(deadline);
      if (info) resolve(info);
      else reject(err instanceof Error ? err : new Error(String(err)));
    };
    const check = async (): Promise<void> => {
      if (running) {
        again = true;
        return;
      }
      running = true;
      try {
        do {
          again = false;
          const info = await statusOf(rec);
          if (until === "ready" ? info.ready : info.held) return finish(undefined, info);
          const failure = await bootFailure(rec, info);
          if (failure) return finish(failure);
        } while (again && !done);
      } catch (err) {
        finish(err);
      } finally {
        running = false;
      }
    };
    watcher.on("error", (err) => finish(err));
    const exited = rec.supervisor ? supervisorExits.get(`${rec.supervisor.pid}:${rec.supervisor.startTime}`) : undefined;
    void exited?.then(() => check());
    void check();
  });
}

/** Runs a command inside the machine (all its namespaces, its root, the systemctl stand-in on PATH). */
export async function execInMachine(
  ctx: HostContext,
  name: string,
  command: string,
  args: readonly string[],
  options: Omit<RunOptions, "netns"> = {},
): Promise<RunResult> {
  const rec = await getMachineRecord(ctx, name);
  if (!rec) throw new MachineNotFoundError(name);
  const init = findInit(rec);
  if (!init) throw new MachineBootError(name, "is not running");
  const path = `PATH=${CTL}/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin`;
  return ctx.exec.run("nsenter", ["-t", String(init.pid), "-a", "--", "env", path, command, ...args], options);
}

/** Directories of machines present on disk (whether or not recorded). */
export async function machineDirs(ctx: HostContext): Promise<string[]> {
  try {
    return (await readdir(join(ctx.stateDir, "machines"))).map((n) => join(ctx.stateDir, "machines", n));
  } catch {
    return [];
  }
}
