// Shared helpers of root e2e tests on a real local landscape (src/landscape): start one in a fresh
// state directory through `up` (the supervisor runs detached, as with `gardener-local up`), stop it
// through `down`, and look at what of it exists on the host.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "../../../src/client/client.ts";
import { down, up, type UpOptions } from "../../../src/landscape/control.ts";
import { Layout, pidOfOurs, type Ports } from "../../../src/landscape/layout.ts";

export const skipUnlessRoot: string | false = process.getuid?.() === 0 ? false : "landscape e2e tests need root (namespaces, machines, nftables); run them as root";

const sh = (cmd: string, args: string[]): string => execFileSync(cmd, args, { encoding: "utf8" });

/**
 * What of a landscape exists on the host: namespaces, links and nft tables with the prefix (or its
 * underscore form), mounts and processes that mention the state directory.
 */
export function hostSnapshot(dir: string, prefix: string): Record<"netns" | "links" | "mounts" | "tables" | "processes", string[]> {
  const mine = (s: string): boolean => s.includes(prefix) || s.includes(prefix.replace(/-/g, "_")) || s.includes(dir);
  return {
    netns: sh("ip", ["netns", "list"]).split("\n").filter(mine),
    links: sh("ip", ["-o", "link", "show"]).split("\n").map((l) => l.split(":")[1]?.trim() ?? "").filter(mine),
    mounts: readFileSync("/proc/mounts", "utf8").split("\n").filter(mine),
    tables: sh("nft", ["list", "tables"]).split("\n").filter(mine),
    processes: sh("ps", ["-eo", "pid=,args="]).split("\n").filter((l) => l.includes(dir) && !l.includes(" ps -eo")),
  };
}

export interface Landscape {
  dir: string;
  layout: Layout;
  prefix: string;
  /** The host's address on the public network (what a bastion's ingress must allow). */
  hostAddress: string;
  /** Admin clients of the garden and the seed, and the project member's garden client. */
  garden: Client;
  seed: Client;
  member: Client;
  shoot: Client;
  /** The pid of a running component (run/<name>.pid), undefined while it is down. */
  pidOf(component: string): number | undefined;
  /** `down` (progress to `out`), then removes the state directory (kept when KEEP_LANDSCAPE is set). */
  stop(out?: (line: string) => void): Promise<void>;
}

export interface StartOptions extends Pick<UpOptions, "bastionTimeToLive" | "publicCidr" | "nodeMonitorGracePeriod" | "maxRestartBackoff" | "sshKeypairPoolSize" | "gardenletMetricsAddress" | "bastionPoolSize"> {
  prefix: string;
  ports: Ports;
  /** Progress lines of `up` and `down`. */
  out?: (line: string) => void;
}

/** `up` on a fresh state directory; rejects (after `down`) when the landscape does not get ready. */
export async function startLandscape(o: StartOptions): Promise<Landscape> {
  const dir = mkdtempSync(join(tmpdir(), `landscape-${o.prefix}`));
  const layout = new Layout(dir);
  const out = o.out ?? ((): void => undefined);
  const stop = async (downOut = out): Promise<void> => {
    await down(layout, o.prefix, downOut);
    if (!process.env.KEEP_LANDSCAPE) rmSync(dir, { recursive: true, force: true });
  };
  try {
    // Two held bastion machines (not the default ten): a test makes its bastions one or two at a time, and
    // every landscape boot of the suite would otherwise pay for eight more machines.
    await up(layout, { prefix: o.prefix, ports: o.ports, out, timeoutMs: 180_000, bastionPoolSize: o.bastionPoolSize ?? 2, ...(o.bastionTimeToLive ? { bastionTimeToLive: o.bastionTimeToLive } : {}), ...(o.publicCidr ? { publicCidr: o.publicCidr } : {}), ...(o.nodeMonitorGracePeriod ? { nodeMonitorGracePeriod: o.nodeMonitorGracePeriod } : {}), ...(o.maxRestartBackoff ? { maxRestartBackoff: o.maxRestartBackoff } : {}), ...(o.sshKeypairPoolSize ? { sshKeypairPoolSize: o.sshKeypairPoolSize } : {}), ...(o.gardenletMetricsAddress ? { gardenletMetricsAddress: o.gardenletMetricsAddress } : {}) });
  } catch (err) {
    await stop().catch(() => undefined);
    throw err;
  }
  const log = readFileSync(join(layout.logs, "supervisor.log"), "utf8");
  const hostAddress = /host address on the public network: (\S+)/.exec(log)?.[1];
  if (!hostAddress) throw new Error("the supervisor log names no host address");
  const client = (path: string): Client => Client.fromKubeconfigFile(path, { fieldManager: "e2e" });
  const clients = { garden: client(layout.gardenKubeconfig), seed: client(join(layout.apiServerDir("seed"), "admin.kubeconfig")), member: client(layout.memberKubeconfig), shoot: client(layout.shootKubeconfig) };
  return {
    dir,
    layout,
    prefix: o.prefix,
    hostAddress,
    ...clients,
    pidOf: (component) => pidOfOurs(join(layout.run, `${component}.pid`), dir),
    async stop(downOut) {
      for (const c of Object.values(clients)) c.close();
      await stop(downOut);
    },
  };
}
