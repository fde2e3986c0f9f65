// Runs the real `gardener-apiserver` binary as a child process, the way a user would.
// Contract relied on (see the command-line contract in the project's brief):
//   node bin/gardener-apiserver.js --data-dir D --secure-port P --bind-address 127.0.0.1
//        [--etcd-servers URL] [--token-auth-file CSV] [extra flags]
// prints `serving on https://127.0.0.1:<port>` when ready, writes D/admin.kubeconfig, stops on SIGTERM.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { readKubeconfig } from "./kubeconfig.ts";

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
export const apiserverBin = join(repoRoot, "bin", "gardener-apiserver.js");

export interface StartOptions {
  dataDir?: string;
  storage: "sqlite" | "etcd";
  /** Required when storage is "etcd", e.g. http://127.0.0.1:23790. */
  etcdEndpoint?: string;
  tokenAuthFile?: string;
  /** Further flags passed verbatim, e.g. ["--watch-cache-size", "10"]. */
  extraArgs?: string[];
  /** Flags for node itself, before the script, e.g. ["--cpu-prof"]. */
  nodeArgs?: string[];
  /** Milliseconds to wait for the ready line; default 60 s. */
  startTimeoutMs?: number;
}

export interface ApiServerProcess {
  url: string;
  port: number;
  dataDir: string;
  /** Path of the admin kubeconfig the server wrote (client cert in group system:masters). */
  kubeconfig: string;
  caPem: string;
  /** The current child process (replaced by restart()). */
  child: ChildProcess;
  /** Everything the current child printed so far (stdout and stderr interleaved). */
  output(): string;
  /** SIGTERM, then SIGKILL after 10 s; resolves when the process is gone. Idempotent. */
  stop(): Promise<void>;
  /** Sends `signal` and resolves when the process has exited. */
  kill(signal: NodeJS.Signals): Promise<void>;
  /** Stops the process if it still runs, then starts it again on the same data dir and port. */
  restart(): Promise<void>;
  /** stop(), then removes the data dir if the harness created it. */
  dispose(): Promise<void>;
}

const readyLine = /serving on (https:\/\/127\.0\.0\.1:(\d+))/;
const maxOutput = 200_000;

interface Spawned {
  child: ChildProcess;
  url: string;
  port: number;
  output: () => string;
  exited: Promise<void>;
}

function buildArgs(opts: StartOptions, dataDir: string, port: number): string[] {
  const args = [...(opts.nodeArgs ?? []), apiserverBin, "--data-dir", dataDir, "--secure-port", String(port), "--bind-address", "127.0.0.1"];
  if (opts.storage === "etcd") {
    if (!opts.etcdEndpoint) throw new Error("startApiServerProcess: storage etcd needs etcdEndpoint");
    args.push("--etcd-servers", opts.etcdEndpoint);
  }
  if (opts.tokenAuthFile) args.push("--token-auth-file", opts.tokenAuthFile);
  args.push(...(opts.extraArgs ?? []));
  return args;
}

function spawnServer(opts: StartOptions, dataDir: string, port: number): Promise<Spawned> {
  const args = buildArgs(opts, dataDir, port);
  const child = spawn(process.execPath, args, { cwd: repoRoot, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env } });
  let out = "";
  const append = (chunk: Buffer): void => {
    out += chunk.toString("utf8");
    if (out.length > maxOutput) out = out.slice(out.length - maxOutput);
  };
  const exited = new Promise<void>((res) => child.once("exit", () => res()));
  const timeoutMs = opts.startTimeoutMs ?? 60_000;
  return new Promise<Spawned>((resolvePromise, reject) => {
    let stdoutBuf = "";
    let settled = false;
    const fail = (why: string): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
      reject(new Error(`gardener-apiserver did not start: ${why}\ncommand: node ${args.join(" ")}\n--- output ---\n${out}`));
    };
    const timer = setTimeout(() => fail(`no "serving on" line within ${timeoutMs} ms`), timeoutMs);
    child.stderr?.on("data", append);
    child.stdout?.on("data", (chunk: Buffer) => {
      append(chunk);
      if (settled) return;
      stdoutBuf += chunk.toString("utf8");
      const m = readyLine.exec(stdoutBuf);
      if (!m) return;
      settled = true;
      clearTimeout(timer);
      resolvePromise({ child, url: m[1]!, port: Number(m[2]), output: () => out, exited });
    });
    child.once("error", (err) => fail(`spawn error: ${err.message}`));
    child.once("exit", (code, signal) => fail(`exited early with code ${code} signal ${signal}`));
  });
}

async function waitExit(s: Spawned, signal: NodeJS.Signals, graceMs: number): Promise<void> {
  if (s.child.exitCode !== null || s.child.signalCode !== null) return;
  s.child.kill(signal);
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<boolean>((res) => {
    timer = setTimeout(() => res(true), graceMs);
  });
  const tooLong = await Promise.race([s.exited.then(() => false), timedOut]);
  clearTimeout(timer);
  if (tooLong) {
    s.child.kill("SIGKILL");
    await s.exited;
    throw new Error(`gardener-apiserver did not exit within ${graceMs} ms of ${signal}; killed it\n${s.output().slice(-4000)}`);
  }
}

/** Starts the real server binary. Port 0 lets the server choose; restart() reuses the chosen port. */
export async function startApiServerProcess(opts: StartOptions): Promise<ApiServerProcess> {
  const ownDir = opts.dataDir === undefined;
  const dataDir = opts.dataDir ?? mkdtempSync(join(tmpdir(), "gapi-"));
  let current: Spawned;
  try {
    current = await spawnServer(opts, dataDir, 0);
  } catch (e) {
    if (ownDir) rmSync(dataDir, { recursive: true, force: true });
    throw e;
  }
  const port = current.port;
  const kubeconfig = join(dataDir, "admin.kubeconfig");
  const caPem = readKubeconfig(kubeconfig).caPem;
  const handle: ApiServerProcess = {
    url: current.url,
    port,
    dataDir,
    kubeconfig,
    caPem,
    child: current.child,
    output: () => current.output(),
    stop: () => waitExit(current, "SIGTERM", 10_000),
    kill: (signal) => waitExit(current, signal, 10_000),
    restart: async () => {
      await waitExit(current, "SIGTERM", 10_000);
      current = await spawnServer(opts, dataDir, port);
      handle.child = current.child;
      if (current.port !== port) throw new Error(`restart: server came back on port ${current.port}, not ${port}`);
    },
    dispose: async () => {
      try {
        await waitExit(current, "SIGTERM", 10_000);
      } finally {
        if (ownDir) rmSync(dataDir, { recursive: true, force: true });
      }
    },
  };
  return handle;
}
