// Address allocation for the local landscape: pools (the public network, each shoot's node network, the
// pool node CIDRs are carved from) hand out addresses or blocks by key ("bastion/<ns>/<name>"), the same
// one again for the same key, so a restarted controller finds its machines at the addresses they have.
// FileAddressBook keeps the allocations in one JSON file (written atomically); MemoryAddressBook is for
// unit tests. Deleting what an address belongs to releases it: a stale entry is recorded state, a leak.
import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { formatAddress, network, parseCidr, type Cidr } from "../../host/cidr.ts";
import { KeyedMutex } from "./lock.ts";

/** pool -> key -> value (an address "10.250.0.5" or a block "10.250.3.0/24"). */
export type Allocations = Record<string, Record<string, string>>;

export class AddressExhaustedError extends Error {
  override readonly name = "AddressExhaustedError";
}

export interface AddressBook {
  /** The whole book (a copy). */
  read(): Promise<Allocations>;
  /** Applies `change` to the book atomically (one writer at a time) and returns what it returns. */
  update<T>(change: (a: Allocations) => T): Promise<T>;
}

export class MemoryAddressBook implements AddressBook {
  private data: Allocations = {};
  private readonly mutex = new KeyedMutex();
  read(): Promise<Allocations> {
    return Promise.resolve(structuredClone(this.data));
  }
  update<T>(change: (a: Allocations) => T): Promise<T> {
    return this.mutex.run("book", () => {
      const copy = structuredClone(this.data);
      const out = change(copy);
      this.data = copy;
      return Promise.resolve(out);
    });
  }
}

export class FileAddressBook implements AddressBook {
  private readonly mutex = new KeyedMutex();
  constructor(readonly file: string) {}

  async read(): Promise<Allocations> {
    try {
      return JSON.parse(await readFile(this.file, "utf8")) as Allocations;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return {};
      throw err;
    }
  }

  update<T>(change: (a: Allocations) => T): Promise<T> {
    return this.mutex.run("book", async () => {
      const data = await this.read();
      const out = change(data);
      for (const [pool, entries] of Object.entries(data)) if (Object.keys(entries).length === 0) delete data[pool];
      await mkdir(dirname(this.file), { recursive: true });
      const tmp = `${this.file}.${process.pid}.tmp`;
      await writeFile(tmp, JSON.stringify(data, null, 2) + "\n", { mode: 0o600 });
      await rename(tmp, this.file);
      return out;
    });
  }
}

/** The address `offset` places after the network address of `cidr` ("10.250.0.0/24", 1 -> "10.250.0.1"). */
export function nthAddress(cidr: string, offset: number | bigint): string {
  const c = network(parseCidr(cidr));
  const size = 1n << BigInt((c.family === 4 ? 32 : 128) - c.prefix);
  const n = BigInt(offset);
  if (n < 0n || n >= size) throw new AddressExhaustedError(`offset ${n} is outside ${cidr}`);
  return formatAddress(c.family, c.value + n);
}

function hostCount(c: Cidr): bigint {
  return 1n << BigInt((c.family === 4 ? 32 : 128) - c.prefix);
}

/**
 * The key's address in `pool` within `cidr`: the one it has, or the lowest free host address from offset
 * `first` on (IPv4's broadcast address is never handed out).
 */
export function allocateIn(a: Allocations, pool: string, cidr: string, key: string, first = 2): string {
  const entries = (a[pool] ??= {});
  const have = entries[key];
  if (have !== undefined) return have;
  const c = network(parseCidr(cidr));
  const used = new Set(Object.values(entries));
  const last = hostCount(c) - (c.family === 4 ? 2n : 1n);
  for (let n = BigInt(first); n <= last && n < BigInt(first) + 65536n; n++) {
    const addr = formatAddress(c.family, c.value + n);
    if (!used.has(addr)) return (entries[key] = addr);
  }
  throw new AddressExhaustedError(`no free address in ${cidr} (pool ${pool})`);
}

/** The key's block of prefix length `prefix` carved from `cidr` (the one it has, or the lowest free one). */
export function carveIn(a: Allocations, pool: string, cidr: string, key: string, prefix: number): string {
  const entries = (a[pool] ??= {});
  const have = entries[key];
  if (have !== undefined) return have;
  const c = network(parseCidr(cidr));
  if (prefix < c.prefix) throw new AddressExhaustedError(`cannot carve /${prefix} blocks from ${cidr}`);
  const step = 1n << BigInt((c.family === 4 ? 32 : 128) - prefix);
  const count = 1n << BigInt(prefix - c.prefix);
  const used = new Set(Object.values(entries));
  for (let i = 0n; i < count && i < 65536n; i++) {
    const block = `${formatAddress(c.family, c.value + i * step)}/${prefix}`;
    if (!used.has(block)) return (entries[key] = block);
  }
  throw new AddressExhaustedError(`no free /${prefix} block in ${cidr}`);
}

export function releaseIn(a: Allocations, pool: string, key: string): void {
  const entries = a[pool];
  if (!entries) return;
  delete entries[key];
  if (Object.keys(entries).length === 0) delete a[pool];
}
