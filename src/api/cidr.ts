// CIDR syntax as Go's net.ParseCIDR accepts it: an IPv4 or IPv6 address (no zone, IPv4 octets
// without leading zeros), "/", and a decimal prefix length within the address family's bits.
// Host bits may be set ("1.2.3.4/8" is valid).
import { isIPv4, isIPv6 } from "node:net";

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
