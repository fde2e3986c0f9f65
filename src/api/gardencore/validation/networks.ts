// The reversed VPN's network validation (docs/reversed-vpn.md#network-validation), after Gardener's
// pkg/utils/validation/cidr/disjoint.go with its messages: the transfer network must not overlap the
// seed's or the shoot's networks, and a shoot's node, pod and service ranges must not overlap each
// other. Two CIDRs intersect when either contains the other's network address. Pure.
import { BlockList } from "node:net";
import { type FieldError, Path, invalid } from "../../../apimachinery/field/errors.ts";
import { recordOrEmpty } from "../../../utils/guards.ts";
import { type ParsedCIDR, parseCIDR } from "../../cidr.ts";

export const DEFAULT_VPN_RANGE = "192.168.123.0/24";
const SEED_NETWORKS = Path.root("spec").child("networks");
const SHOOT_NETWORKING = Path.root("spec").child("networking");

const str = (v: unknown): string | undefined => (typeof v === "string" && v !== "" ? v : undefined);

/** The network address of a CIDR (host bits cleared), as BlockList wants it. */
function networkAddress(c: ParsedCIDR): string {
  if (c.family === 4) {
    const n = c.address.split(".").reduce((acc, o) => acc * 256 + Number(o), 0);
    const mask = c.prefix === 0 ? 0 : (0xffffffff << (32 - c.prefix)) >>> 0;
    const net = (n & mask) >>> 0;
    return [24, 16, 8, 0].map((s) => (net >>> s) & 255).join(".");
  }
  return c.address;
}

function contains(outer: ParsedCIDR, address: string, family: 4 | 6): boolean {
  if (outer.family !== family) return false;
  const list = new BlockList();
  const type = family === 4 ? "ipv4" : "ipv6";
  list.addSubnet(outer.address, outer.prefix, type);
  return list.check(address, type);
}

/** Whether `outer` contains the network address of `inner`. */
export function containsNetworkOf(outer: string, inner: string): boolean {
  const o = parseCIDR(outer);
  const i = parseCIDR(inner);
  return !!o && !!i && contains(o, networkAddress(i), i.family);
}

export function intersects(a: string, b: string): boolean {
  return containsNetworkOf(a, b) || containsNetworkOf(b, a);
}

/** Seed `spec.networks.vpn`: defaulted elsewhere; IPv4 /24, immutable, disjoint from the seed's networks. */
export function validateSeedVpn(networks: unknown, oldNetworks?: unknown): FieldError[] {
  const n = recordOrEmpty(networks);
  const vpnPath = SEED_NETWORKS.child("vpn");
  const errs: FieldError[] = [];
  if (oldNetworks !== undefined) {
    const before = recordOrEmpty(oldNetworks).vpn;
    if (before !== undefined && n.vpn !== before) errs.push(invalid(vpnPath, n.vpn, "field is immutable"));
  }
  if (n.vpn === undefined) return errs;
  const vpn = typeof n.vpn === "string" ? parseCIDR(n.vpn) : undefined;
  if (!vpn) return [...errs, invalid(vpnPath, n.vpn, `invalid CIDR address: ${String(n.vpn)}`)];
  if (vpn.family !== 4 || vpn.prefix !== 24) return [...errs, invalid(vpnPath, n.vpn, "must be an IPv4 network with prefix length 24")];
  const vpnText = n.vpn as string;
  const seedRanges: [Path, unknown][] = [
    [SEED_NETWORKS.child("nodes"), n.nodes],
    [SEED_NETWORKS.child("pods"), n.pods],
    [SEED_NETWORKS.child("services"), n.services],
    [SEED_NETWORKS.child("shootDefaults", "pods"), recordOrEmpty(n.shootDefaults).pods],
    [SEED_NETWORKS.child("shootDefaults", "services"), recordOrEmpty(n.shootDefaults).services],
  ];
  for (const [path, value] of seedRanges) {
    const cidr = str(value);
    if (!cidr || !parseCIDR(cidr)) continue;
    if (containsNetworkOf(vpnText, cidr)) errs.push(invalid(path, cidr, `must not be a subset of "${vpnPath.toString()}" ("${vpnText}")`));
    if (containsNetworkOf(cidr, vpnText)) errs.push(invalid(vpnPath, vpnText, `must not be a subset of "${path.toString()}" ("${cidr}")`));
  }
  return errs;
}

/** The shoot's node, pod and service ranges must not overlap each other (create and update). */
export function validateShootNetworksDisjoint(networking: unknown): FieldError[] {
  const n = recordOrEmpty(networking);
  const [nodes, pods, services] = [str(n.nodes), str(n.pods), str(n.services)];
  const errs: FieldError[] = [];
  const valid = (c: string | undefined): c is string => !!c && !!parseCIDR(c);
  if (valid(pods) && valid(services) && intersects(pods, services)) errs.push(invalid(SHOOT_NETWORKING.child("services"), services, "shoot pod network intersects with shoot service network"));
  if (valid(pods) && valid(nodes) && intersects(pods, nodes)) errs.push(invalid(SHOOT_NETWORKING.child("pods"), pods, "shoot pod network intersects with shoot node network"));
  if (valid(services) && valid(nodes) && intersects(services, nodes)) errs.push(invalid(SHOOT_NETWORKING.child("services"), services, "shoot service network intersects with shoot node network"));
  return errs;
}

/**
 * The shoot's ranges against its seed's (on create with a seed and when the seed changes). Gardener also
 * requires pods and services of a shoot with workers here; not yet, as the landscape's Shoot has no
 * services range until the VPN is wired into it (docs/reversed-vpn.md#what-comes-next).
 */
export function validateShootAgainstSeed(networking: unknown, seedNetworks: unknown): FieldError[] {
  const n = recordOrEmpty(networking);
  const s = recordOrEmpty(seedNetworks);
  const vpn = str(s.vpn) ?? DEFAULT_VPN_RANGE;
  const [nodes, pods, services] = [str(n.nodes), str(n.pods), str(n.services)];
  const [seedNodes, seedPods, seedServices] = [str(s.nodes), str(s.pods), str(s.services)];
  const errs: FieldError[] = [];
  const check = (field: string, value: string | undefined, other: string | undefined, what: string) => {
    if (value && other && parseCIDR(value) && parseCIDR(other) && intersects(value, other)) errs.push(invalid(SHOOT_NETWORKING.child(field), value, what));
  };
  check("nodes", nodes, vpn, `shoot node network intersects with default vpn network (${vpn})`);
  check("pods", pods, vpn, `shoot pod network intersects with default vpn network (${vpn})`);
  check("services", services, vpn, `shoot service network intersects with default vpn network (${vpn})`);
  check("nodes", nodes, seedNodes, "shoot node network intersects with seed node network");
  check("pods", pods, seedPods, "shoot pod network intersects with seed pod network");
  check("pods", pods, seedServices, "shoot pod network intersects with seed service network");
  check("services", services, seedServices, "shoot service network intersects with seed service network");
  check("services", services, seedPods, "shoot service network intersects with seed pod network");
  return errs;
}
