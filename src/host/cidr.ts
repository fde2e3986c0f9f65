// IPv4/IPv6 addresses and prefixes: parsing, normalising to the network address, containment. Pure.
import { isIPv4, isIPv6 } from "node:net";
import { compressIPv6 } from "./procs.ts";
import { HostSpecError } from "./names.ts";

export interface Cidr {
  family: 4 | 6;
  /** The address as an unsigned integer (32 or 128 bits). */
  value: bigint;
  prefix: number;
}

function bits(family: 4 | 6): number {
  return family === 4 ? 32 : 128;
}

function parseIPv4(s: string): bigint {
  return s.split(".").reduce((acc, part) => (acc << 8n) | BigInt(Number(part)), 0n);
}

function parseIPv6(s: string): bigint {
  let text = s;
  if (text.includes(".")) {
    // Embedded IPv4 ("::ffff:10.0.0.1"): rewrite its last 32 bits as two hex groups.
    const at = text.lastIndexOf(":");
    const v4 = parseIPv4(text.slice(at + 1));
    text = `${text.slice(0, at + 1)}${(v4 >> 16n).toString(16)}:${(v4 & 0xffffn).toString(16)}`;
  }
  const groupsOf = (p: string) => (p === "" ? [] : p.split(":").map((g) => BigInt(parseInt(g, 16))));
  let groups: bigint[];
  if (text.includes("::")) {
    const [head = "", tail = ""] = text.split("::");
    const left = groupsOf(head);
    const right = groupsOf(tail);
    groups = [...left, ...Array<bigint>(8 - left.length - right.length).fill(0n), ...right];
  } else {
    groups = groupsOf(text);
  }
  return groups.reduce((acc, g) => (acc << 16n) | g, 0n);
}

/** Parses "10.0.0.1", "10.0.0.0/8", "fd00::1/64"; a bare address gets the full prefix length. */
export function parseCidr(text: string): Cidr {
  const [addr = "", len, extra] = text.trim().split("/");
  if (extra !== undefined) throw new HostSpecError(`invalid CIDR ${JSON.stringify(text)}`);
  const family = isIPv4(addr) ? 4 : isIPv6(addr) ? 6 : undefined;
  if (family === undefined) throw new HostSpecError(`invalid IP address in ${JSON.stringify(text)}`);
  const max = bits(family);
  const prefix = len === undefined ? max : /^\d{1,3}$/.test(len) ? Number(len) : NaN;
  if (!(prefix >= 0 && prefix <= max)) throw new HostSpecError(`invalid prefix length in ${JSON.stringify(text)}`);
  const value = family === 4 ? parseIPv4(addr) : parseIPv6(addr);
  return { family, value, prefix };
}

function mask(family: 4 | 6, prefix: number): bigint {
  const max = bits(family);
  return ((1n << BigInt(max)) - 1n) ^ ((1n << BigInt(max - prefix)) - 1n);
}

export function formatAddress(family: 4 | 6, value: bigint): string {
  if (family === 4) return [24n, 16n, 8n, 0n].map((s) => String((value >> s) & 255n)).join(".");
  const groups: string[] = [];
  for (let i = 7; i >= 0; i--) groups.push(((value >> BigInt(i * 16)) & 0xffffn).toString(16));
  return compressIPv6(groups);
}

/** The network of a CIDR: host bits cleared. */
export function network(c: Cidr): Cidr {
  return { ...c, value: c.value & mask(c.family, c.prefix) };
}

/** "10.1.2.3/8" -> "10.0.0.0/8"; a full-length prefix is written as the bare address. */
export function formatCidr(c: Cidr): string {
  const addr = formatAddress(c.family, c.value);
  return c.prefix === bits(c.family) ? addr : `${addr}/${c.prefix}`;
}

export function normalizeCidr(text: string): string {
  return formatCidr(network(parseCidr(text)));
}

/** The address part of "10.0.0.5/24". */
export function addressOf(text: string): string {
  const c = parseCidr(text);
  return formatAddress(c.family, c.value);
}

export function familyOf(text: string): 4 | 6 {
  return parseCidr(text).family;
}

/** True when `inner` lies inside `outer` (same family). */
export function contains(outer: Cidr, inner: Cidr): boolean {
  if (outer.family !== inner.family || inner.prefix < outer.prefix) return false;
  return (inner.value & mask(outer.family, outer.prefix)) === network(outer).value;
}

/**
 * Normalises CIDRs of one family and drops duplicates and prefixes contained in others, sorted by address,
 * so an nftables interval set gets non-overlapping elements.
 */
export function minimalCidrs(texts: readonly string[]): string[] {
  // Sorted by family, address, then shorter prefix first: two prefixes either nest or are disjoint, so one
  // that starts within the last kept one lies inside it. One pass after the sort, not every pair (a
  // shoot's workers' sets hold a thousand bastions' addresses, rewritten on every bastion change).
  const nets = texts.map((t) => network(parseCidr(t)));
  nets.sort((a, b) => (a.family !== b.family ? a.family - b.family : a.value < b.value ? -1 : a.value > b.value ? 1 : a.prefix - b.prefix));
  const kept: Cidr[] = [];
  let end = -1n;
  let family = 0;
  for (const n of nets) {
    if (n.family === family && n.value <= end) continue;
    kept.push(n);
    family = n.family;
    end = n.value + (1n << BigInt(bits(n.family) - n.prefix)) - 1n;
  }
  return kept.map(formatCidr);
}
