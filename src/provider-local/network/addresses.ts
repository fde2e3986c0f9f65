// Address allocation for the local landscape: pools (the public network, each shoot's node network, the
// pool node CIDRs are carved from) hand out addresses or blocks by key ("bastion/<ns>/<name>"), the same
// one again for the same key, so a restarted controller finds its machines at the addresses they have.
// FileAddressBook keeps the allocations in one JSON file (written atomically, each update under a lock
// file, so processes sharing the book never hand out one address twice); MemoryAddressBook is for
// unit tests. Deleting what an address belongs to releases it: a stale entry is recorded state, a leak.
import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { formatAddress, network, parseCidr, type Cidr } from "../../host/cidr.ts";
import { withFileLock } from "./file-lock.ts";
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

interface PendingUpdate {
  change: (a: Allocations) => unknown;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
}

export class FileAddressBook implements AddressBook {
  private queue: PendingUpdate[] = [];
  private draining = false;
  /** Locked read-modify-writes of the file so far: updates queued meanwhile share the next one. */
  rounds = 0;

  constructor(readonly file: string) {}

  async read(): Promise<Allocations> {
    try {
      return JSON.parse(await readFile(this.file, "utf8")) as Allocations;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return {};
      throw err;
    }
  }

  /**
   * Updates that arrive while a write is under way share the next one (ten bastions created at once cost
   * two rounds of lock, read, write and rename, not ten). Each change still applies alone, in arrival
   * order: one that throws is left out (its copy of the book is dropped) and only its caller sees the error.
   * Every caller's promise settles once the file holding its change is in place.
   */
  update<T>(change: (a: Allocations) => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ change, resolve: resolve as (value: unknown) => void, reject });
      if (!this.draining) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.draining = true;
    try {
      while (this.queue.length > 0) await this.round(this.queue.splice(0));
    } finally {
      this.draining = false;
    }
  }

  private async round(batch: PendingUpdate[]): Promise<void> {
    const outcomes: ({ ok: true; value: unknown } | { ok: false; err: unknown })[] = [];
    try {
      await mkdir(dirname(this.file), { recursive: true });
      await withFileLock(`${this.file}.lock`, async () => {
        this.rounds++;
        let data = await this.read();
        for (const u of batch) {
          const copy = structuredClone(data);
          try {
            outcomes.push({ ok: true, value: u.change(copy) });
            data = copy;
          } catch (err) {
            outcomes.push({ ok: false, err });
          }
        }
        if (!outcomes.some((o) => o.ok)) return;
        for (const [pool, entries] of Object.entries(data)) if (Object.keys(entries).length === 0) delete data[pool];
        const tmp = `${this.file}.${process.pid}.tmp`;
        await writeFile(tmp, JSON.stringify(data, null, 2) + "\n", { mode: 0o600 });
        await rename(tmp, this.file);
      });
    } catch (err) {
      for (const u of batch) u.reject(err);
      return;
    }
    batch.forEach((u, i) => {
      const o = outcomes[i]!;
      if (o.ok) u.resolve(o.value);
      else u.reject(o.err);
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

const IPV4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})(\/\d+)?$/;

/** Offsets in use within `c` (entries outside it are ignored), ascending; IPv4 without BigInt arithmetic. */
function usedOffsets(c: Cidr, values: Iterable<string>): number[] {
  const size = hostCount(c);
  const out: number[] = [];
  if (c.family === 4) {
    const base = Number(c.value);
    const max = Number(size);
    for (const v of values) {
      const m = IPV4.exec(v);
      if (!m) continue;
      const off = ((Number(m[1]) * 256 + Number(m[2])) * 256 + Number(m[3])) * 256 + Number(m[4]) - base;
      if (off >= 0 && off < max) out.push(off);
    }
  } else {
    for (const v of values) {
      let p: Cidr;
      try {
        p = parseCidr(v.includes("/") ? v : `${v}/128`);
      } catch {
        continue;
      }
      const off = p.value - c.value;
      // Offsets beyond 2^53 are never reached by a lowest-free search.
      if (p.family === 6 && off >= 0n && off < size && off < BigInt(Number.MAX_SAFE_INTEGER)) out.push(Number(off));
    }
  }
  return Float64Array.from(out).sort() as unknown as number[];
}

export interface AllocateLimits {
  /** Offset of the first address handed out (default 2: the network address and the gateway are not). */
  first?: number;
  /**
   * At most this many entries in the pool (e.g. the ports a Linux bridge holds); beyond it the pool is
   * exhausted although addresses are free.
   */
  maxEntries?: number;
  /** What the pool is, for the exhaustion message ("the public network"). */
  what?: string;
}

/**
 * The key's address in `pool` within `cidr`: the one it has, or the lowest free host address from offset
 * `first` on (IPv4's broadcast address is never handed out). One sort of the pool's entries per call, so
 * an allocation with thousands taken costs about a millisecond, whatever the size of the network.
 */
export function allocateIn(a: Allocations, pool: string, cidr: string, key: string, l: AllocateLimits = {}): string {
  const entries = (a[pool] ??= {});
  const have = entries[key];
  if (have !== undefined) return have;
  const c = network(parseCidr(cidr));
  const what = l.what ?? `pool ${pool}`;
  const count = Object.keys(entries).length;
  if (l.maxEntries !== undefined && count >= l.maxEntries) {
    throw new AddressExhaustedError(`no room for another machine in ${cidr} (${what}): it holds at most ${l.maxEntries}, all taken`);
  }
  const last = hostCount(c) - (c.family === 4 ? 2n : 1n);
  let next = l.first ?? 2;
  const used = usedOffsets(c, Object.values(entries));
  for (let i = 0; i < used.length; i++) {
    const off = used[i]!;
    if (off < next) continue;
    if (off > next) break;
    next++;
  }
  if (BigInt(next) > last) throw new AddressExhaustedError(`no free address in ${cidr} (${what}): all ${count} usable addresses are taken`);
  return (entries[key] = formatAddress(c.family, c.value + BigInt(next)));
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
