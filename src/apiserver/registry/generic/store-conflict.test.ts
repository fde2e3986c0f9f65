// A write that loses a compare-and-swap retries from the version the storage reported in its Conflict,
// not from a fresh read: a read may not show that version yet (reads show durable commits, through the
// watch cache), and retrying from it would lose again at once until the loop gives up with a 409.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { KeyValue, Storage } from "../../storage/interface.ts";
import { objectKey } from "./codec.ts";
import { SQLiteStorage } from "../../storage/sqlite/sqlite.ts";
import { newTestStore, widget, widgetDefinition } from "./testing/fixtures.ts";

/** Storage whose get of one key keeps answering the version it held when frozen (a lagging read). */
function laggingReads(inner: Storage): { storage: Storage; freeze: (key: string) => Promise<void> } {
  const frozen = new Map<string, KeyValue | undefined>();
  const storage = new Proxy(inner, {
    get(target, prop, receiver) {
      if (prop === "get") return async (key: string) => (frozen.has(key) ? frozen.get(key) : target.get(key));
      const v = Reflect.get(target, prop, receiver) as unknown;
      return typeof v === "function" ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
  return { storage, freeze: async (key) => void frozen.set(key, await inner.get(key)) };
}

describe("GenericStore: retries after a lost compare-and-swap", () => {
  it("an unconditional patch, an update's status patch and a delete succeed while reads lag behind writes", async () => {
    const lag = laggingReads(new SQLiteStorage({ path: ":memory:" }));
    const t = await newTestStore(widgetDefinition(), { storage: lag.storage });
    await t.store.create(t.ctx("ns1"), widget("w1", { replicas: 1 }));
    const key = objectKey(widgetDefinition(), "ns1", "w1");
    await lag.freeze(key);
    // Another writer changes the object; the frozen read no longer shows the stored version.
    await t.store.patch(t.ctx("ns1"), "w1", "merge", { spec: { replicas: 2 } });
    const patched = await t.store.patch(t.ctx("ns1"), "w1", "merge", { metadata: { labels: { a: "b" } } });
    assert.equal((patched.object.spec as { replicas: number }).replicas, 2, "the retry started from the reported version");
    assert.equal(patched.object.metadata.labels?.a, "b");
    const status = await t.store.patch(t.ctx("ns1"), "w1", "merge", { status: { ready: true } }, {}, "status");
    assert.deepEqual(status.object.status, { ready: true });
    const gone = await t.store.delete(t.ctx("ns1"), "w1");
    assert.equal(gone.deleted, true);
  });
});
