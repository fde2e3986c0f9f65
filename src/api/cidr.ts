// CIDR syntax as Go's net.ParseCIDR accepts it: an IPv4 or IPv6 address (no zone, IPv4 octets
// without leading zeros), "/", and a decimal prefix length within the address family's bits.
// Host bits may be set ("1.2.3.4/8" is valid).
import { BlockList, isIPv4, isIPv6 } from "node:net";

export interface ParsedCIDR {
  family: 4 | 6;
  address: string;
  prefix: number;
}

export function parseCIDR(value: string): ParsedCIDR | undefined {
  const slash = value.lastIndexOf("/");
  if (slash < 0) return undefined;
  const address = value.slice(0, slash);
  const mask = value.slice(slash + 1);
  if (!/^[0-9]{1,3}$/.test(mask)) return undefined;
  if (address.includes("%")) return undefined;
  const family = isIPv4(address) ? 4 : isIPv6(address) ? 6 : 0;
  if (family === 0) return undefined;
  const prefix = Number(mask);
  if (prefix > (family === 4 ? 32 : 128)) return undefined;
  return { family, address, prefix };
}

export function isCIDR(value: string): boolean {
  return parseCIDR(value) !== undefined;
}

/**
 * Whether `inner` is a strict subset of `outer` (as Kubernetes' NetworkPolicy requires of an
 * ipBlock's `except` entries): the same address family, a longer prefix, and inside the range.
 */
export function isStrictSubnet(inner: ParsedCIDR, outer: ParsedCIDR): boolean {
  if (inner.family !== outer.family || inner.prefix <= outer.prefix) return false;
  const type = outer.family === 4 ? "ipv4" : "ipv6";
  const range = new BlockList();
  range.addSubnet(outer.address, outer.prefix, type);
  return range.check(inner.address, type);
}
