import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { eventDefinition } from "../core/event/definition.ts";
import { widget, widgetDefinition } from "./testing/fixtures.ts";
import { gcFinalizersOnDelete } from "./gc-finalizers.ts";
import { newTestServer } from "./testing/server.ts";

const def = widgetDefinition();
const w = (finalizers?: string[]) => widget("w", {}, finalizers ? { finalizers } : {});

describe("gcFinalizersOnDelete", () => {
  it("propagationPolicy and orphanDependents set the finalizers, replacing the other GC finalizer", () => {
    assert.deepEqual(gcFinalizersOnDelete(def, w(), { propagationPolicy: "Foreground" }), ["foregroundDeletion"]);
    assert.deepEqual(gcFinalizersOnDelete(def, w(["a/b"]), { propagationPolicy: "Orphan" }), ["a/b", "orphan"]);
    assert.deepEqual(gcFinalizersOnDelete(def, w(["orphan", "a/b"]), { propagationPolicy: "Foreground" }), ["a/b", "foregroundDeletion"]);
    assert.deepEqual(gcFinalizersOnDelete(def, w(["orphan"]), { propagationPolicy: "Background" }), []);
    assert.deepEqual(gcFinalizersOnDelete(def, w(), { orphanDependents: true }), ["orphan"]);
    assert.deepEqual(gcFinalizersOnDelete(def, w(["foregroundDeletion"]), { orphanDependents: false }), []);
  });

  it("without a policy: the GC finalizer already there, else the kind's default", () => {
    assert.equal(gcFinalizersOnDelete(def, w(), {}), undefined);
    assert.equal(gcFinalizersOnDelete(def, w(["orphan"]), {}), undefined);
    assert.equal(gcFinalizersOnDelete(def, w(["foregroundDeletion"]), {}), undefined);
    assert.equal(gcFinalizersOnDelete(def, w(), { propagationPolicy: "Background" }), undefined);
    const orphaning = widgetDefinition({ strategy: { defaultGarbageCollectionPolicy: "OrphanDependents" } });
    assert.deepEqual(gcFinalizersOnDelete(orphaning, w(), {}), ["orphan"]);
  });

  it("events take no part: no GC finalizer whatever the policy", () => {
    for (const propagationPolicy of ["Foreground", "Orphan"] as const) {
      assert.equal(gcFinalizersOnDelete(eventDefinition, w(), { propagationPolicy }), undefined);
    }
  });
});

describe("delete with a propagation policy", () => {
  const WIDGETS = { group: "demo.io", resource: "widgets" };
  it("Foreground and Orphan keep the object with deletionTimestamp and the finalizer; Background deletes it", async () => {
    const s = newTestServer([def]);
    await s.client.create({ group: "", resource: "namespaces" }, { metadata: { name: "ns" } });
    for (const [name, policy, finalizer] of [["f", "Foreground", "foregroundDeletion"], ["o", "Orphan", "orphan"]] as const) {
      await s.client.create(WIDGETS, widget(name, {}, { namespace: "ns" }));
      await s.client.delete(WIDGETS, "ns", name, { propagationPolicy: policy });
      const obj = await s.client.get(WIDGETS, "ns", name);
      assert.ok(obj?.metadata.deletionTimestamp, name);
      assert.deepEqual(obj.metadata.finalizers, [finalizer]);
      // Deleting again with Background drops the GC finalizer, and with it the object.
      await s.client.delete(WIDGETS, "ns", name, { propagationPolicy: "Background" });
      assert.equal(await s.client.get(WIDGETS, "ns", name), undefined);
    }
    await s.client.create(WIDGETS, widget("b", {}, { namespace: "ns" }));
    await s.client.delete(WIDGETS, "ns", "b", { propagationPolicy: "Background" });
    assert.equal(await s.client.get(WIDGETS, "ns", "b"), undefined);
  });
});
