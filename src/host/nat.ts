// One-way NAT: hosts of a source network (a shoot's node network) reach the outside (the public network)
// masqueraded behind the router namespace's outside address; nothing outside can open a connection in,
// except what `inbound` names (one source address to one TCP port, e.g. the control plane to the kubelets).
// Ranges routed behind the source network's hosts (`routed`, nodes' pod ranges) are closed the same way.
import { HostSpecError, type Names } from "./names.ts";
import { addressOf, familyOf, normalizeCidr } from "./cidr.ts";
import { ownNetns, ownedFields, type HostContext, type Owned } from "./context.ts";
import { applyTable, deleteTable } from "./nft.ts";
import type { NftTable } from "./nft-render.ts";

export interface NatSpec extends Owned {
  /** Logical name; the table is names.table("nat", name). */
  name: string;
  /** The router namespace that forwards between the two networks (required: host/ never NATs the host). */
  netns: string;
  /** The network whose hosts are masqueraded, e.g. "10.250.0.0/16". */
  sourceCidr: string;
  /** The router's interface towards the outside. */
  outInterface: string;
  /** New TCP connections from the outside that pass anyway: from `saddr` (an address) to `dport` of the source network. */
  inbound?: readonly NatInbound[];
  /**
   * Ranges routed to hosts of the source network (nodes' pod ranges): closed to the outside like the source
   * network. They are not masqueraded here: their hosts masquerade what they send out themselves.
   */
  routed?: readonly string[];
}

export interface NatInbound {
  saddr: string;
  dport: number;
}

export function natTableName(names: Names, name: string): string {
  return names.table("nat", name);
}

/** The table: masquerade source -> out; in forward, replies pass and new connections from out to source drop. */
export function natTable(names: Names, spec: NatSpec): NftTable {
  const source = normalizeCidr(spec.sourceCidr);
  const family = familyOf(source) === 4 ? "ip" : "ip6";
  return {
    family,
    name: natTableName(names, spec.name),
    chains: [
      {
        name: "postrouting",
        base: { type: "nat", hook: "postrouting", priority: "srcnat", policy: "accept" },
        rules: [{ oif: spec.outInterface, saddr: source, verdict: "masquerade" }],
      },
      {
        name: "forward",
        base: { type: "filter", hook: "forward", priority: "filter", policy: "accept" },
        rules: [
          { ct: ["established", "related"], verdict: "accept" },
          ...(spec.inbound ?? []).map((i) => ({ iif: spec.outInterface, saddr: addressOf(i.saddr), daddr: source, protocol: "tcp" as const, dport: i.dport, ct: ["new" as const], verdict: "accept" as const })),
          { iif: spec.outInterface, daddr: [source, ...routedOf(spec, source)], verdict: "drop" },
        ],
      },
    ],
  };
}

function routedOf(spec: NatSpec, source: string): string[] {
  return (spec.routed ?? []).map((r) => {
    if (familyOf(r) !== familyOf(source)) throw new HostSpecError(`NAT ${spec.name}: routed range ${r} is not of the source network's family`);
    return normalizeCidr(r);
  });
}

export async function ensureNat(ctx: HostContext, spec: NatSpec): Promise<void> {
  if (!spec.netns) throw new HostSpecError("NAT needs a router namespace");
  ownNetns(ctx, spec.netns);
  const table = natTable(ctx.names, spec);
  const key = table.family === "ip" ? "net.ipv4.ip_forward=1" : "net.ipv6.conf.all.forwarding=1";
  // /proc/sys/net is per namespace: this only turns on forwarding inside the router namespace.
  await ctx.exec.run("sysctl", ["-q", "-w", key], { netns: spec.netns });
  await applyTable(ctx, spec.netns, table, ownedFields(spec));
}

export async function deleteNat(ctx: HostContext, spec: Pick<NatSpec, "name" | "netns" | "sourceCidr">): Promise<void> {
  const family = familyOf(spec.sourceCidr) === 4 ? "ip" : "ip6";
  await deleteTable(ctx, spec.netns, { family, name: natTableName(ctx.names, spec.name) });
}
