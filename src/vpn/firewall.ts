// The nftables tables of the VPN namespaces (docs/reversed-vpn.md#firewalls): `inet vpn_seed` in the
// control plane's VPN namespace, `inet vpn_shoot` in the vpn-shoot-client's namespace.
import type { NftTable } from "../host/index.ts";
import { OPENVPN_PORT, cidrText, serverSubnet, shootRanges } from "./openvpn-config.ts";

export const SEED_TABLE = "vpn_seed";
export const SHOOT_TABLE = "vpn_shoot";
export const EGRESS_PROXY_PORT = 9443;
export const SEED_HEALTH_PORT = 15000;
export const SHOOT_HEALTH_PORT = 8080;

export interface SeedFirewallOptions {
  /** The VPN namespace's interface on the seed network. */
  seedInterface: string;
  transferNetwork: string;
  /** The servers' indexes: [undefined] in plain mode, [0, 1] in HA. */
  servers: readonly (number | undefined)[];
  shootCidrs: readonly string[];
}

/**
 * The tunnel carries only replies into the seed; only sockets bound to a tunnel address send into it, and
 * only to the shoot's ranges. The seed network reaches OpenVPN, the egress proxy and health.
 */
export function seedFirewall(o: SeedFirewallOptions): NftTable {
  const ranges = shootRanges(o.shootCidrs).map(cidrText);
  const tunnelAddresses = o.servers.map((i) => serverSubnet(o.transferNetwork, i).address);
  return {
    family: "inet",
    name: SEED_TABLE,
    chains: [
      {
        name: "input",
        base: { type: "filter", hook: "input", priority: "filter", policy: "drop" },
        rules: [
          { iif: "lo", verdict: "accept" },
          { ct: ["established", "related"], verdict: "accept" },
          { iif: "tun*", verdict: "drop" },
          { iif: o.seedInterface, protocol: "tcp", dport: [OPENVPN_PORT, EGRESS_PROXY_PORT, SEED_HEALTH_PORT], verdict: "accept" },
        ],
      },
      { name: "forward", base: { type: "filter", hook: "forward", priority: "filter", policy: "drop" }, rules: [] },
      {
        name: "output",
        base: { type: "filter", hook: "output", priority: "filter", policy: "accept" },
        rules: [
          { oif: "tun*", saddr: tunnelAddresses, daddr: ranges, verdict: "accept" },
          { oif: "tun*", verdict: "drop" },
        ],
      },
    ],
  };
}

export interface ShootFirewallOptions {
  /** The client's interface on the node network. */
  nodeInterface: string;
  nodeNetwork: string;
  transferNetwork: string;
  shootCidrs: readonly string[];
}

/**
 * New connections only ever go tunnel -> node network (masqueraded to the client's address); the node
 * network reaches the client's health port, nothing reaches into a tunnel.
 */
export function shootFirewall(o: ShootFirewallOptions): NftTable {
  const ranges = shootRanges(o.shootCidrs).map(cidrText);
  return {
    family: "inet",
    name: SHOOT_TABLE,
    chains: [
      {
        name: "input",
        base: { type: "filter", hook: "input", priority: "filter", policy: "drop" },
        rules: [
          { iif: "lo", verdict: "accept" },
          { ct: ["established", "related"], verdict: "accept" },
          { iif: o.nodeInterface, saddr: o.nodeNetwork, protocol: "tcp", dport: SHOOT_HEALTH_PORT, verdict: "accept" },
          { iif: "tun*", protocol: "tcp", dport: SHOOT_HEALTH_PORT, verdict: "accept" },
        ],
      },
      {
        name: "forward",
        base: { type: "filter", hook: "forward", priority: "filter", policy: "drop" },
        rules: [
          // The tunnel's MTU is below the node network's: SYNs in both directions carry the smaller MSS.
          { clampMssToRouteMtu: true },
          { ct: ["established", "related"], verdict: "accept" },
          { iif: "tun*", oif: o.nodeInterface, saddr: o.transferNetwork, daddr: ranges, verdict: "accept" },
        ],
      },
      {
        name: "postrouting",
        base: { type: "nat", hook: "postrouting", priority: "srcnat", policy: "accept" },
        rules: [{ iif: "tun*", oif: o.nodeInterface, verdict: "masquerade" }],
      },
    ],
  };
}
