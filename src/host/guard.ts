// The bridges' guard against spoofing (docs/machines.md): root inside a machine owns its network namespace,
// so it could send frames with another machine's MAC or packets with another machine's address. Each
// bridge gets a table `bridge <prefix>guard_<bridge>` in its namespace, made with the bridge, whose
// prerouting chain lets a machine's port (the host end of its veth) send only from the MAC and addresses
// the machine was given: what a cloud's network does for its VMs. A machine that routes a range (a node's
// pod range) may also send from that range, as a cloud lets a VM with IP forwarding (AWS's source/destination
// check off, GCP's canIpForward) send for the ranges routed to it. Ports that are not machines' (the host's,
// routers') pass unchecked.
import { createHash } from "node:crypto";
import { recorded, type HostContext } from "./context.ts";
import { addressOf, familyOf, normalizeCidr } from "./cidr.ts";
import { netnsExists } from "./netns.ts";
import { validateIfname } from "./names.ts";

export interface GuardedPort {
  /** The bridge the port belongs to (the guard table follows its record). */
  bridge: string;
  /** The bridge port: the host end of a machine's veth. */
  port: string;
  /** The MAC of the machine's end. */
  mac: string;
  /** The machine's addresses on this bridge (with or without prefix length). */
  addresses: readonly string[];
  /** Ranges the machine routes for (e.g. its pod range): it may send from any address in them, but not claim them in ARP. */
  routed?: readonly string[];
}

/** The `routed` field of a guarded port, from a machine record's interface. */
export function routedOf(iface: { routed?: readonly string[] }): { routed?: readonly string[] } {
  return iface.routed?.length ? { routed: iface.routed } : {};
}

/** A locally administered unicast MAC, stable for a link name (so it is known without asking the kernel). */
export function macFor(link: string): string {
  const h = createHash("sha256").update(link).digest();
  return ["02", ...[...h.subarray(0, 5)].map((b) => b.toString(16).padStart(2, "0"))].join(":");
}

export function guardTable(ctx: Pick<HostContext, "names">, bridge: string): string {
  return ctx.names.table("guard", bridge);
}

async function tableExists(ctx: HostContext, netns: string | undefined, name: string): Promise<boolean> {
  const r = await ctx.exec.run("nft", ["list", "table", "bridge", name], { okExitCodes: [0, 1], ...(netns ? { netns } : {}) });
  return r.exitCode === 0;
}

function nft(ctx: HostContext, netns: string | undefined, lines: readonly string[]): Promise<unknown> {
  return ctx.exec.run("nft", ["-f", "-"], { input: [...lines, ""].join("\n"), ...(netns ? { netns } : {}) });
}

/** The bridge's guard table, recorded with the bridge; nothing is sent when it exists. */
export async function ensureGuard(ctx: HostContext, netns: string | undefined, bridge: string): Promise<void> {
  const name = guardTable(ctx, bridge);
  const input = { kind: "nftTable" as const, family: "bridge" as const, name, ...(netns ? { netns } : {}), parent: `link/${netns ?? "-"}/${bridge}` };
  await recorded(ctx, input, async () => {
    if (!(await tableExists(ctx, netns, name))) await nft(ctx, netns, [renderGuard(name)]);
  });
}

/** The table, its sets and its chain; the chain is flushed and refilled, so applying it again adds nothing. */
function renderGuard(name: string): string {
  return [
    `add table bridge ${name}`,
    `add set bridge ${name} ports { type ifname; }`,
    `add set bridge ${name} macs { type ifname . ether_addr; }`,
    `add set bridge ${name} addr4 { type ifname . ether_addr . ipv4_addr; }`,
    `add set bridge ${name} addr6 { type ifname . ether_addr . ipv6_addr; }`,
    `add set bridge ${name} routed4 { type ifname . ether_addr . ipv4_addr; flags interval; }`,
    `add set bridge ${name} routed6 { type ifname . ether_addr . ipv6_addr; flags interval; }`,
    `add chain bridge ${name} prerouting { type filter hook prerouting priority -200; policy accept; }`,
    `flush chain bridge ${name} prerouting`,
    `add rule bridge ${name} prerouting iifname != @ports accept`,
    `add rule bridge ${name} prerouting iifname . ether saddr != @macs drop`,
    `add rule bridge ${name} prerouting ether type arp iifname . arp saddr ether . arp saddr ip != @addr4 drop`,
    `add rule bridge ${name} prerouting ether type ip iifname . ether saddr . ip saddr != @addr4 iifname . ether saddr . ip saddr != @routed4 drop`,
    // Link-local and unspecified sources are how IPv6 finds its neighbours; the MAC is pinned above.
    `add rule bridge ${name} prerouting ether type ip6 ip6 saddr != { ::, fe80::/10 } iifname . ether saddr . ip6 saddr != @addr6 iifname . ether saddr . ip6 saddr != @routed6 drop`,
    "",
  ].join("\n");
}

export function portElements(name: string, verb: "add" | "delete", p: GuardedPort): string[] {
  const port = JSON.stringify(validateIfname(p.port));
  const mac = p.mac.toLowerCase();
  if (!/^([0-9a-f]{2}:){5}[0-9a-f]{2}$/.test(mac)) throw new Error(`invalid MAC ${p.mac}`);
  const lines = [`${verb} element bridge ${name} ports { ${port} }`, `${verb} element bridge ${name} macs { ${port} . ${mac} }`];
  for (const a of p.addresses) {
    const ip = addressOf(a);
    lines.push(`${verb} element bridge ${name} addr${familyOf(ip)} { ${port} . ${mac} . ${ip} }`);
  }
  for (const r of p.routed ?? []) {
    const cidr = normalizeCidr(r);
    lines.push(`${verb} element bridge ${name} routed${familyOf(cidr)} { ${port} . ${mac} . ${cidr} }`);
  }
  return lines;
}

/** Guards a port of the bridge in `netns` (the host's when omitted); the table is made if the bridge has none. */
export async function guardPort(ctx: HostContext, netns: string | undefined, p: GuardedPort): Promise<void> {
  await ensureGuard(ctx, netns, p.bridge);
  await nft(ctx, netns, portElements(guardTable(ctx, p.bridge), "add", p));
}

/** Removes a port's elements (absent ones are fine); nothing to do when the bridge or its namespace is gone. */
export async function unguardPort(ctx: HostContext, netns: string | undefined, p: GuardedPort): Promise<void> {
  if (netns !== undefined && !(await netnsExists(ctx.exec, netns))) return;
  await unguardPorts(ctx, netns, p.bridge, [p]);
}

/** Removes the elements of ports of one bridge in one transaction; nothing to do when the bridge has no table. */
export async function unguardPorts(ctx: HostContext, netns: string | undefined, bridge: string, ports: readonly GuardedPort[]): Promise<void> {
  const name = guardTable(ctx, bridge);
  if (ports.length === 0 || !(await tableExists(ctx, netns, name))) return;
  // "add" first makes "delete" succeed whether or not the element was there, in one transaction.
  await nft(ctx, netns, [...ports.flatMap((p) => portElements(name, "add", p)), ...ports.flatMap((p) => portElements(name, "delete", p))]);
}
