// bench/vpn's reference path: the shoot API server's own code dialling the kubelets directly, as a cluster
// without the reversed VPN would. The landscape has no such path, so it is made for the bench only, through
// src/host/, and removed again: a second shoot API server process (no --egress-selector-config-file) on a
// consistent copy of the shoot's data directory (same PKI, so the kubelets accept its client certificate),
// a host route to each worker's address through the shoot's router, the router's NAT exception for the
// host's address to port 10250, and the host's address in each worker's kubelet access set.
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import type { LinuxHost } from "../../src/host/index.ts";
import { normalizeCidr } from "../../src/host/cidr.ts";
import { bin } from "../../src/landscape/components.ts";
import { SHOOT_TECHNICAL_ID, type Layout } from "../../src/landscape/layout.ts";
import { KUBELET_ACCESS_TABLE } from "../../src/provider-local/machines/tables.ts";
import { KUBELET_PORT, ROUTER_NODE_BRIDGE, ROUTER_PUBLIC_IF } from "../../src/provider-local/network/networks.ts";
import { eventually } from "../../test/support/http.ts";

const OWNER = "bench/vpn";
const PROCESS = "bench-vpn-direct-apiserver";
const SET = "controlplane4";

export interface DirectPath {
  /** The admin kubeconfig of the direct API server. */
  kubeconfig: string;
  /** Removes everything it made; safe to call twice. */
  remove(): Promise<void>;
}

async function ipv4Of(host: LinuxHost, netns: string, dev: string): Promise<string> {
  const out = (await host.execInNetns(netns, "ip", ["-4", "-o", "addr", "show", "dev", dev])).stdout;
  const m = /inet (\d+\.\d+\.\d+\.\d+\/\d+)/.exec(out);
  if (!m) throw new Error(`no IPv4 address on ${dev} in ${netns}`);
  return m[1]!;
}

export async function makeDirectPath(o: { host: LinuxHost; layout: Layout; hostAddress: string; port: number; workers: { machine: string; address: string }[]; log: (line: string) => void }): Promise<DirectPath> {
  const { host } = o;
  const undo: (() => Promise<unknown>)[] = [];
  const dir = mkdtempSync(join(tmpdir(), "bench-vpn-direct-"));
  undo.push(async () => rmSync(dir, { recursive: true, force: true }));
  const remove = async (): Promise<void> => {
    for (const u of undo.splice(0).reverse()) await u().catch((err: unknown) => o.log(`removing the direct path: ${String(err)}`));
  };
  try {
    // The router: the host's address may open connections to the kubelets (as the seed's router allows).
    const routerNs = host.names.netns("nodes", SHOOT_TECHNICAL_ID);
    const router = (await ipv4Of(host, routerNs, ROUTER_PUBLIC_IF)).split("/")[0]!;
    const nodeCidr = normalizeCidr(await ipv4Of(host, routerNs, ROUTER_NODE_BRIDGE));
    // The router's table as the landscape has it (the workers' pod ranges closed to the public side), plus the exception.
    const book = JSON.parse(readFileSync(join(o.layout.providerState, "addresses.json"), "utf8")) as Record<string, Record<string, string> | undefined>;
    const routed = Object.values(book[`pod-routes/${SHOOT_TECHNICAL_ID}`] ?? {});
    const nat = { name: SHOOT_TECHNICAL_ID, netns: routerNs, sourceCidr: nodeCidr, outInterface: ROUTER_PUBLIC_IF, owner: `network/${SHOOT_TECHNICAL_ID}`, routed };
    await host.ensureNat({ ...nat, inbound: [{ saddr: o.hostAddress, dport: KUBELET_PORT }] });
    undo.push(() => host.ensureNat(nat));
    for (const w of o.workers) {
      const route = { destination: `${w.address}/32`, via: router, dev: host.names.link("host"), owner: OWNER };
      await host.ensureRoute(route);
      undo.push(() => host.deleteRoute(route));
      const netns = (await host.machineStatus(w.machine))?.netns;
      if (!netns) throw new Error(`machine ${w.machine} is not running`);
      const before = await host.getSetElements(netns, KUBELET_ACCESS_TABLE, SET);
      await host.replaceSetElements(netns, KUBELET_ACCESS_TABLE, [{ name: SET, type: "ipv4_addr", elements: [...before, o.hostAddress] }]);
      undo.push(() => host.replaceSetElements(netns, KUBELET_ACCESS_TABLE, [{ name: SET, type: "ipv4_addr", elements: before }]));
    }
    // A consistent copy of the shoot's storage (SQLite's online backup), and its PKI and kubeconfigs as they are.
    const source = o.layout.apiServerDir("shoot");
    cpSync(source, dir, { recursive: true, filter: (src) => !/state\.db(-wal|-shm)?$/.test(src) });
    const db = new Database(join(source, "state.db"), { readonly: true, fileMustExist: true });
    try {
      await db.backup(join(dir, "state.db"));
    } finally {
      db.close();
    }
    await host.startProcess({
      name: PROCESS, owner: OWNER, command: process.execPath,
      args: [bin("gardener-apiserver"), "--data-dir", dir, "--secure-port", String(o.port), "--bind-address", o.hostAddress, "--advertise-address", o.hostAddress, "--sqlite-fsync", "false", "--log-level", "warn"],
    });
    undo.push(() => host.stopProcess(PROCESS));
    // The copied admin kubeconfig, pointed at this server.
    const kubeconfig = join(dir, "direct.kubeconfig");
    writeFileSync(kubeconfig, readFileSync(join(source, "admin.kubeconfig"), "utf8").replace(/server: https:\/\/[^\s]+/, `server: https://${o.hostAddress}:${o.port}`), { mode: 0o600 });
    await eventually("the direct API server answers", async () => {
      const res = await fetch(`https://${o.hostAddress}:${o.port}/readyz`).catch((err: Error) => err);
      // Any TLS answer (its CA is not the system's) means it listens; the kubeconfig is written by then.
      return res instanceof Error && /certificate|self.signed|unable to verify/i.test(String((res as Error & { cause?: unknown }).cause ?? res.message)) ? true : undefined;
    }, 60_000, 250);
    o.log(`direct path: API server on ${o.hostAddress}:${o.port} without egress, routes to ${o.workers.map((w) => w.address).join(", ")} via ${router}`);
    return { kubeconfig, remove };
  } catch (err) {
    await remove();
    throw err;
  }
}
