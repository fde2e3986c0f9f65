// The client side of `gardener-local`: `up` starts the supervisor process detached and follows its
// progress until the landscape is ready (or failed); `status` reads status.json; `down` stops the
// supervisor and its components, kills whatever a crashed run left and removes every host object.
import { existsSync, mkdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { LinuxHost, type SweepReport } from "../host/index.ts";
import { BASTION_POOL_SIZE_ENV, BASTION_TTL_ENV, MAX_RESTART_BACKOFF_ENV, NODE_GRACE_ENV, REPO, SSH_KEYPAIR_POOL_SIZE_ENV, GARDENLET_METRICS_ENV, bin } from "./components.ts";
import { type Layout, killRecorded, pidOfOurs } from "./layout.ts";
import { readStatus, formatStatus, type LandscapeStatus } from "./status.ts";
import { runInheritingSync, startLogged } from "../host/spawn.ts";
import { ensureWebDist } from "./webdist.ts";

export class NotRootError extends Error {
  constructor(command: string) {
    super(`gardener-local ${command} must run as root: it creates network namespaces, veths, bridges, mounts and nftables rules (try: sudo gardener-local ${command})`);
    this.name = "NotRootError";
  }
}

export function requireRoot(command: string, uid = process.getuid?.()): void {
  if (uid !== 0) throw new NotRootError(command);
}

/** Installs missing Debian packages (scripts/setup.mjs). */
export function ensurePackages(): void {
  const status = runInheritingSync(process.execPath, [join(REPO, "scripts", "setup.mjs"), "--quiet"]);
  if (status !== 0) throw new Error("installing the Debian packages the landscape needs failed (see above)");
}

export function supervisorPid(layout: Layout): number | undefined {
  return pidOfOurs(layout.supervisorPid, layout.dir);
}

export interface UpOptions {
  prefix: string;
  ports: { garden: number; seed: number; shoot: number };
  timeoutMs?: number;
  /** The public network (default provider-local's, a /16): every bastion has one of its addresses. */
  publicCidr?: string;
  /** The garden API server's `--bastion-time-to-live` (a Go duration, e.g. "20s"); default 1h. */
  bastionTimeToLive?: string;
  /** The seed's and shoot's `--node-monitor-grace-period` (a Go duration); default 40s. */
  nodeMonitorGracePeriod?: string;
  /** The longest wait before the supervisor restarts a component that exited (a Go duration); default 30s. */
  maxRestartBackoff?: string;
  /** The gardenlet's `--ssh-keypair-pool-size`; its default when unset. */
  sshKeypairPoolSize?: number;
  /** provider-local's `--bastion-pool-size` (0 disables the pool); its default when unset. */
  bastionPoolSize?: number;
  /** The gardenlet's `--metrics-bind-address` (host:port on loopback); none when unset. */
  gardenletMetricsAddress?: string;
  /** Progress lines. */
  out: (line: string) => void;
  /**
   * Aborted (SIGINT, SIGTERM to `up`): the supervisor is stopped, also one that has not recorded its pid yet,
   * and up rejects with UpInterruptedError once it has exited; `down` then removes what it built.
   */
  signal?: AbortSignal;
}

export class UpInterruptedError extends Error {
  override readonly name = "UpInterruptedError";
}

/** The supervisor's environment: ours, plus the options its command line does not carry. */
export function supervisorEnv(o: Pick<UpOptions, "bastionTimeToLive" | "nodeMonitorGracePeriod" | "maxRestartBackoff" | "sshKeypairPoolSize" | "bastionPoolSize" | "gardenletMetricsAddress">, base: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const env = { ...base };
  delete env[BASTION_TTL_ENV];
  delete env[NODE_GRACE_ENV];
  delete env[MAX_RESTART_BACKOFF_ENV];
  delete env[SSH_KEYPAIR_POOL_SIZE_ENV];
  delete env[BASTION_POOL_SIZE_ENV];
  delete env[GARDENLET_METRICS_ENV];
  if (o.bastionTimeToLive) env[BASTION_TTL_ENV] = o.bastionTimeToLive;
  if (o.nodeMonitorGracePeriod) env[NODE_GRACE_ENV] = o.nodeMonitorGracePeriod;
  if (o.maxRestartBackoff) env[MAX_RESTART_BACKOFF_ENV] = o.maxRestartBackoff;
  if (o.sshKeypairPoolSize) env[SSH_KEYPAIR_POOL_SIZE_ENV] = String(o.sshKeypairPoolSize);
  if (o.bastionPoolSize !== undefined) env[BASTION_POOL_SIZE_ENV] = String(o.bastionPoolSize);
  if (o.gardenletMetricsAddress) env[GARDENLET_METRICS_ENV] = o.gardenletMetricsAddress;
  return env;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;

/** Starts the landscape; resolves with the status once Ready, rejects when it failed or timed out. */
export async function up(layout: Layout, o: UpOptions): Promise<LandscapeStatus> {
  if (o.signal?.aborted) throw new UpInterruptedError("gardener-local up was interrupted before it started the supervisor");
  mkdirSync(layout.logs, { recursive: true });
  mkdirSync(layout.run, { recursive: true });
  const running = supervisorPid(layout);
  if (running !== undefined) {
    const s = readStatus(layout);
    if (s?.phase === "Ready") {
      o.out(`landscape already running (supervisor pid ${running})`);
      return s;
    }
    throw new Error(`a supervisor (pid ${running}) is still ${s?.phase ?? "starting"}; run \`gardener-local down\` first`);
  }
  // The dashboard the supervisor starts serves web/dist: built before, with Vite's progress.
  ensureWebDist(o.out);
  const logFile = join(layout.logs, "supervisor.log");
  rmSync(layout.status, { force: true });
  const offset = existsSync(logFile) ? statSync(logFile).size : 0;
  const args = [bin("gardener-local"), "supervise", "--state-dir", layout.dir, "--prefix", o.prefix, "--ports", `${o.ports.garden},${o.ports.seed},${o.ports.shoot}`, ...(o.publicCidr ? ["--public-cidr", o.publicCidr] : [])];
  const child = startLogged(process.execPath, args, { logFile, env: supervisorEnv(o) });
  child.unref();
  let exited = false;
  child.once("exit", () => (exited = true));
  o.out(`supervisor started (pid ${child.pid}); log: ${logFile}`);
  let shown = offset;
  const follow = (): void => {
    const text = readFileSync(logFile).subarray(shown).toString("utf8");
    const end = text.lastIndexOf("\n");
    if (end < 0) return;
    for (const line of text.slice(0, end).split("\n")) if (line.startsWith("gardener-local: ")) o.out(line.slice("gardener-local: ".length));
    shown += Buffer.byteLength(text.slice(0, end + 1));
  };
  const deadline = Date.now() + (o.timeoutMs ?? 300_000);
  for (;;) {
    await sleep(200);
    follow();
    if (o.signal?.aborted) {
      o.out(`interrupted: stopping the supervisor (pid ${child.pid})`);
      await stopChild(child.pid!, () => exited);
      throw new UpInterruptedError("gardener-local up was interrupted");
    }
    const s = readStatus(layout);
    if (s?.phase === "Ready") return s;
    if (s?.phase === "Failed") throw new Error(`the landscape failed: ${s.error ?? "unknown"} (see ${layout.logs})`);
    if (exited) throw new Error(`the supervisor exited before the landscape was ready (see ${logFile})`);
    if (Date.now() > deadline) throw new Error(`the landscape was not ready in time (see ${layout.logs}); run \`gardener-local down\``);
  }
}

/** SIGTERM to the supervisor `up` started (its handler stops the components), SIGKILL after 20 s. */
async function stopChild(pid: number, exited: () => boolean): Promise<void> {
  if (exited()) return;
  process.kill(pid, "SIGTERM");
  const deadline = Date.now() + 20_000;
  while (!exited() && Date.now() < deadline) await sleep(100);
  if (!exited()) process.kill(pid, "SIGKILL");
  while (!exited()) await sleep(50);
}

export function status(layout: Layout): string {
  return formatStatus(readStatus(layout), supervisorPid(layout) !== undefined);
}

/** Stops the supervisor (SIGTERM, then SIGKILL), kills recorded leftovers, removes every host object. */
/** `prefix` only when the user named one: the state directory records the prefix it was made with. */
export async function down(layout: Layout, prefix: string | undefined, out: (line: string) => void): Promise<SweepReport> {
  const pid = supervisorPid(layout);
  if (pid !== undefined) {
    const start = performance.now();
    out(`stopping supervisor (pid ${pid})`);
    process.kill(pid, "SIGTERM");
    const deadline = Date.now() + 20_000;
    while (supervisorPid(layout) !== undefined && existsSync(`/proc/${pid}`) && Date.now() < deadline) await sleep(100);
    if (existsSync(`/proc/${pid}`)) process.kill(pid, "SIGKILL");
    out(`supervisor stopped in ${seconds(performance.now() - start)}`);
  }
  const killed = killRecorded(layout);
  if (killed.length > 0) out(`killed ${killed.length} leftover processes`);
  const report = await new LinuxHost({ stateDir: layout.hostState, ...(prefix !== undefined ? { prefix } : {}) }).removeAll();
  const phases = (report.phases ?? []).map(([phase, ms]) => `${phase} ${seconds(ms)}`).join(", ");
  out(`removed ${report.removed.length} host objects${phases ? ` (${phases})` : ""}`);
  return report;
}
