// Test support for gardenctl: the bastion landscape of test/integration/bastion (real garden API
// server, controller manager, gardenlet and the provider with the TestActuator) plus what
// `gardenctl ssh` needs around a shoot: the node key secret `<shoot>.ssh-keypair`, Nodes (served
// by the landscape's seed API server, reached via the `<shoot>.kubeconfig` secret), a fake `ssh`
// first on PATH, and a runner for the real CLI as a child process.
import { type ChildProcess, spawn } from "node:child_process";
import { generateKeyPairSync } from "node:crypto";
import { copyFileSync, mkdirSync, readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { ed25519AuthorizedKey } from "../../../src/api/operations/testing.ts";
import { Secrets } from "../../../src/client/builtins.ts";
import type { Client } from "../../../src/client/index.ts";
import { NODE_HOST_KEYS_ANNOTATION, type Node, Nodes } from "../../../src/cli/commands/ssh/resources.ts";
import { repoRoot } from "../../support/apiserver.ts";
import { eventually } from "../../support/http.ts";
import { HOST_KEY } from "../bastion/actuator.ts";
import { type Landscape, PROJECT_NS, createShoot, startLandscape } from "../bastion/landscape.ts";

export { PROJECT_NS };
export const SHOOT = "s";
/** The host key the test provider publishes for every bastion. */
export const BASTION_HOST_KEY = HOST_KEY;
export const NODE_HOST_KEY = ed25519AuthorizedKey("").trim();

export interface Env {
  ls: Landscape;
  dir: string;
  kubeconfig: string;
  tmp: string;
  home: string;
  sshLog: string;
}

export async function startEnv(): Promise<Env> {
  const ls = await startLandscape();
  try {
    return await prepareEnv(ls);
  } catch (err) {
    // The suite's after hook never sees a landscape whose setup failed: stop it here, or its servers keep the file alive.
    await ls.stop();
    throw err;
  }
}

async function prepareEnv(ls: Env["ls"]): Promise<Env> {
  const shoot = await createShoot(ls, SHOOT);
  void shoot;
  const dir = join(ls.dir, "gardenctl");
  const tmp = join(dir, "tmp");
  const home = join(dir, "home");
  const bin = join(dir, "bin");
  for (const d of [tmp, home, bin]) mkdirSync(d, { recursive: true });
  copyFileSync(join(repoRoot, "test/integration/gardenctl/fake-ssh.mjs"), join(bin, "ssh"));
  const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const pem = privateKey.export({ format: "pem", type: "pkcs1" }).toString();
  await ls.gardenAdmin.create(Secrets, { metadata: { name: `${SHOOT}.ssh-keypair`, namespace: PROJECT_NS }, data: { id_rsa: b64(pem), "id_rsa.pub": b64("ssh-rsa AAAA") } });
  await ls.gardenAdmin.create(Secrets, { metadata: { name: `${SHOOT}.kubeconfig`, namespace: PROJECT_NS }, data: { kubeconfig: b64(readFileSync(ls.seed.adminKubeconfigPath, "utf8")) } });
  await createNode(ls.seedAdmin, "node-b", "10.250.0.6", { ready: false });
  await createNode(ls.seedAdmin, "node-a", "10.250.0.5", { ready: true, hostKeys: true });
  return { ls, dir, kubeconfig: await ls.kubeconfigFor("alice"), tmp, home, sshLog: join(dir, "ssh.log") };
}

function b64(s: string): string {
  return Buffer.from(s).toString("base64");
}

async function createNode(c: Client, name: string, ip: string, o: { ready: boolean; hostKeys?: boolean }): Promise<void> {
  const annotations = o.hostKeys ? { [NODE_HOST_KEYS_ANNOTATION]: `${NODE_HOST_KEY} root@${name}\n` } : undefined;
  await c.create(Nodes, { metadata: { name, ...(annotations ? { annotations } : {}) }, spec: {} } as Node);
  await c.patchStatus(Nodes, { name }, {
    type: "merge",
    body: { status: { addresses: [{ type: "InternalIP", address: ip }, { type: "Hostname", address: name }, { type: "InternalDNS", address: `${name}.internal` }], conditions: [{ type: "Ready", status: o.ready ? "True" : "False" }] } },
  });
}

export interface CLIRun {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  exit: Promise<number | null>;
  /** Polls `fn` like eventually(); a timeout's error carries the process's stderr so far. */
  until<T>(what: string, fn: () => T | undefined, timeoutMs?: number): Promise<T>;
  /** Resolves once stderr (or stdout) matches. */
  waitFor(re: RegExp, stream?: "stderr" | "stdout", timeoutMs?: number): Promise<RegExpExecArray>;
  /** When (performance.now()) stderr first matched `re`, or undefined. */
  seenAt(re: RegExp): number | undefined;
  /** Ends the process (SIGKILL) unless it has exited: for the `finally` of a test that failed midway. */
  kill(): void;
}

/** How long tests wait for a gardenctl process to get somewhere: generous, for a loaded CI machine. */
export const CLI_WAIT_MS = 60_000;

export interface RunOptions {
  env?: Record<string, string>;
  /** Without the usual --kubeconfig/--project/--shoot/--cidr. */
  bare?: boolean;
}

export function gardenctl(e: Env, args: string[], o: RunOptions = {}): CLIRun {
  const before = args.includes("--") ? args.slice(0, args.indexOf("--")) : args;
  const after = args.includes("--") ? args.slice(args.indexOf("--")) : [];
  const target = o.bare ? [] : ["--kubeconfig", e.kubeconfig, "--project", "p", "--shoot", SHOOT, "--cidr", "203.0.113.7/32"];
  const child = spawn(process.execPath, [join(repoRoot, "bin/gardenctl.js"), "ssh", ...before, ...target, ...after], {
    cwd: repoRoot,
    stdio: ["ignore", "pipe", "pipe"],
    env: { PATH: `${join(e.dir, "bin")}:${process.env.PATH ?? ""}`, HOME: e.home, TMPDIR: e.tmp, GCTL_HOME: e.home, FAKE_SSH_LOG: e.sshLog, ...o.env },
  });
  let out = "";
  let err = "";
  const arrivals: { at: number; length: number }[] = [];
  child.stdout?.on("data", (c: Buffer) => (out += c.toString("utf8")));
  child.stderr?.on("data", (c: Buffer) => {
    err += c.toString("utf8");
    arrivals.push({ at: performance.now(), length: err.length });
  });
  async function until<T>(what: string, fn: () => T | undefined, timeoutMs = CLI_WAIT_MS): Promise<T> {
    try {
      return await eventually(what, fn, timeoutMs, 20);
    } catch (e) {
      throw new Error(`${(e as Error).message}\nstderr so far:\n${err}`);
    }
  }
  let exited = false;
  const exit = new Promise<number | null>((resolve) => child.once("exit", (code, signal) => ((exited = true), resolve(code ?? (signal ? -1 : null)))));
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    exit,
    until,
    waitFor: (re, stream = "stderr", timeoutMs = CLI_WAIT_MS) => until(`${re} on ${stream}`, () => re.exec(stream === "stderr" ? err : out) ?? undefined, timeoutMs),
    seenAt: (re) => {
      const m = re.exec(err);
      if (!m) return undefined;
      return arrivals.find((a) => a.length >= m.index + m[0].length)?.at;
    },
    kill: () => {
      if (!exited) child.kill("SIGKILL");
    },
  };
}

export interface SSHRecord {
  argv: string[];
  files: Record<string, { mode: number; content?: string }>;
  signal?: string;
  hanging?: boolean;
}

export function sshRecords(e: Env): SSHRecord[] {
  try {
    return readFileSync(e.sshLog, "utf8").trim().split("\n").filter(Boolean).map((l) => JSON.parse(l) as SSHRecord);
  } catch {
    return [];
  }
}

export function privateDirs(e: Env): string[] {
  return readdirSync(e.tmp).filter((n) => n.startsWith("gardenctl-ssh-"));
}
