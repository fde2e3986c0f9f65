import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { KubeObject, ManagedFieldsEntry } from "../../../apis/meta/v1/types.ts";
import { rejects } from "./testing/assert.ts";
import { gadgetDefinition, newTestStore, widget, widgetDefinition } from "./testing/fixtures.ts";

const T0 = "2026-01-01T12:00:00Z";

function entries(obj: KubeObject): Array<Omit<ManagedFieldsEntry, "fieldsV1"> & { fields: unknown }> {
  return (obj.metadata.managedFields ?? []).map(({ fieldsV1, ...e }) => ({ ...e, fields: fieldsV1 }));
}

const applied = (spec: Record<string, unknown>, meta: Record<string, unknown> = {}): KubeObject => ({ ...widget("w1", spec, meta) });

describe("GenericStore server-side apply and managedFields", () => {
  it("create, update and patch record Update entries; fields changed by another manager move to it", async () => {
    const t = await newTestStore(widgetDefinition());
    const created = (await t.store.create(t.ctx("ns1"), widget("w1", { replicas: 1 }, { labels: { a: "1" } }), { fieldManager: "creator" })).object;
    assert.deepEqual(entries(created), [
      {
        manager: "creator",
        operation: "Update",
        apiVersion: "demo.io/v1",
        time: T0,
        fieldsType: "FieldsV1",
        fields: { "f:metadata": { "f:labels": { ".": {}, "f:a": {} } }, "f:spec": { ".": {}, "f:replicas": {}, "f:size": {} } },
      },
    ]);
    t.clock.step(5000);
    const patched = (await t.store.patch(t.ctx("ns1"), "w1", "merge", { spec: { replicas: 2, color: "red" } }, { fieldManager: "patcher" })).object;
    assert.deepEqual(
      entries(patched).map((e) => [e.manager, e.time, e.fields]),
      [
        ["creator", T0, { "f:metadata": { "f:labels": { ".": {}, "f:a": {} } }, "f:spec": { ".": {}, "f:size": {} } }],
        ["patcher", "2026-01-01T12:00:05Z", { "f:spec": { "f:color": {}, "f:replicas": {} } }],
      ],
    );
  });

  it("a write that changes nothing keeps the entries and their times (no write at all)", async () => {
    const t = await newTestStore(gadgetDefinition());
    const created = (await t.store.create(t.ctx(), { metadata: { name: "g" }, data: { a: "1" } }, { fieldManager: "m" })).object;
    t.clock.step(60_000);
    const again = (await t.store.update(t.ctx(), "g", { metadata: { name: "g" }, data: { a: "1" } }, { fieldManager: "m" })).object;
    assert.equal(again.metadata.resourceVersion, created.metadata.resourceVersion);
    assert.deepEqual(again.metadata.managedFields, created.metadata.managedFields);
  });

  it("apply creates the object (created, one Apply entry) and a repeated apply is a no-op", async () => {
    const t = await newTestStore(widgetDefinition());
    const first = await t.store.patch(t.ctx("ns1"), "w1", "apply", applied({ replicas: 1 }), { fieldManager: "kubectl" });
    assert.equal(first.created, true);
    assert.deepEqual(entries(first.object), [
      { manager: "kubectl", operation: "Apply", apiVersion: "demo.io/v1", time: T0, fieldsType: "FieldsV1", fields: { "f:spec": { "f:replicas": {} } } },
    ]);
    assert.equal((first.object.spec as { size: string }).size, "M", "defaults apply to the result");
    t.clock.step(5000);
    const second = await t.store.patch(t.ctx("ns1"), "w1", "apply", applied({ replicas: 1 }), { fieldManager: "kubectl" });
    assert.equal(second.created, undefined);
    assert.equal(second.object.metadata.resourceVersion, first.object.metadata.resourceVersion);
    assert.equal(second.object.metadata.managedFields?.[0]?.time, T0);
  });

  it("conflicts with another manager are a 409 naming manager and field; force takes the field", async () => {
    const t = await newTestStore(widgetDefinition());
    await t.store.patch(t.ctx("ns1"), "w1", "apply", applied({ replicas: 1, color: "red" }), { fieldManager: "kubectl" });
    await t.store.patch(t.ctx("ns1"), "w1", "merge", { spec: { replicas: 3 } }, { fieldManager: "kubectl-edit" });
    const err = await rejects(
      t.store.patch(t.ctx("ns1"), "w1", "apply", applied({ replicas: 5, color: "blue" }), { fieldManager: "other" }),
      409,
      "Conflict",
      'Apply failed with 2 conflicts: conflicts with "kubectl":\n- .spec.color\nconflicts with "kubectl-edit" using demo.io/v1:\n- .spec.replicas',
    );
    assert.deepEqual(err.details?.causes, [
      { reason: "FieldManagerConflict", message: 'conflict with "kubectl"', field: ".spec.color" },
      { reason: "FieldManagerConflict", message: 'conflict with "kubectl-edit" using demo.io/v1', field: ".spec.replicas" },
    ]);
    await rejects(
      t.store.patch(t.ctx("ns1"), "w1", "apply", applied({ replicas: 5 }), { fieldManager: "other" }),
      409,
      "Conflict",
      'Apply failed with 1 conflict: conflict with "kubectl-edit" using demo.io/v1: .spec.replicas',
    );
    const forced = (await t.store.patch(t.ctx("ns1"), "w1", "apply", applied({ replicas: 5 }), { fieldManager: "other", force: true })).object;
    assert.equal((forced.spec as { replicas: number }).replicas, 5);
    assert.deepEqual(
      entries(forced).map((e) => [e.manager, e.operation, e.fields]),
      [
        ["kubectl", "Apply", { "f:spec": { "f:color": {} } }],
        ["other", "Apply", { "f:spec": { "f:replicas": {} } }],
      ],
    );
  });

  it("fields a manager stops applying are removed; status in a main-resource apply is neither owned nor stored", async () => {
    const t = await newTestStore(widgetDefinition());
    await t.store.patch(t.ctx("ns1"), "w1", "apply", applied({ replicas: 1, color: "red" }, { labels: { a: "1", b: "2" } }), { fieldManager: "a" });
    const { object } = await t.store.patch(t.ctx("ns1"), "w1", "apply", { ...applied({ replicas: 1 }, { labels: { b: "2" } }), status: { phase: "X" } }, { fieldManager: "a" });
    assert.deepEqual(object.spec, { replicas: 1, size: "M" });
    assert.deepEqual(object.metadata.labels, { b: "2" });
    assert.equal(object.status, undefined);
    assert.deepEqual(entries(object)[0]?.fields, { "f:metadata": { "f:labels": { "f:b": {} } }, "f:spec": { "f:replicas": {} } });
  });

  it("the status subresource records its own entry and owns only status", async () => {
    const t = await newTestStore(widgetDefinition());
    await t.store.patch(t.ctx("ns1"), "w1", "apply", applied({ replicas: 1 }), { fieldManager: "a" });
    const { object } = await t.store.patch(t.ctx("ns1"), "w1", "merge", { spec: { replicas: 9 }, status: { phase: "Ready" } }, { fieldManager: "ctl" }, "status");
    assert.deepEqual(object.spec, { replicas: 1, size: "M" });
    const status = entries(object).find((e) => e.manager === "ctl");
    assert.deepEqual(status, { manager: "ctl", operation: "Update", apiVersion: "demo.io/v1", time: T0, fieldsType: "FieldsV1", fields: { "f:status": { ".": {}, "f:phase": {} } }, subresource: "status" });
    await rejects(t.store.patch(t.ctx("ns1"), "nope", "apply", applied({}), { fieldManager: "a" }, "status"), 404, "NotFound");
  });

  it("managedFields sent by a client: valid ones are kept, broken ones replaced by the stored ones, [] resets", async () => {
    const t = await newTestStore(gadgetDefinition());
    const created = (await t.store.create(t.ctx(), { metadata: { name: "g" }, data: { a: "1" } }, { fieldManager: "m" })).object;
    const stored = created.metadata.managedFields;
    const broken = [{ manager: "x", operation: "Bogus", apiVersion: "v1", fieldsType: "FieldsV1", fieldsV1: {} }];
    const withBroken = (await t.store.update(t.ctx(), "g", { ...created, metadata: { ...created.metadata, managedFields: broken }, data: { a: "1", b: "2" } as unknown }, { fieldManager: "m" })).object;
    assert.deepEqual(withBroken.metadata.managedFields?.map((e) => e.manager), ["m"]);
    assert.deepEqual(withBroken.metadata.managedFields?.[0]?.fieldsV1, { "f:data": { ".": {}, "f:a": {}, "f:b": {} } });
    const badKey = [{ ...stored![0]!, fieldsV1: { "x:y": {} } }];
    const withBadKey = (await t.store.update(t.ctx(), "g", { ...withBroken, metadata: { ...withBroken.metadata, managedFields: badKey } }, { fieldManager: "m" })).object;
    assert.deepEqual(withBadKey.metadata.managedFields, withBroken.metadata.managedFields);
    const reset = (await t.store.update(t.ctx(), "g", { ...withBroken, metadata: { ...withBroken.metadata, managedFields: [] } }, { fieldManager: "m" })).object;
    assert.equal(reset.metadata.managedFields, undefined, "reset, and an update that changes no field owns nothing");
  });

  it("refuses configurations of another type, with managedFields, with duplicate or keyless list items, unknown fields when strict", async () => {
    const t = await newTestStore(gadgetDefinition());
    const g = (extra: Record<string, unknown>) => ({ apiVersion: "v1", kind: "Gadget", metadata: { name: "g" }, ...extra });
    await rejects(t.store.patch(t.ctx(), "g", "apply", { ...g({}), kind: "Other" }, { fieldManager: "a" }), 400, "BadRequest", "invalid object type: /v1, Kind=Other");
    await rejects(t.store.patch(t.ctx(), "g", "apply", { ...g({}), apiVersion: undefined }, { fieldManager: "a" }), 400, "BadRequest", "invalid object type: /, Kind=Gadget");
    await rejects(t.store.patch(t.ctx(), "g", "apply", { ...g({}), metadata: { name: "g", managedFields: [] } }, { fieldManager: "a" }), 400, "BadRequest", "metadata.managedFields must be nil");
    await rejects(
      t.store.patch(t.ctx(), "g", "apply", g({ spec: { ports: [{ name: "a", port: 1 }, { name: "a", port: 2 }, { port: 3 }] } }), { fieldManager: "a" }),
      422,
      "Invalid",
      'failed to create typed patch object (/g; /v1, Kind=Gadget): .spec.ports: element 2: associative list with keys has an element that omits key field "name" (and doesn\'t have default value)',
    );
    await rejects(
      t.store.patch(t.ctx(), "g", "apply", g({ spec: { ports: [{ name: "a", port: 1 }, { name: "a", port: 2 }] } }), { fieldManager: "a" }),
      422,
      "Invalid",
      'failed to create typed patch object (/g; /v1, Kind=Gadget): .spec.ports: duplicate entries for key [name="a"]',
    );
    await rejects(t.store.patch(t.ctx(), "g", "apply", g({ spec: { nope: 1 } }), { fieldManager: "a", fieldValidation: "Strict" }), 400, "BadRequest", 'strict decoding error: unknown field "spec.nope"');
    const warned = await t.store.patch(t.ctx(), "g", "apply", g({ spec: { nope: 1 } }), { fieldManager: "a" });
    assert.deepEqual(warned.warnings, ['unknown field "spec.nope"']);
    assert.deepEqual(entries(warned.object)[0]?.fields, { "f:spec": {} }, "the unknown field is pruned: the applier owns an empty spec");
  });

  it("managedFields count towards the kind's size limit", async () => {
    const t = await newTestStore(gadgetDefinition({ maxObjectBytes: 4096 }));
    const created = (await t.store.create(t.ctx(), { metadata: { name: "g" }, data: { a: "1" } }, { fieldManager: "m" })).object;
    const fieldsV1 = { "f:data": Object.fromEntries(Array.from({ length: 400 }, (_, i) => [`f:k${i}`, {}])) };
    const huge = [{ manager: "m", operation: "Update", apiVersion: "v1", fieldsType: "FieldsV1", fieldsV1 }];
    await rejects(t.store.update(t.ctx(), "g", { ...created, metadata: { ...created.metadata, managedFields: huge } }, { fieldManager: "m" }), 413, "RequestEntityTooLarge");
  });

  it("the kind's size limit applies to what apply produces, and dryRun stores nothing", async () => {
    const t = await newTestStore(gadgetDefinition({ maxObjectBytes: 4096 }));
    const g = (data: Record<string, string>) => ({ apiVersion: "v1", kind: "Gadget", metadata: { name: "g" }, data });
    await t.store.patch(t.ctx(), "g", "apply", g({ a: "x".repeat(2500) }), { fieldManager: "a" });
    await rejects(t.store.patch(t.ctx(), "g", "apply", g({ b: "y".repeat(2500) }), { fieldManager: "b" }), 413, "RequestEntityTooLarge");
    const dry = await t.store.patch(t.ctx(), "h", "apply", { ...g({ c: "1" }), metadata: { name: "h" } }, { fieldManager: "a", dryRun: true });
    assert.equal(dry.created, true);
    await rejects(t.store.get(t.ctx(), "h"), 404, "NotFound");
  });
});
