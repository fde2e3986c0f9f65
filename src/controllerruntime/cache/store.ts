// An indexed object store (client-go's thread-safe store with indexers). Objects are keyed by
// "namespace/name"; each indexer maps an object to index values, and byIndex finds objects by
// value without scanning. Stored objects are shared: callers must not mutate them.
import type { KubeObject } from "../../apis/meta/v1/types.ts";
import { keyOf, keyString } from "../../client/resource.ts";

export type IndexFunc<T> = (obj: T) => string[];

export const namespaceIndex = "namespace";

export function objectKey(obj: KubeObject): string {
  return keyString(keyOf(obj));
}

/** Index values of a dotted field path such as "spec.seedName"; strings and numbers only. */
export function fieldIndexFunc<T extends KubeObject>(path: string): IndexFunc<T> {
  const parts = path.split(".");
  return (obj) => {
    let v: unknown = obj;
    for (const p of parts) {
      if (typeof v !== "object" || v === null) return [];
      v = (v as Record<string, unknown>)[p];
    }
    if (typeof v === "string" && v !== "") return [v];
    if (typeof v === "number") return [String(v)];
    return [];
  };
}

export class Store<T extends KubeObject> {
  private readonly items = new Map<string, T>();
  private readonly indexers = new Map<string, IndexFunc<T>>();
  private readonly indices = new Map<string, Map<string, Set<string>>>();

  constructor() {
    this.addIndexer(namespaceIndex, (o) => [o.metadata.namespace ?? ""]);
  }

  /** Adds an indexer and indexes the objects already stored. Re-adding a name is an error. */
  addIndexer(name: string, fn: IndexFunc<T>): void {
    if (this.indexers.has(name)) throw new Error(`indexer ${name} already exists`);
    this.indexers.set(name, fn);
    const index = new Map<string, Set<string>>();
    this.indices.set(name, index);
    for (const [key, obj] of this.items) this.indexOne(index, fn, key, obj);
  }

  hasIndexer(name: string): boolean {
    return this.indexers.has(name);
  }

  get(key: string): T | undefined {
    return this.items.get(key);
  }

  has(key: string): boolean {
    return this.items.has(key);
  }

  size(): number {
    return this.items.size;
  }

  keys(): IterableIterator<string> {
    return this.items.keys();
  }

  list(): T[] {
    return [...this.items.values()];
  }

  /** Objects whose index `name` contains `value`. */
  byIndex(name: string, value: string): T[] {
    const index = this.indices.get(name);
    if (!index) throw new Error(`no indexer ${name}`);
    const keys = index.get(value);
    if (!keys) return [];
    const out: T[] = [];
    for (const k of keys) out.push(this.items.get(k)!);
    return out;
  }

  /** Stores obj under key; returns the object it replaced. */
  set(key: string, obj: T): T | undefined {
    const old = this.items.get(key);
    if (old) this.unindex(key, old);
    this.items.set(key, obj);
    for (const [name, fn] of this.indexers) this.indexOne(this.indices.get(name)!, fn, key, obj);
    return old;
  }

  delete(key: string): T | undefined {
    const old = this.items.get(key);
    if (!old) return undefined;
    this.unindex(key, old);
    this.items.delete(key);
    return old;
  }

  private indexOne(index: Map<string, Set<string>>, fn: IndexFunc<T>, key: string, obj: T): void {
    for (const v of fn(obj)) {
      let keys = index.get(v);
      if (!keys) index.set(v, (keys = new Set()));
      keys.add(key);
    }
  }

  private unindex(key: string, obj: T): void {
    for (const [name, fn] of this.indexers) {
      const index = this.indices.get(name)!;
      for (const v of fn(obj)) {
        const keys = index.get(v);
        if (!keys) continue;
        keys.delete(key);
        if (keys.size === 0) index.delete(v);
      }
    }
  }
}
