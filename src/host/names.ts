// Names of host objects. Everything this project creates on the host carries one prefix (default "ga-"),
// so leftovers can be found by name even when their record is lost. One prefix belongs to one state
// directory: sweeping a state directory removes every object with its prefix.
import { createHash } from "node:crypto";

export const DEFAULT_PREFIX = "ga-";
/** Linux limits interface names to 15 bytes (IFNAMSIZ - 1). */
export const MAX_IFNAME = 15;

/** An invalid name or spec given to a host operation. */
export class HostSpecError extends Error {
  override readonly name = "HostSpecError";
}

const PREFIX_RE = /^[a-z][a-z0-9]{0,4}-$/;
const PART_RE = /^[a-z0-9]([a-z0-9.-]*[a-z0-9])?$/;

export function validatePrefix(prefix: string): string {
  if (!PREFIX_RE.test(prefix)) {
    throw new HostSpecError(`prefix ${JSON.stringify(prefix)} must be 1-5 lowercase letters or digits followed by "-"`);
  }
  return prefix;
}

/** A machine or other logical name: lowercase DNS-label characters and dots, at most 200 characters. */
export function validateLogicalName(what: string, name: string): string {
  if (name.length > 200 || !PART_RE.test(name)) {
    throw new HostSpecError(`${what} ${JSON.stringify(name)} must be lowercase letters, digits, "-" and "."`);
  }
  return name;
}

export function validateIfname(name: string): string {
  if (name.length === 0 || name.length > MAX_IFNAME || !/^[A-Za-z0-9_.-]+$/.test(name) || name === "." || name === "..") {
    throw new HostSpecError(`interface name ${JSON.stringify(name)} must be 1-${MAX_IFNAME} characters of [A-Za-z0-9_.-]`);
  }
  return name;
}

export function shortHash(text: string, length: number): string {
  return createHash("sha256").update(text).digest("hex").slice(0, length);
}

/** Builds the prefixed names of one state directory's host objects. */
export class Names {
  readonly prefix: string;

  constructor(prefix: string = DEFAULT_PREFIX) {
    this.prefix = validatePrefix(prefix);
  }

  /** A network namespace name, e.g. netns("public") = "ga-public". */
  netns(...parts: string[]): string {
    for (const p of parts) validateLogicalName("name part", p);
    return this.prefix + parts.join("-");
  }

  /** The network namespace of a machine. */
  machineNetns(machine: string): string {
    return this.netns("m", machine);
  }

  /**
   * An interface name of at most 15 characters: readable ("ga-public") when it fits, otherwise the prefix
   * and a hash of the parts ("ga-3fa9c0d1e2b4"), which is stable, so a restarted process computes it again.
   */
  link(...parts: string[]): string {
    for (const p of parts) validateLogicalName("name part", p);
    const readable = this.prefix + parts.join("-");
    if (readable.length <= MAX_IFNAME) return readable;
    return this.prefix + shortHash(parts.join("/"), MAX_IFNAME - this.prefix.length);
  }

  /** The host-side end of a machine's veth for its network number `index`. */
  machineLink(machine: string, index: number): string {
    return this.link("m", machine, String(index));
  }

  /** An nftables table name with the prefix ("ga_nat_public"): nft identifiers use "_" rather than "-". */
  table(...parts: string[]): string {
    for (const p of parts) validateLogicalName("name part", p);
    return (this.prefix + parts.join("_")).replace(/[-.]/g, "_");
  }

  /** The prefix as it appears in table names. */
  get tablePrefix(): string {
    return this.prefix.replace(/-/g, "_");
  }

  owns(name: string): boolean {
    return name.startsWith(this.prefix);
  }

  ownsTable(name: string): boolean {
    return name.startsWith(this.tablePrefix);
  }
}
