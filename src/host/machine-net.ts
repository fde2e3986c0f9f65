// Wiring a new machine's network (docs/machines.md, "Creating many machines"): its veths, addresses,
// routes, the bridges' guard elements and its nftables tables. A freshly attached machine namespace
// holds nothing, so the whole wiring is a few batches instead of one process per step: one `ip -batch`
// in the host (every `link add`, and the bridge ports of bridges in the host), one per bridge namespace
// (ports to their bridge, up), one `ip -batch` in the machine (loopback, addresses, up, routes; the
// machine's stage 1 turns on arp_notify for its links itself), and meanwhile one `nft -f` per bridge
// namespace (guard elements) and one `nft -f` for all the machine's tables.
// Every object is recorded ("creating") before and ("created") after, as the step-by-step path does. When
// a batch fails (a leftover link of the same name, a bridge without its guard table), the step-by-step
// path runs: it is idempotent, so it completes what the batches began.
import { ownLink, ownNetns, ownedFields, type HostContext, type Owned } from "./context.ts";
import { familyOf, normalizeCidr } from "./cidr.ts";
import { ensureRoute, ensureVeth } from "./links.ts";
import { guardPort, guardTable, macFor, portElements, routedOf } from "./guard.ts";
import { HostSpecError, validateIfname } from "./names.ts";
import { applyTable } from "./nft.ts";
import { renderApplyTable, validateIdent, type NftTable } from "./nft-render.ts";
import type { MachineRecord, RecordInput } from "./records.ts";

export interface MachineNetwork {
  /** The bridge to attach to. */
  bridge: string;
  /** The bridge's network namespace; omitted = the host's. */
  bridgeNetns?: string;
  /** The machine's address on this network, with prefix length ("10.250.0.10/16"). */
  address: string;
  /** A router on this network; the first network with one carries the default route. */
  gateway?: string;
  /** Destinations routed via `gateway` (default: ["default"] on the first network with a gateway). */
  routes?: readonly string[];
  /** Interface name inside the machine (default eth<index>). */
  interface?: string;
  /**
   * Ranges routed to this machine on the network (a node's pod range): its port may also send from them,
   * as a cloud lets a VM with IP forwarding on send for the ranges routed to it (guard.ts).
   */
  routed?: readonly string[];
}

interface Plan {
  records: RecordInput[];
  hostLines: string[];
  bridgeLines: Map<string, string[]>;
  machineLines: Map<4 | 6, string[]>;
  guards: Map<string | undefined, string[]>;
  tables: string;
}

function plan(ctx: HostContext, rec: MachineRecord, networks: readonly MachineNetwork[], tables: readonly NftTable[], owned: Owned): Plan {
  const p: Plan = { records: [], hostLines: [], bridgeLines: new Map(), machineLines: new Map(), guards: new Map(), tables: "" };
  const ns = rec.netns;
  ownNetns(ctx, ns);
  const addLine = <K>(m: Map<K, string[]>, k: K, line: string) => m.set(k, [...(m.get(k) ?? []), line]);
  const machineLine = (family: 4 | 6, line: string) => addLine(p.machineLines, family, line);
  machineLine(4, "link set dev lo up");
  let defaultRouted = false;
  for (const [i, n] of networks.entries()) {
    const iface = rec.interfaces[i]!;
    const bridgeNs = iface.bridgeNetns;
    validateIfname(iface.name);
    validateIfname(iface.bridge);
    ownLink(ctx, iface.hostLink, bridgeNs);
    normalizeCidr(iface.address);
    const mac = macFor(iface.hostLink);
    const peer = { name: iface.hostLink, ...(bridgeNs ? { netns: bridgeNs } : {}) };
    p.records.push({ kind: "link", type: "veth", name: iface.name, netns: ns, peer, ...ownedFields(owned) });
    p.hostLines.push(`link add name ${iface.name} netns ${ns} address ${mac} type veth peer name ${iface.hostLink}${bridgeNs ? ` netns ${bridgeNs}` : ""}`);
    // The bridge's end first: the machine's end announces its address when it comes up.
    const portLine = `link set dev ${iface.hostLink} master ${iface.bridge} up`;
    if (bridgeNs === undefined) p.hostLines.push(portLine);
    else addLine(p.bridgeLines, bridgeNs, portLine);
    const v6 = familyOf(iface.address) === 6;
    machineLine(4, `addr replace ${iface.address} dev ${iface.name}${v6 ? " nodad" : ""}`);
    machineLine(4, `link set dev ${iface.name} up`);
    addLine(p.guards, bridgeNs, portElements(guardTable(ctx, iface.bridge), "add", { bridge: iface.bridge, port: iface.hostLink, mac, addresses: [iface.address], ...routedOf(iface) }).join("\n"));
    if (n.gateway === undefined) continue;
    for (const destination of n.routes ?? (defaultRouted ? [] : ["default"])) {
      const probe = destination === "default" ? n.gateway : destination;
      const dest = destination === "default" ? "default" : normalizeCidr(destination);
      if (/\s/.test(n.gateway)) throw new HostSpecError(`invalid gateway ${JSON.stringify(n.gateway)}`);
      familyOf(n.gateway);
      machineLine(familyOf(probe) === 6 ? 6 : 4, `route replace ${dest} via ${n.gateway} dev ${iface.name}`);
      p.records.push({ kind: "route", destination, netns: ns, via: n.gateway, dev: iface.name, ...ownedFields(owned) });
      if (destination === "default") defaultRouted = true;
    }
  }
  for (const t of tables) {
    validateIdent("table", t.name);
    p.tables += renderApplyTable(t);
    p.records.push({ kind: "nftTable", family: t.family, name: t.name, netns: ns, ...ownedFields(owned) });
  }
  return p;
}

async function ipBatch(ctx: HostContext, netns: string | undefined, lines: readonly string[], family: 4 | 6 = 4): Promise<void> {
  if (lines.length === 0) return;
  await ctx.exec.run("ip", [...(family === 6 ? ["-6"] : []), ...(netns ? ["-n", netns] : []), "-batch", "-"], { input: `${lines.join("\n")}\n` });
}

async function nft(ctx: HostContext, netns: string | undefined, script: string): Promise<void> {
  if (script.trim() === "") return;
  await ctx.exec.run("nft", ["-f", "-"], { input: script.endsWith("\n") ? script : `${script}\n`, ...(netns ? { netns } : {}) });
}

/** Wires the machine's networks and tables in batches; the step-by-step path when a batch fails. */
export async function wireMachine(ctx: HostContext, rec: MachineRecord, networks: readonly MachineNetwork[], tables: readonly NftTable[], owned: Owned): Promise<void> {
  const p = plan(ctx, rec, networks, tables, owned);
  await Promise.all(p.records.map((r) => ctx.records.put(r, "creating")));
  try {
    // The nft scripts name links by name only (the guard's sets, the machine's tables), so they are applied
    // while the links are made: nothing in the machine runs before all of it is done (stage 1 waits).
    const results = await Promise.allSettled([
      (async () => {
        await ipBatch(ctx, undefined, p.hostLines);
        await Promise.all([...p.bridgeLines].map(([ns, lines]) => ipBatch(ctx, ns, lines)));
        await ipBatch(ctx, rec.netns, p.machineLines.get(4) ?? []);
        await ipBatch(ctx, rec.netns, p.machineLines.get(6) ?? [], 6);
      })(),
      ...[...p.guards].map(([ns, lines]) => nft(ctx, ns, lines.join("\n"))),
      nft(ctx, rec.netns, p.tables),
    ]);
    const failed = results.find((r): r is PromiseRejectedResult => r.status === "rejected");
    if (failed) throw failed.reason;
  } catch {
    await wireStepByStep(ctx, rec, networks, tables, owned);
    return;
  }
  await Promise.all(p.records.map((r) => ctx.records.put(r, "created")));
}

/** One idempotent step at a time (each checks what exists). */
export async function wireStepByStep(ctx: HostContext, rec: MachineRecord, networks: readonly MachineNetwork[], tables: readonly NftTable[], owned: Owned): Promise<void> {
  await ctx.exec.run("ip", ["-n", rec.netns, "link", "set", "dev", "lo", "up"]);
  let defaultRouted = false;
  for (const [i, n] of networks.entries()) {
    const iface = rec.interfaces[i]!;
    const peer = { name: iface.hostLink, master: iface.bridge, ...(iface.bridgeNetns ? { netns: iface.bridgeNetns } : {}) };
    const mac = macFor(iface.hostLink);
    await ensureVeth(ctx, { name: iface.name, netns: rec.netns, addresses: [iface.address], mac, peer, ...owned });
    await guardPort(ctx, iface.bridgeNetns, { bridge: iface.bridge, port: iface.hostLink, mac, addresses: [iface.address], ...routedOf(iface) });
    if (n.gateway === undefined) continue;
    const routes = n.routes ?? (defaultRouted ? [] : ["default"]);
    for (const destination of routes) {
      await ensureRoute(ctx, { netns: rec.netns, destination, via: n.gateway, dev: iface.name, ...owned });
      if (destination === "default") defaultRouted = true;
    }
  }
  for (const t of tables) await applyTable(ctx, rec.netns, t, owned);
}
