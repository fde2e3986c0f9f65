// The state directory of a landscape and its fixed names. Everything `up` creates lives below it:
//   garden/ seed/ shoot/      API server data (SQLite) and PKI
//   provider/                 provider-local state: host records (provider/host), addresses.json
//   logs/<component>.log      component output; logs/supervisor.log the supervisor's progress
//   run/<component>.pid       pids of running components; run/supervisor.pid
//   status.json               what the supervisor last reported (phase, components, machines)
//   garden.kubeconfig, garden-member.kubeconfig, shoot-local.kubeconfig, gardenlet.kubeconfig
import { readFileSync, readdirSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import { killGroup } from "./supervisor.ts";

export const PROJECT = "local";
export const PROJECT_NAMESPACE = "garden-local";
export const SEED = "local";
export const SHOOT = "local";
export const SHOOT_TECHNICAL_ID = "shoot--local--local";
export const WORKER_POOL = "worker";
export const WORKERS = ["w1", "w2"] as const;
export const MEMBER_USER = "local-member";
/** Gardener's default pod network of a shoot; each node runs its pods in a /24 of it. */
export const SHOOT_POD_CIDR = "100.96.0.0/11";
/**
 * The seed's own worker machine (it hosts operators' terminals): a node network of its own (key
 * SEED_NODE_NETWORK), apart from the shoot's so the host routes each node address to one router.
 */
export const SEED_NODE_NETWORK = "seed-local";
export const SEED_NODE_CIDR = "10.249.0.0/24";
export const SEED_POD_CIDR = "10.1.0.0/16";
export const SEED_WORKERS = ["w1"] as const;
export const NODE_POD_PREFIX_LENGTH = 24;
export const DEFAULT_PREFIX = "gl-";

export interface Ports {
  garden: number;
  seed: number;
  shoot: number;
}
export const DEFAULT_PORTS: Ports = { garden: 7443, seed: 7444, shoot: 7445 };

export class Layout {
  readonly dir: string;
  constructor(dir: string) {
    this.dir = resolve(dir);
  }
  path(...parts: string[]): string {
    return join(this.dir, ...parts);
  }
  get logs(): string {
    return this.path("logs");
  }
  get run(): string {
    return this.path("run");
  }
  get status(): string {
    return this.path("status.json");
  }
  get supervisorPid(): string {
    return this.path("run", "supervisor.pid");
  }
  get providerState(): string {
    return this.path("provider");
  }
  /** Host records of provider-local and the workers (LinuxHost state directory). */
  get hostState(): string {
    return this.path("provider", "host");
  }
  get gardenKubeconfig(): string {
    return this.path("garden.kubeconfig");
  }
  get memberKubeconfig(): string {
    return this.path("garden-member.kubeconfig");
  }
  get shootKubeconfig(): string {
    return this.path("shoot-local.kubeconfig");
  }
  get gardenletKubeconfig(): string {
    return this.path("gardenlet.kubeconfig");
  }
  apiServerDir(name: "garden" | "seed" | "shoot"): string {
    return this.path(name);
  }
}

/** A pid whose command line mentions `dir` (so a recycled pid is never mistaken for ours). */
export function pidOfOurs(pidFile: string, dir: string): number | undefined {
  let pid: number;
  try {
    pid = Number(readFileSync(pidFile, "utf8").trim());
  } catch {
    return undefined;
  }
  if (!Number.isInteger(pid) || pid <= 1) return undefined;
  try {
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ");
    return cmdline.includes(dir) ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** Kills (SIGKILL, process group) every process recorded in run/ that is still ours; removes the pid files. */
export function killRecorded(layout: Layout, except: readonly string[] = []): number[] {
  const killed: number[] = [];
  let files: string[];
  try {
    files = readdirSync(layout.run).filter((f) => f.endsWith(".pid") && !except.includes(f));
  } catch {
    return killed;
  }
  for (const f of files) {
    const pid = pidOfOurs(join(layout.run, f), layout.dir);
    if (pid !== undefined) {
      killGroup(pid, "SIGKILL");
      killed.push(pid);
    }
    rmSync(join(layout.run, f), { force: true });
  }
  return killed;
}
