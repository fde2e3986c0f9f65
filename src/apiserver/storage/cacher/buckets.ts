// The watch cache's in-memory state, bucketed by "resource prefix" so that listing one resource or
// one namespace touches only that resource's keys, never all cached objects.
import sortedBtree from "sorted-btree";
import type { KeyValue } from "../interface.ts";

// sorted-btree is CommonJS with `exports.default`; Node hands an ES module its whole module.exports.
const { default: BTree, simpleComparator } = sortedBtree;

/**
 * Maps a key, or a list/watch prefix, to its bucket: a prefix b of the string such that every
 * string starting with b maps to b too. Returns undefined when the string is too short to decide
 * (a prefix spanning several buckets, or a key with too few segments: such keys share the
 * catch-all bucket "").
 */
export type BucketOf = (keyOrPrefix: string) => string | undefined;

/** Buckets by the first four "/" (keys look like /registry/<group>/<resource>/[<namespace>/]<name>). */
export function defaultBucketOf(s: string): string | undefined {
  return bucketAtSlash(s, 4);
}

/** The bucket ending at the n-th "/" of s, or undefined when s has fewer. */
export function bucketAtSlash(s: string, n: number): string | undefined {
  let idx = -1;
  for (let i = 0; i < n; i++) {
    idx = s.indexOf("/", idx + 1);
    if (idx < 0) return undefined;
  }
  return s.slice(0, idx + 1);
}

/** Keys compare as strings, as everywhere in storage (they are ASCII). */
const compareKeys = (a: string, b: string): number => simpleComparator(a, b);

class Bucket {
  readonly items = new Map<string, KeyValue>();
  /**
   * The keys of items, in order: a B+ tree, so that adding or removing a key costs O(log n) also when a
   * namespace holds a hundred thousand objects (a sorted array moved every later key on each insert).
   */
  keys = new BTree<string, undefined>(undefined, compareKeys);
}

export class BucketStore {
  private buckets = new Map<string, Bucket>();

  constructor(private readonly bucketOf: BucketOf) {}

  get size(): number {
    let n = 0;
    for (const b of this.buckets.values()) n += b.items.size;
    return n;
  }

  bucketName(key: string): string {
    return this.bucketOf(key) ?? "";
  }

  reset(items: KeyValue[]): void {
    this.buckets = new Map();
    for (const kv of items) this.bucket(kv.key).items.set(kv.key, kv);
    for (const b of this.buckets.values()) b.keys = new BTree<string, undefined>([...b.items.keys()].map((k): [string, undefined] => [k, undefined]), compareKeys);
  }

  get(key: string): KeyValue | undefined {
    return this.buckets.get(this.bucketName(key))?.items.get(key);
  }

  put(kv: KeyValue): void {
    const b = this.bucket(kv.key);
    if (!b.items.has(kv.key)) b.keys.set(kv.key, undefined);
    b.items.set(kv.key, kv);
  }

  remove(key: string): void {
    const name = this.bucketName(key);
    const b = this.buckets.get(name);
    if (!b || !b.items.delete(key)) return;
    b.keys.delete(key);
    if (b.items.size === 0) this.buckets.delete(name);
  }

  /** Keys under prefix (a normalized directory prefix) from startKey on, sorted; more if limit cut it. */
  list(prefix: string, startKey: string, limit: number): { items: KeyValue[]; more: boolean } {
    const sources = this.sources(prefix);
    const max = limit > 0 ? limit + 1 : Infinity;
    let items: KeyValue[] = [];
    for (const b of sources) {
      const take = sources.length === 1 ? max : Infinity;
      for (const key of b.keys.keys(startKey)) {
        if (items.length >= take || !key.startsWith(prefix)) break;
        items.push(b.items.get(key) as KeyValue);
      }
    }
    if (sources.length > 1) {
      items.sort((x, y) => (x.key < y.key ? -1 : x.key > y.key ? 1 : 0));
      if (items.length > max) items = items.slice(0, max);
    }
    const more = limit > 0 && items.length > limit;
    if (more) items.length = limit;
    return { items, more };
  }

  /** The buckets that can hold keys under prefix. */
  private sources(prefix: string): Bucket[] {
    const name = this.bucketOf(prefix);
    if (name !== undefined) {
      const b = this.buckets.get(name);
      return b ? [b] : [];
    }
    const out: Bucket[] = [];
    for (const [n, b] of this.buckets) if (n === "" || n.startsWith(prefix)) out.push(b);
    return out;
  }

  private bucket(key: string): Bucket {
    const name = this.bucketName(key);
    let b = this.buckets.get(name);
    if (!b) {
      b = new Bucket();
      this.buckets.set(name, b);
    }
    return b;
  }
}
