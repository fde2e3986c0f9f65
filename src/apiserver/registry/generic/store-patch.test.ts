import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Storage } from "../../storage/interface.ts";
import { SQLiteStorage } from "../../storage/sqlite/sqlite.ts";
import { rejects } from "./testing/assert.ts";
import { gadgetDefinition, newTestStore, widget, widgetDefinition } from "./testing/fixtures.ts";

/** A storage whose next update first runs `hook` (another writer racing us). */
function racingStorage(): { storage: Storage; race(hook: () => Promise<void>): void } {
  const inner = new SQLiteStorage({ path: ":memory:" });
  let pending: (() => Promise<void>) | undefined;
  const storage = new Proxy(inner, {
    get(target, prop, receiver) {
      if (prop === "update") {
        return async (key: string, value: string, rev: number) => {
          const hook = pending;
          pending = undefined;
          if (hook) await hook();
          return target.update(key, value, rev);
        };
      }
      const v: unknown = Reflect.get(target, prop, receiver);
      return typeof v === "function" ? v.bind(target) : v;
    },
  });
  return { storage, race: (hook) => (pending = hook) };
}

describe("GenericStore.patch", () => {
  it("applies merge and JSON patches", async () => {
    const t = await newTestStore(widgetDefinition());
    await t.store.create(t.ctx("ns1"), widget("w1", { replicas: 1, color: "red" }, { labels: { a: "1" } }));
    const merged = (await t.store.patch(t.ctx("ns1"), "w1", "merge", { metadata: { labels: { b: "2", a: null } }, spec: { replicas: 2 } })).object;
    assert.deepEqual(merged.metadata.labels, { b: "2" });
    assert.deepEqual(merged.spec, { replicas: 2, color: "red", size: "M" });
    assert.equal(merged.metadata.generation, 2);
    const jp = (await t.store.patch(t.ctx("ns1"), "w1", "json", [{ op: "replace", path: "/spec/color", value: "blue" }, { op: "remove", path: "/spec/replicas" }])).object;
    assert.deepEqual(jp.spec, { color: "blue", size: "M" });
  });

  it("applies strategic merge patches to kinds that support them (lists merged by key)", async () => {
    const t = await newTestStore(gadgetDefinition());
    await t.store.create(t.ctx(), { metadata: { name: "g" }, spec: { ports: [{ name: "a", port: 1 }, { name: "b", port: 2 }] } });
    const { object } = await t.store.patch(t.ctx(), "g", "strategic", { spec: { ports: [{ name: "b", port: 20 }, { name: "c", port: 3 }] } });
    assert.deepEqual((object.spec as { ports: unknown[] }).ports, [
      { name: "a", port: 1 },
      { name: "b", port: 20 },
      { name: "c", port: 3 },
    ]);
  });

  it("answers 415 for strategic merge patch on kinds without it", async () => {
    const t = await newTestStore(widgetDefinition());
    await t.store.create(t.ctx("ns1"), widget("w1"));
    await rejects(
      t.store.patch(t.ctx("ns1"), "w1", "strategic", { spec: {} }),
      415,
      "UnsupportedMediaType",
      /accepted media types include: application\/json-patch\+json, application\/merge-patch\+json, application\/apply-patch\+yaml/,
    );
  });

  it("answers 404 for a missing object", async () => {
    const t = await newTestStore(widgetDefinition());
    await rejects(t.store.patch(t.ctx("ns1"), "nope", "merge", { spec: {} }), 404, "NotFound");
  });

  it("is unconditional unless the patch sets metadata.resourceVersion", async () => {
    const t = await newTestStore(widgetDefinition());
    const created = (await t.store.create(t.ctx("ns1"), widget("w1", { replicas: 1 }))).object;
    await t.store.patch(t.ctx("ns1"), "w1", "merge", { spec: { replicas: 2 } });
    await rejects(
      t.store.patch(t.ctx("ns1"), "w1", "merge", { metadata: { resourceVersion: created.metadata.resourceVersion }, spec: { replicas: 3 } }),
      409,
      "Conflict",
    );
    const cur = await t.store.get(t.ctx("ns1"), "w1");
    const ok = await t.store.patch(t.ctx("ns1"), "w1", "merge", { metadata: { resourceVersion: cur.metadata.resourceVersion }, spec: { replicas: 4 } });
    assert.equal((ok.object.spec as { replicas: number }).replicas, 4);
    // Removing the RV in the patch does not turn a CRD patch into a rejected unconditional update.
    const rm = await t.store.patch(t.ctx("ns1"), "w1", "merge", { metadata: { resourceVersion: null }, spec: { replicas: 5 } });
    assert.equal((rm.object.spec as { replicas: number }).replicas, 5);
  });

  it("re-applies the patch to the fresh object after a storage conflict", async () => {
    const r = racingStorage();
    const t = await newTestStore(widgetDefinition(), { storage: r.storage });
    await t.store.create(t.ctx("ns1"), widget("w1", { replicas: 1 }, { labels: { a: "1" } }));
    r.race(async () => {
      await t.store.patch(t.ctx("ns1"), "w1", "merge", { metadata: { labels: { other: "writer" } } });
    });
    const { object } = await t.store.patch(t.ctx("ns1"), "w1", "merge", { spec: { replicas: 7 } });
    assert.deepEqual(object.metadata.labels, { a: "1", other: "writer" }, "the concurrent change survives");
    assert.equal((object.spec as { replicas: number }).replicas, 7);
  });

  it("a conditional update that loses a race gets 409", async () => {
    const r = racingStorage();
    const t = await newTestStore(gadgetDefinition(), { storage: r.storage });
    const created = (await t.store.create(t.ctx(), { metadata: { name: "g" }, data: { a: "1" } })).object;
    r.race(async () => {
      await t.store.patch(t.ctx(), "g", "merge", { data: { b: "2" } });
    });
    await rejects(t.store.update(t.ctx(), "g", { ...structuredClone(created), data: { a: "3" } }), 409, "Conflict");
    r.race(async () => {
      await t.store.patch(t.ctx(), "g", "merge", { data: { c: "3" } });
    });
    const unconditional = await t.store.update(t.ctx(), "g", { metadata: { name: "g" }, data: { z: "9" } });
    assert.deepEqual(unconditional.object.data, { z: "9" });
  });

  it("turns patch results that do not decode or validate into 400/422, never 500", async () => {
    const t = await newTestStore(widgetDefinition());
    await t.store.create(t.ctx("ns1"), widget("w1", { replicas: 1 }));
    await rejects(t.store.patch(t.ctx("ns1"), "w1", "json", [{ op: "replace", path: "/metadata", value: "x" }]), 400, "BadRequest");
    await rejects(t.store.patch(t.ctx("ns1"), "w1", "merge", "not an object"), 400, "BadRequest");
    await rejects(t.store.patch(t.ctx("ns1"), "w1", "merge", { spec: { replicas: "many" } }), 422, "Invalid", /spec\.replicas/);
    await rejects(t.store.patch(t.ctx("ns1"), "w1", "json", [{ op: "test", path: "/spec/replicas", value: 2 }]), 422, "Invalid");
    await rejects(t.store.patch(t.ctx("ns1"), "w1", "json", { op: "add" }), 400, "BadRequest");
    await rejects(t.store.patch(t.ctx("ns1"), "w1", "merge", { metadata: { name: "renamed" } }), 400, "BadRequest", /does not match the name on the URL/);
    await rejects(t.store.patch(t.ctx("ns1"), "w1", "merge", { spec: { bogus: 1 } }, { fieldValidation: "Strict" }), 400, "BadRequest", 'strict decoding error: unknown field "spec.bogus"');
  });

  it("patches the status subresource without touching spec", async () => {
    const t = await newTestStore(widgetDefinition());
    await t.store.create(t.ctx("ns1"), widget("w1", { replicas: 1 }));
    const { object } = await t.store.patch(t.ctx("ns1"), "w1", "merge", { spec: { replicas: 9 }, status: { ready: true } }, {}, "status");
    assert.deepEqual(object.status, { ready: true });
    assert.equal((object.spec as { replicas: number }).replicas, 1);
    assert.equal(object.metadata.generation, 1);
  });
});
