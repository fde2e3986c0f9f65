import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { KubeObject } from "../../../apis/meta/v1/types.ts";
import { objectKey } from "./codec.ts";
import { rejects } from "./testing/assert.ts";
import { gadgetDefinition, newTestStore, widget, widgetDefinition } from "./testing/fixtures.ts";
import { CollectingSink, settle, until } from "./testing/sink.ts";

const copy = (o: KubeObject): KubeObject => structuredClone(o);

describe("GenericStore.update", () => {
  it("requires the stored resourceVersion: 409 Conflict with kube's message otherwise", async () => {
    const t = await newTestStore(widgetDefinition());
    const { object: v1 } = await t.store.create(t.ctx("ns1"), widget("w1", { replicas: 1 }));
    const v2 = (await t.store.update(t.ctx("ns1"), "w1", { ...copy(v1), spec: { replicas: 2 } })).object;
    assert.notEqual(v2.metadata.resourceVersion, v1.metadata.resourceVersion);
    await rejects(
      t.store.update(t.ctx("ns1"), "w1", { ...copy(v1), spec: { replicas: 3 } }),
      409,
      "Conflict",
      'Operation cannot be fulfilled on widgets.demo.io "w1": the object has been modified; please apply your changes to the latest version and try again',
    );
  });

  it("rejects an update without resourceVersion when the strategy forbids unconditional updates (CRDs)", async () => {
    const t = await newTestStore(widgetDefinition());
    await t.store.create(t.ctx("ns1"), widget("w1"));
    await rejects(
      t.store.update(t.ctx("ns1"), "w1", widget("w1", { replicas: 4 })),
      422,
      "Invalid",
      'Widget.demo.io "w1" is invalid: metadata.resourceVersion: Invalid value: 0x0: must be specified for an update',
    );
  });

  it("kinds without generation (tracksGeneration false) never carry one: create, update, delete, old data", async () => {
    const t = await newTestStore(gadgetDefinition({ tracksGeneration: false }));
    const gadget = (data: Record<string, string>, meta: Record<string, unknown> = {}) => ({ apiVersion: "v1", kind: "Gadget", metadata: { name: "g", ...meta }, data });
    const created = (await t.store.create(t.ctx(), gadget({ a: "1" }, { generation: 5 }))).object;
    assert.equal(created.metadata.generation, undefined);
    const updated = (await t.store.update(t.ctx(), "g", gadget({ a: "2" }, { finalizers: ["x.io/y"] }))).object;
    assert.equal(updated.metadata.generation, undefined);
    const deleting = (await t.store.delete(t.ctx(), "g")).object;
    assert.ok(deleting.metadata.deletionTimestamp);
    assert.equal(deleting.metadata.generation, undefined);
    // An object stored with a generation (by an older server) keeps it (it may not decrease), not bumped.
    await t.storage.create(objectKey(gadgetDefinition(), undefined, "old"), JSON.stringify(gadget({ a: "1" }, { name: "old", uid: "u", generation: 3 })));
    assert.equal((await t.store.update(t.ctx(), "old", gadget({ a: "2" }, { name: "old" }))).object.metadata.generation, 3);
  });

  it("allows unconditional updates by default", async () => {
    const t = await newTestStore(gadgetDefinition());
    await t.store.create(t.ctx(), { metadata: { name: "g1" }, data: { a: "1" } });
    const { object } = await t.store.update(t.ctx(), "g1", { metadata: { name: "g1" }, data: { a: "2" } });
    assert.deepEqual(object.data, { a: "2" });
  });

  it("answers 404 for a missing object unless the strategy allows create on update", async () => {
    const t = await newTestStore(gadgetDefinition());
    await rejects(t.store.update(t.ctx(), "nope", { metadata: { name: "nope" } }), 404, "NotFound", 'gadgets "nope" not found');
    const c = await newTestStore(gadgetDefinition({ strategy: { allowCreateOnUpdate: true } }));
    const res = await c.store.update(c.ctx(), "new", { metadata: { name: "new" }, data: { a: "1" } });
    assert.equal(res.created, true);
    assert.equal(res.object.metadata.generation, 1);
    const again = await c.store.update(c.ctx(), "new", { metadata: { name: "new" }, data: { a: "2" } });
    assert.ok(!again.created);
  });

  it("rejects a body whose name differs from the URL", async () => {
    const t = await newTestStore(gadgetDefinition());
    await t.store.create(t.ctx(), { metadata: { name: "g1" } });
    await rejects(t.store.update(t.ctx(), "g1", { metadata: { name: "g2" } }), 400, "BadRequest", "the name of the object (g2) does not match the name on the URL (g1)");
  });

  it("restores immutable metadata and rejects a different uid", async () => {
    const t = await newTestStore(gadgetDefinition());
    const { object: old } = await t.store.create(t.ctx(), { metadata: { name: "g1" }, data: { a: "1" } });
    t.clock.step(60_000);
    const body = copy(old);
    body.metadata.creationTimestamp = "2020-01-01T00:00:00Z";
    body.metadata.generation = 42;
    body.metadata.deletionTimestamp = "2020-01-01T00:00:00Z";
    delete body.metadata.uid;
    body.data = { a: "2" };
    const { object } = await t.store.update(t.ctx(), "g1", body);
    assert.equal(object.metadata.creationTimestamp, old.metadata.creationTimestamp);
    assert.equal(object.metadata.uid, old.metadata.uid);
    assert.equal(object.metadata.deletionTimestamp, undefined);
    assert.equal(object.metadata.generation, 2);
    await rejects(t.store.update(t.ctx(), "g1", { ...copy(object), metadata: { ...object.metadata, uid: "other" } }), 422, "Invalid", /metadata\.uid: Invalid value: "other": field is immutable/);
  });

  it("bumps generation only when something outside metadata (and status, with /status) changes", async () => {
    const t = await newTestStore(widgetDefinition());
    let w = (await t.store.create(t.ctx("ns1"), widget("w1", { replicas: 1 }))).object;
    w = (await t.store.update(t.ctx("ns1"), "w1", { ...copy(w), metadata: { ...w.metadata, labels: { a: "b" }, annotations: { x: "y" } } })).object;
    assert.equal(w.metadata.generation, 1, "labels and annotations do not bump");
    w = (await t.store.update(t.ctx("ns1"), "w1", { ...copy(w), status: { phase: "X" } }, {}, "status")).object;
    assert.equal(w.metadata.generation, 1, "status does not bump");
    w = (await t.store.update(t.ctx("ns1"), "w1", { ...copy(w), spec: { replicas: 2 } })).object;
    assert.equal(w.metadata.generation, 2);
    const g = await newTestStore(gadgetDefinition());
    let o = (await g.store.create(g.ctx(), { metadata: { name: "g" }, data: { a: "1" } })).object;
    o = (await g.store.update(g.ctx(), "g", { ...copy(o), data: { a: "2" } })).object;
    assert.equal(o.metadata.generation, 2, "top-level fields other than spec count too");
  });

  it("main resource keeps the old status; /status changes only status", async () => {
    const t = await newTestStore(widgetDefinition());
    const created = (await t.store.create(t.ctx("ns1"), widget("w1", { replicas: 1 }))).object;
    const s1 = (await t.store.update(t.ctx("ns1"), "w1", { ...copy(created), spec: { replicas: 9 }, metadata: { ...created.metadata, labels: { l: "1" } }, status: { phase: "Ready" } }, {}, "status")).object;
    assert.deepEqual(s1.status, { phase: "Ready" });
    assert.equal((s1.spec as { replicas: number }).replicas, 1, "/status ignores spec");
    assert.equal(s1.metadata.labels, undefined, "/status ignores labels");
    const m1 = (await t.store.update(t.ctx("ns1"), "w1", { ...copy(s1), spec: { replicas: 2 }, status: { phase: "Hacked" } })).object;
    assert.deepEqual(m1.status, { phase: "Ready" }, "main resource ignores status");
    assert.equal((m1.spec as { replicas: number }).replicas, 2);
    await rejects(t.store.update(t.ctx("ns1"), "w1", { ...copy(s1), status: { phase: "Stale" } }, {}, "status"), 409, "Conflict");
  });

  it("answers 404 for /status on a kind without a status subresource", async () => {
    const t = await newTestStore(gadgetDefinition());
    const { object } = await t.store.create(t.ctx(), { metadata: { name: "g" } });
    await rejects(t.store.update(t.ctx(), "g", object, {}, "status"), 404, "NotFound");
  });

  it("does not write a no-op update: same resourceVersion, no watch event", async () => {
    const t = await newTestStore(widgetDefinition());
    const created = (await t.store.create(t.ctx("ns1"), widget("w1", { replicas: 1 }))).object;
    const sink = new CollectingSink();
    const h = await t.store.watch(t.ctx("ns1"), { resourceVersion: created.metadata.resourceVersion! }, sink);
    const body = copy(created);
    body.metadata.labels = {};
    const { object } = await t.store.update(t.ctx("ns1"), "w1", body);
    assert.equal(object.metadata.resourceVersion, created.metadata.resourceVersion);
    const status = await t.store.update(t.ctx("ns1"), "w1", copy(created), {}, "status");
    assert.equal(status.object.metadata.resourceVersion, created.metadata.resourceVersion);
    await settle();
    assert.deepEqual(sink.events, []);
    h.stop();
  });

  it("dryRun update returns the result without storing it", async () => {
    const t = await newTestStore(widgetDefinition());
    const created = (await t.store.create(t.ctx("ns1"), widget("w1", { replicas: 1 }))).object;
    const res = await t.store.update(t.ctx("ns1"), "w1", { ...copy(created), spec: { replicas: 5 } }, { dryRun: true });
    assert.equal((res.object.spec as { replicas: number }).replicas, 5);
    assert.equal(res.object.metadata.generation, 2);
    const stored = await t.store.get(t.ctx("ns1"), "w1");
    assert.deepEqual(stored, created);
  });

  it("returns warnings for unknown fields on update", async () => {
    const t = await newTestStore(gadgetDefinition());
    await t.store.create(t.ctx(), { metadata: { name: "g" } });
    const res = await t.store.update(t.ctx(), "g", { metadata: { name: "g" }, bogus: 1 }, { fieldValidation: "Warn" });
    assert.deepEqual(res.warnings, ['unknown field "bogus"']);
    await rejects(t.store.update(t.ctx(), "g", { metadata: { name: "g" }, bogus: 1 }, { fieldValidation: "Strict" }), 400, "BadRequest", 'strict decoding error: unknown field "bogus"');
  });
});

describe("GenericStore finalizers and delete", () => {
  it("marks an object with finalizers as deleting, then deletes it when the last finalizer goes", async () => {
    const t = await newTestStore(widgetDefinition());
    const created = (await t.store.create(t.ctx("ns1"), widget("w1", {}, { finalizers: ["demo.io/a", "demo.io/b"] }))).object;
    const sink = new CollectingSink();
    const h = await t.store.watch(t.ctx("ns1"), { resourceVersion: created.metadata.resourceVersion! }, sink);
    t.clock.step(10_000);
    const del = await t.store.delete(t.ctx("ns1"), "w1");
    assert.equal(del.deleted, false);
    assert.equal(del.object.metadata.deletionTimestamp, "2026-01-01T12:00:10Z");
    assert.equal(del.object.metadata.deletionGracePeriodSeconds, 0);
    assert.equal(del.object.metadata.generation, 2);

    t.clock.step(10_000);
    const again = await t.store.delete(t.ctx("ns1"), "w1");
    assert.equal(again.deleted, false);
    assert.equal(again.object.metadata.deletionTimestamp, "2026-01-01T12:00:10Z", "deletionTimestamp only moves earlier");
    assert.equal(again.object.metadata.resourceVersion, del.object.metadata.resourceVersion, "a repeated delete writes nothing");

    const cur = copy(again.object);
    await rejects(
      t.store.update(t.ctx("ns1"), "w1", { ...cur, metadata: { ...cur.metadata, finalizers: ["demo.io/a", "demo.io/b", "demo.io/c"] } }),
      422,
      "Invalid",
      /no new finalizers can be added if the object is being deleted/,
    );
    const one = (await t.store.update(t.ctx("ns1"), "w1", { ...cur, metadata: { ...cur.metadata, finalizers: ["demo.io/b"] } })).object;
    assert.deepEqual(one.metadata.finalizers, ["demo.io/b"]);
    const last = await t.store.patch(t.ctx("ns1"), "w1", "merge", { metadata: { finalizers: null } });
    assert.equal(last.object.metadata.finalizers, undefined);
    await rejects(t.store.get(t.ctx("ns1"), "w1"), 404, "NotFound");
    await until(() => sink.events.length === 4, "4 events");
    assert.deepEqual(sink.summary(), ["MODIFIED w1", "MODIFIED w1", "MODIFIED w1", "DELETED w1"]);
    const deleted = sink.events[3]!.object;
    assert.ok(Number(deleted.metadata.resourceVersion) > Number(sink.events[2]!.object.metadata.resourceVersion));
    h.stop();
  });

  it("deletes an object without finalizers and returns its last state", async () => {
    const t = await newTestStore(widgetDefinition());
    const created = (await t.store.create(t.ctx("ns1"), widget("w1"))).object;
    // Background: Foreground would keep it with the foregroundDeletion finalizer (gc-finalizers.test.ts).
    const res = await t.store.delete(t.ctx("ns1"), "w1", { propagationPolicy: "Background" });
    assert.equal(res.deleted, true);
    assert.deepEqual(res.object, created);
    await rejects(t.store.delete(t.ctx("ns1"), "w1"), 404, "NotFound", 'widgets.demo.io "w1" not found');
  });

  it("checks uid and resourceVersion preconditions", async () => {
    const t = await newTestStore(widgetDefinition());
    const created = (await t.store.create(t.ctx("ns1"), widget("w1"))).object;
    await rejects(t.store.delete(t.ctx("ns1"), "w1", { preconditions: { uid: "nope" } }), 409, "Conflict", /Precondition failed: UID in precondition: nope, UID in object meta: /);
    await rejects(t.store.delete(t.ctx("ns1"), "w1", { preconditions: { resourceVersion: "999" } }), 409, "Conflict", /Precondition failed: ResourceVersion in precondition: 999, ResourceVersion in object meta: 1$/);
    const ok = await t.store.delete(t.ctx("ns1"), "w1", { preconditions: { uid: created.metadata.uid!, resourceVersion: created.metadata.resourceVersion! } });
    assert.equal(ok.deleted, true);
  });

  it("dryRun delete changes nothing", async () => {
    const t = await newTestStore(widgetDefinition());
    await t.store.create(t.ctx("ns1"), widget("w1"));
    await t.store.create(t.ctx("ns1"), widget("w2", {}, { finalizers: ["x.io/y"] }));
    assert.equal((await t.store.delete(t.ctx("ns1"), "w1", { dryRun: ["All"] })).deleted, true);
    const marked = await t.store.delete({ ...t.ctx("ns1"), dryRun: true }, "w2");
    assert.ok(marked.object.metadata.deletionTimestamp);
    assert.equal((await t.store.list(t.ctx("ns1"))).items.filter((i) => !i.metadata.deletionTimestamp).length, 2);
  });

  it("deleteCollection deletes the selected objects and marks those with finalizers", async () => {
    const t = await newTestStore(widgetDefinition());
    await t.store.create(t.ctx("ns1"), widget("a", {}, { labels: { app: "x" } }));
    await t.store.create(t.ctx("ns1"), widget("b", {}, { labels: { app: "x" }, finalizers: ["x.io/f"] }));
    await t.store.create(t.ctx("ns1"), widget("c", {}, { labels: { app: "y" } }));
    await t.store.create(t.ctx("ns2"), widget("d", {}, { labels: { app: "x" } }));
    const res = await t.store.deleteCollection(t.ctx("ns1"), { labelSelector: "app=x" });
    assert.equal(res.kind, "WidgetList");
    assert.deepEqual(res.items.map((i) => i.metadata.name), ["a", "b"]);
    const left = (await t.store.list(t.ctx())).items.map((i) => `${i.metadata.namespace}/${i.metadata.name}${i.metadata.deletionTimestamp ? " (deleting)" : ""}`);
    assert.deepEqual(left, ["ns1/b (deleting)", "ns1/c", "ns2/d"]);
  });
});
