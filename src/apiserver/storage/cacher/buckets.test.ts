import assert from "node:assert/strict";
import { test } from "node:test";
import type { KeyValue } from "../interface.ts";
import { BucketStore, defaultBucketOf } from "./buckets.ts";

const kv = (key: string, rev: number): KeyValue => ({ key, value: `{"rev":${rev}}`, createRevision: rev, modRevision: rev, version: 1 }) as KeyValue;

/** A deterministic pseudo-random sequence (xorshift), so a failure can be replayed. */
function rng(seed: number): () => number {
  let x = seed;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 2 ** 32;
  };
}

test("lists stay sorted and complete through random puts and removes, page by page, across namespaces", () => {
  const store = new BucketStore(defaultBucketOf);
  const reference = new Map<string, KeyValue>();
  const next = rng(42);
  const key = () => `/registry/core/configmaps/ns-${Math.floor(next() * 3)}/c-${Math.floor(next() * 2000)}`;
  for (let i = 0; i < 20_000; i++) {
    const k = key();
    if (next() < 0.3) {
      store.remove(k);
      reference.delete(k);
    } else {
      const v = kv(k, i);
      store.put(v);
      reference.set(k, v);
    }
  }
  const sorted = (prefix: string) => [...reference.keys()].filter((k) => k.startsWith(prefix)).sort();
  for (const prefix of ["/registry/core/configmaps/ns-1/", "/registry/core/configmaps/", "/registry/"]) {
    const expected = sorted(prefix);
    assert.deepEqual(store.list(prefix, prefix, 0).items.map((x) => x.key), expected, `all of ${prefix}`);
    // Paging: each page starts after the last key of the one before.
    const paged: string[] = [];
    let start = prefix;
    for (;;) {
      const page = store.list(prefix, start, 137);
      paged.push(...page.items.map((x) => x.key));
      if (!page.more) break;
      start = `${page.items.at(-1)!.key}\x00`;
    }
    assert.deepEqual(paged, expected, `paged ${prefix}`);
  }
  assert.equal(store.size, reference.size);
  for (const [k, v] of reference) assert.equal(store.get(k), v);
});

test("a removed key put again is listed once; reset replaces everything", () => {
  const store = new BucketStore(defaultBucketOf);
  const p = "/registry/core/secrets/a/";
  store.put(kv(`${p}x`, 1));
  store.put(kv(`${p}y`, 2));
  store.remove(`${p}x`);
  store.put(kv(`${p}x`, 3));
  store.put(kv(`${p}x`, 4));
  assert.deepEqual(store.list(p, p, 0).items.map((x) => [x.key, x.modRevision]), [[`${p}x`, 4], [`${p}y`, 2]]);
  store.reset([kv(`${p}z`, 5), kv(`${p}b`, 6)]);
  assert.deepEqual(store.list(p, p, 0).items.map((x) => x.key), [`${p}b`, `${p}z`]);
  assert.deepEqual(store.list(p, `${p}c`, 0).items.map((x) => x.key), [`${p}z`], "from startKey on");
  assert.equal(store.list(p, p, 1).more, true);
});
