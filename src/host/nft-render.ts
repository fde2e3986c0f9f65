// Typed nftables descriptions and their rendering to `nft -f` text. Pure: the golden tests pin the text.
// A whole table is applied in one transaction ("add; delete; define"), and a set's contents are replaced in
// one transaction ("flush; add element"), so no packet ever sees a half-applied ruleset.
import { minimalCidrs, parseCidr } from "./cidr.ts";
import { HostSpecError, validateIfname } from "./names.ts";

export type NftFamily = "inet" | "ip" | "ip6" | "bridge";
export type NftHook = "prerouting" | "input" | "forward" | "output" | "postrouting";
export type NftVerdict = "accept" | "drop" | "reject" | "masquerade" | "return";
export type CtState = "new" | "established" | "related" | "invalid";

/** An interval set of addresses/prefixes of one family. */
export interface NftSet {
  name: string;
  type: "ipv4_addr" | "ipv6_addr";
  /** CIDRs or addresses; normalised to their network and de-overlapped when rendered. */
  elements?: readonly string[];
}

/** An address match: a CIDR/address (or a list of one family), or a named set of the table. */
export type NftAddr = string | readonly string[] | { set: string };

/** One rule: every given match must hold, then the verdict applies. */
export interface NftRule {
  /** Interface names; a trailing "*" matches every name with that stem. */
  iif?: string;
  oif?: string;
  saddr?: NftAddr;
  daddr?: NftAddr;
  protocol?: "tcp" | "udp";
  dport?: number | readonly number[];
  /** ICMPv6 types, e.g. "nd-neighbor-solicit". */
  icmpv6Types?: readonly string[];
  ct?: readonly CtState[];
  /**
   * On TCP SYNs that pass the matches, set the MSS option to the route's MTU (less headers), so peers behind
   * a tunnel with a smaller MTU never send segments it must fragment. A rule with it may omit the verdict.
   */
  clampMssToRouteMtu?: boolean;
  /** Destination NAT to an IPv4 address and port (nat chains on prerouting/output): a Service's port to its endpoint. */
  dnatTo?: { address: string; port: number };
  /** Omitted: the packet continues to the next rule (only with a statement such as clampMssToRouteMtu). */
  verdict?: NftVerdict;
  comment?: string;
}

export interface NftChain {
  name: string;
  /** A base chain hooks into the stack; a chain without one is only a jump target. */
  base?: { type: "filter" | "nat"; hook: NftHook; priority: number | "filter" | "srcnat" | "dstnat"; policy?: "accept" | "drop" };
  rules: readonly NftRule[];
}

export interface NftTable {
  family: NftFamily;
  name: string;
  sets?: readonly NftSet[];
  chains: readonly NftChain[];
}

const IDENT = /^[A-Za-z][A-Za-z0-9_]{0,63}$/;
const ICMPV6_TYPE = /^[a-z][a-z0-9-]*$/;

export function validateIdent(what: string, name: string): string {
  if (!IDENT.test(name)) throw new HostSpecError(`nft ${what} name ${JSON.stringify(name)} must match ${IDENT.source}`);
  return name;
}

function setFamily(type: NftSet["type"]): 4 | 6 {
  return type === "ipv4_addr" ? 4 : 6;
}

/** Elements of a set as nft writes them: normalised, non-overlapping, of the set's family. */
export function setElements(set: NftSet): string[] {
  const fam = setFamily(set.type);
  for (const e of set.elements ?? []) {
    if (parseCidr(e).family !== fam) throw new HostSpecError(`set ${set.name}: ${e} is not ${set.type}`);
  }
  return minimalCidrs(set.elements ?? []);
}

function renderAddr(table: NftTable, dir: "saddr" | "daddr", addr: NftAddr): string {
  if (typeof addr === "object" && !Array.isArray(addr) && "set" in addr) {
    const set = (table.sets ?? []).find((s) => s.name === (addr as { set: string }).set);
    if (!set) throw new HostSpecError(`table ${table.name}: rule refers to unknown set ${(addr as { set: string }).set}`);
    return `${setFamily(set.type) === 4 ? "ip" : "ip6"} ${dir} @${set.name}`;
  }
  const list = typeof addr === "string" ? [addr] : (addr as readonly string[]);
  if (list.length === 0) throw new HostSpecError(`table ${table.name}: empty address list`);
  const fams = new Set(list.map((a) => parseCidr(a).family));
  if (fams.size !== 1) throw new HostSpecError(`table ${table.name}: address list mixes IPv4 and IPv6`);
  const items = minimalCidrs(list);
  const v = items.length === 1 ? items[0] : `{ ${items.join(", ")} }`;
  return `${fams.has(4) ? "ip" : "ip6"} ${dir} ${v}`;
}

function checkFamily(table: NftTable, text: string): void {
  if ((table.family === "ip" && text.startsWith("ip6 ")) || (table.family === "ip6" && text.startsWith("ip "))) {
    throw new HostSpecError(`table ${table.family} ${table.name}: "${text}" does not fit the family`);
  }
}

/** An interface name, or a name stem followed by "*" (every interface whose name starts with it, e.g. "tun*"). */
function ifnameMatch(name: string): string {
  return name.endsWith("*") ? `${validateIfname(name.slice(0, -1))}*` : validateIfname(name);
}

export function renderRule(table: NftTable, rule: NftRule): string {
  return [...ruleMatches(table, rule), ...ruleStatements(table, rule)].join(" ");
}

/** The rule's match expressions: interfaces, addresses, protocol and ports, icmpv6 types, conntrack state. */
function ruleMatches(table: NftTable, rule: NftRule): string[] {
  const parts: string[] = [];
  if (rule.iif !== undefined) parts.push(`iifname "${ifnameMatch(rule.iif)}"`);
  if (rule.oif !== undefined) parts.push(`oifname "${ifnameMatch(rule.oif)}"`);
  for (const dir of ["saddr", "daddr"] as const) {
    const a = rule[dir];
    if (a === undefined) continue;
    const text = renderAddr(table, dir, a);
    checkFamily(table, text);
    parts.push(text);
  }
  const l4 = renderL4(table, rule);
  if (l4) parts.push(l4);
  if (rule.icmpv6Types !== undefined) parts.push(renderIcmpv6(table, rule.icmpv6Types));
  if (rule.ct !== undefined && rule.ct.length > 0) parts.push(`ct state ${rule.ct.join(",")}`);
  return parts;
}

function renderL4(table: NftTable, rule: NftRule): string | undefined {
  if (rule.dport === undefined) return rule.protocol ? `meta l4proto ${rule.protocol}` : undefined;
  if (!rule.protocol) throw new HostSpecError(`table ${table.name}: dport needs a protocol`);
  const ports = typeof rule.dport === "number" ? [rule.dport] : [...rule.dport];
  if (ports.length === 0 || ports.some((p) => !Number.isInteger(p) || p < 1 || p > 65535)) {
    throw new HostSpecError(`table ${table.name}: invalid port in ${JSON.stringify(rule.dport)}`);
  }
  return `${rule.protocol} dport ${ports.length === 1 ? ports[0] : `{ ${ports.join(", ")} }`}`;
}

function renderIcmpv6(table: NftTable, icmpv6Types: readonly string[]): string {
  if (table.family === "ip") throw new HostSpecError(`table ip ${table.name}: icmpv6 in an IPv4 table`);
  for (const t of icmpv6Types) if (!ICMPV6_TYPE.test(t)) throw new HostSpecError(`invalid icmpv6 type ${JSON.stringify(t)}`);
  return `icmpv6 type ${icmpv6Types.length === 1 ? icmpv6Types[0] : `{ ${icmpv6Types.join(", ")} }`}`;
}

/** The rule's statements: MSS clamping, DNAT, the verdict (at least one of the three), the comment. */
function ruleStatements(table: NftTable, rule: NftRule): string[] {
  const parts: string[] = [];
  if (rule.clampMssToRouteMtu) parts.push("tcp flags syn tcp option maxseg size set rt mtu");
  if (rule.dnatTo !== undefined) parts.push(renderDnat(table, rule.dnatTo));
  if (rule.verdict === undefined && !rule.clampMssToRouteMtu && rule.dnatTo === undefined) throw new HostSpecError(`table ${table.name}: a rule needs a verdict or a statement`);
  if (rule.verdict !== undefined) parts.push(rule.verdict);
  if (rule.comment !== undefined) {
    if (!/^[A-Za-z0-9 _.,:/()+=-]{1,128}$/.test(rule.comment)) throw new HostSpecError(`invalid comment ${JSON.stringify(rule.comment)}`);
    parts.push(`comment "${rule.comment}"`);
  }
  return parts;
}

function renderDnat(table: NftTable, to: NonNullable<NftRule["dnatTo"]>): string {
  const { address, port } = to;
  if (table.family !== "ip" || !/^(\d{1,3})(\.\d{1,3}){3}$/.test(address) || address.split(".").some((o) => Number(o) > 255)) throw new HostSpecError(`table ${table.name}: dnat needs an IPv4 address in an ip table, not ${JSON.stringify(address)}`);
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new HostSpecError(`table ${table.name}: invalid dnat port ${JSON.stringify(port)}`);
  return `dnat to ${address}:${port}`;
}

function renderSet(set: NftSet): string[] {
  validateIdent("set", set.name);
  const elements = setElements(set);
  const lines = [`\tset ${set.name} {`, `\t\ttype ${set.type}`, "\t\tflags interval"];
  if (elements.length > 0) lines.push(`\t\telements = { ${elements.join(", ")} }`);
  lines.push("\t}");
  return lines;
}

function renderChain(table: NftTable, chain: NftChain): string[] {
  validateIdent("chain", chain.name);
  const lines = [`\tchain ${chain.name} {`];
  if (chain.base) {
    const b = chain.base;
    lines.push(`\t\ttype ${b.type} hook ${b.hook} priority ${b.priority}; policy ${b.policy ?? "accept"};`);
  }
  for (const r of chain.rules) lines.push(`\t\t${renderRule(table, r)}`);
  lines.push("\t}");
  return lines;
}

/** The table's definition, as `nft list table` would show it (without handles). */
export function renderTable(table: NftTable): string {
  validateIdent("table", table.name);
  const names = new Set<string>();
  for (const n of [...(table.sets ?? []).map((s) => s.name), ...table.chains.map((c) => c.name)]) {
    if (names.has(n)) throw new HostSpecError(`table ${table.name}: duplicate name ${n}`);
    names.add(n);
  }
  const body: string[][] = [...(table.sets ?? []).map(renderSet), ...table.chains.map((c) => renderChain(table, c))];
  return [`table ${table.family} ${table.name} {`, ...body.flatMap((b, i) => (i === 0 ? b : ["", ...b])), "}"].join("\n") + "\n";
}

/** One transaction that creates or replaces the whole table. */
export function renderApplyTable(table: NftTable): string {
  return `table ${table.family} ${table.name}\ndelete table ${table.family} ${table.name}\n${renderTable(table)}`;
}

/** One transaction that deletes the table whether or not it exists. */
export function renderDeleteTable(family: NftFamily, name: string): string {
  validateIdent("table", name);
  return `table ${family} ${name}\ndelete table ${family} ${name}\n`;
}

/** New contents of one set; with `type`, elements of the other family are refused before nft sees them. */
export interface SetContents {
  name: string;
  type?: NftSet["type"];
  elements: readonly string[];
}

/** One transaction that replaces the contents of the given sets of a table. */
export function renderReplaceSets(
  family: NftFamily,
  table: string,
  sets: readonly SetContents[],
): string {
  validateIdent("table", table);
  const lines: string[] = [];
  for (const s of sets) {
    validateIdent("set", s.name);
    const elements = s.type ? setElements({ ...s, type: s.type }) : minimalCidrs(s.elements);
    lines.push(`flush set ${family} ${table} ${s.name}`);
    if (elements.length > 0) lines.push(`add element ${family} ${table} ${s.name} { ${elements.join(", ")} }`);
  }
  return lines.join("\n") + "\n";
}
