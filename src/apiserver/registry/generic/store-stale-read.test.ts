// An update starts from the watch cache as it is (a read that may be stale) and must never decide
// anything on a stale copy: a resourceVersion that does not match, a missing object or "nothing to
// change" are decided again on a consistent read, and the write's compare-and-swap catches the rest.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { GetOptions, KeyValue, Storage } from "../../storage/interface.ts";
import { SQLiteStorage } from "../../storage/sqlite/sqlite.ts";
import { objectKey } from "./codec.ts";
import { gadgetDefinition, newTestStore, widget, widgetDefinition } from "./testing/fixtures.ts";

/** Storage whose stale reads (allowStale) of a frozen key answer the version it held when frozen; counts reads by kind. */
function staleCache(inner: Storage) {
  const frozen = new Map<string, KeyValue | undefined>();
  const reads = { stale: 0, consistent: 0 };
  const storage = new Proxy(inner, {
    get(target, prop, receiver) {
      if (prop === "get")
        return async (key: string, options?: GetOptions) => {
          if (options?.allowStale) reads.stale++;
          else reads.consistent++;
          return options?.allowStale && frozen.has(key) ? frozen.get(key) : target.get(key);
        };
      const v = Reflect.get(target, prop, receiver) as unknown;
      return typeof v === "function" ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
  return { storage, reads, freeze: async (key: string) => void frozen.set(key, await inner.get(key)) };
}

describe("GenericStore: updates from a possibly stale cache", () => {
  it("an update of a fresh cache reads once, without waiting for a consistent read", async () => {
    const cache = staleCache(new SQLiteStorage({ path: ":memory:" }));
    const t = await newTestStore(widgetDefinition(), { storage: cache.storage });
    const w = await t.store.create(t.ctx("ns1"), widget("w1", { replicas: 1 }));
    cache.reads.stale = cache.reads.consistent = 0;
    await t.store.update(t.ctx("ns1"), "w1", { ...w.object, spec: { replicas: 2 } });
    assert.deepEqual(cache.reads, { stale: 1, consistent: 0 });
  });

  it("a PUT with the current resourceVersion succeeds though the cache still shows an older one", async () => {
    const cache = staleCache(new SQLiteStorage({ path: ":memory:" }));
    const t = await newTestStore(widgetDefinition(), { storage: cache.storage });
    await t.store.create(t.ctx("ns1"), widget("w1", { replicas: 1 }));
    await cache.freeze(objectKey(widgetDefinition(), "ns1", "w1"));
    const current = await t.store.patch(t.ctx("ns1"), "w1", "merge", { spec: { replicas: 2 } });
    const put = await t.store.update(t.ctx("ns1"), "w1", { ...current.object, spec: { replicas: 3 } });
    assert.equal((put.object.spec as { replicas: number }).replicas, 3);
    assert.ok(cache.reads.consistent > 0, "the mismatch was decided on a consistent read");
  });

  it("an unconditional PUT equal to the stale copy still writes over the changed object", async () => {
    const cache = staleCache(new SQLiteStorage({ path: ":memory:" }));
    const t = await newTestStore(gadgetDefinition(), { storage: cache.storage });
    const gadget = (v: string) => ({ apiVersion: "v1", kind: "Gadget", metadata: { name: "g1" }, data: { v } });
    await t.store.create(t.ctx(""), gadget("a"));
    await cache.freeze(objectKey(gadgetDefinition(), "", "g1"));
    await t.store.update(t.ctx(""), "g1", gadget("b"));
    await t.store.update(t.ctx(""), "g1", gadget("a"));
    assert.deepEqual((await t.store.get(t.ctx(""), "g1")).data, { v: "a" }, "it wrote");
  });

  it("an object the stale cache does not have yet is updated, not reported missing", async () => {
    const cache = staleCache(new SQLiteStorage({ path: ":memory:" }));
    const t = await newTestStore(widgetDefinition(), { storage: cache.storage });
    await cache.freeze(objectKey(widgetDefinition(), "ns1", "w1"));
    const w = await t.store.create(t.ctx("ns1"), widget("w1", { replicas: 1 }));
    const put = await t.store.update(t.ctx("ns1"), "w1", { ...w.object, spec: { replicas: 4 } });
    assert.equal((put.object.spec as { replicas: number }).replicas, 4);
  });

  it("a dry run reads consistently", async () => {
    const cache = staleCache(new SQLiteStorage({ path: ":memory:" }));
    const t = await newTestStore(widgetDefinition(), { storage: cache.storage });
    const w = await t.store.create(t.ctx("ns1"), widget("w1", { replicas: 1 }));
    cache.reads.stale = cache.reads.consistent = 0;
    await t.store.update(t.ctx("ns1"), "w1", { ...w.object, spec: { replicas: 2 } }, { dryRun: true });
    assert.deepEqual(cache.reads, { stale: 0, consistent: 1 });
  });
});
