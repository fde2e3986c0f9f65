// The nftables tables of the local landscape's machines (docs/bastion.md#provider-local, docs/bastion.md#d7-the-local-provider-enforces-the-ingress). Pure descriptions;
// host/ renders and applies them in one transaction each.
import { parseCidr } from "../../host/cidr.ts";
import type { NftRule, NftTable, SetContents } from "../../host/index.ts";

export const BASTION_TABLE = { family: "inet", name: "bastion" } as const;
export const BASTION_ACCESS_TABLE = { family: "inet", name: "bastion_access" } as const;

/** The bastion's public interface (its first network), the only one TCP 22 is accepted on. */
export const BASTION_PUBLIC_IF = "eth0";
export const BASTION_NODE_IF = "eth1";

const ND = ["nd-neighbor-solicit", "nd-neighbor-advert", "nd-router-solicit", "nd-router-advert"];
const SSH = 22;

/** CIDRs split by family. Unparsable entries throw (the ConfigValidator rejects them first). */
export function byFamily(cidrs: readonly string[]): { v4: string[]; v6: string[] } {
  const v4: string[] = [];
  const v6: string[] = [];
  for (const c of cidrs) (parseCidr(c).family === 4 ? v4 : v6).push(c.trim());
  return { v4, v6 };
}

export interface BastionSets {
  ingress: readonly string[];
  except: readonly string[];
  workers: readonly string[];
}

/** Contents of a pair of IPv4/IPv6 sets named <base>4 and <base>6. */
export function familySets(base: string, cidrs: readonly string[]): SetContents[] {
  const f = byFamily(cidrs);
  return [
    { name: `${base}4`, type: "ipv4_addr", elements: f.v4 },
    { name: `${base}6`, type: "ipv6_addr", elements: f.v6 },
  ];
}

/** Both families of a rule, matching a source or destination set pair. */
function pair(dir: "saddr" | "daddr", base: string, rule: Omit<NftRule, "saddr" | "daddr">): NftRule[] {
  return [{ ...rule, [dir]: { set: `${base}4` } }, { ...rule, [dir]: { set: `${base}6` } }];
}

/**
 * Table `inet bastion`: TCP 22 in only on the public interface from `ingress` minus `except`, filtered per
 * packet (removing a CIDR cuts its established connections); out only new TCP 22 to the shoot's workers;
 * nothing forwarded.
 */
export function bastionTable(s: BastionSets): NftTable {
  const sets = [...familySets("ingress", s.ingress), ...familySets("except", s.except), ...familySets("workers", s.workers)];
  return {
    ...BASTION_TABLE,
    sets: sets.map((x) => ({ name: x.name, type: x.type!, elements: x.elements })),
    chains: [
      {
        name: "input",
        base: { type: "filter", hook: "input", priority: "filter", policy: "drop" },
        rules: [
          { iif: "lo", verdict: "accept" },
          { icmpv6Types: ND, verdict: "accept" },
          ...pair("saddr", "except", { protocol: "tcp", dport: SSH, verdict: "drop" }),
          ...pair("saddr", "ingress", { iif: BASTION_PUBLIC_IF, protocol: "tcp", dport: SSH, verdict: "accept" }),
          { protocol: "tcp", dport: SSH, verdict: "drop" },
          { ct: ["established", "related"], verdict: "accept" },
        ],
      },
      {
        name: "output",
        base: { type: "filter", hook: "output", priority: "filter", policy: "drop" },
        rules: [
          { oif: "lo", verdict: "accept" },
          { icmpv6Types: ND, verdict: "accept" },
          { ct: ["established", "related"], verdict: "accept" },
          ...pair("daddr", "workers", { protocol: "tcp", dport: SSH, ct: ["new"], verdict: "accept" }),
        ],
      },
      { name: "forward", base: { type: "filter", hook: "forward", priority: "filter", policy: "drop" }, rules: [] },
    ],
  };
}

/** Table `inet bastion_access` of a worker: TCP 22 only from the shoot's bastions; other traffic unaffected. */
export function bastionAccessTable(bastions: readonly string[]): NftTable {
  const sets = familySets("bastions", bastions);
  return {
    ...BASTION_ACCESS_TABLE,
    sets: sets.map((x) => ({ name: x.name, type: x.type!, elements: x.elements })),
    chains: [
      {
        name: "input",
        base: { type: "filter", hook: "input", priority: "filter", policy: "accept" },
        rules: [
          ...pair("saddr", "bastions", { protocol: "tcp", dport: SSH, verdict: "accept" }),
          { protocol: "tcp", dport: SSH, verdict: "drop" },
        ],
      },
    ],
  };
}

export const KUBELET_ACCESS_TABLE = { family: "inet", name: "kubelet_access" } as const;
export const POD_NAT_TABLE = { family: "ip", name: "pod_nat" } as const;

/**
 * Table `inet kubelet_access` of a worker: TCP `port` (the kubelet's) only from `controlPlane` (the addresses
 * its cluster's API server connects from); other traffic unaffected.
 */
export function kubeletAccessTable(controlPlane: readonly string[], port: number): NftTable {
  const sets = familySets("controlplane", controlPlane);
  return {
    ...KUBELET_ACCESS_TABLE,
    sets: sets.map((x) => ({ name: x.name, type: x.type!, elements: x.elements })),
    chains: [
      {
        name: "input",
        base: { type: "filter", hook: "input", priority: "filter", policy: "accept" },
        rules: [...pair("saddr", "controlplane", { protocol: "tcp", dport: port, verdict: "accept" }), { protocol: "tcp", dport: port, verdict: "drop" }],
      },
    ],
  };
}

/**
 * Table `ip pod_nat` of a worker: what its pods (`podCidr`) send out of the node interface leaves with the
 * node's address, as a kubelet's network plugin masquerades it; traffic between the node's pods stays as is.
 */
export function podMasqueradeTable(podCidr: string, nodeInterface: string): NftTable {
  return {
    ...POD_NAT_TABLE,
    chains: [{ name: "postrouting", base: { type: "nat", hook: "postrouting", priority: "srcnat", policy: "accept" }, rules: [{ oif: nodeInterface, saddr: podCidr, verdict: "masquerade" }] }],
  };
}
