import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { gadgetDefinition, widget, widgetDefinition } from "../registry/generic/testing/fixtures.ts";
import { untilAsync } from "../registry/generic/testing/sink.ts";
import { newTestServer } from "../registry/generic/testing/server.ts";
import { DEFAULT_NAMESPACES, ensureDefaultNamespaces, NAMESPACES, NamespaceDeletionController, namespacedStoredResources } from "./namespace-deletion.ts";

const WIDGETS = { group: "demo.io", resource: "widgets" };
const GADGETS = { group: "", resource: "gadgets" };

describe("ensureDefaultNamespaces", () => {
  it("creates the missing default namespaces and leaves existing ones alone", async () => {
    const s = newTestServer([]);
    const existing = await s.client.create(NAMESPACES, { metadata: { name: "default", labels: { keep: "me" } } });
    await ensureDefaultNamespaces(s.client);
    await ensureDefaultNamespaces(s.client);
    const names = (await s.client.list(NAMESPACES, undefined)).items.map((n) => n.metadata.name).sort();
    assert.deepEqual(names, [...DEFAULT_NAMESPACES].sort());
    assert.equal((await s.client.get(NAMESPACES, undefined, "default"))?.metadata.resourceVersion, existing.metadata.resourceVersion);
  });
});

describe("NamespaceDeletionController", () => {
  it("empties a deleted namespace, waits for finalizers, then finalizes it", async () => {
    const s = newTestServer([widgetDefinition(), widgetDefinition({ version: "v2" }), gadgetDefinition()]);
    const errors: unknown[] = [];
    const c = new NamespaceDeletionController({ client: s.client, registry: s.registry, clock: s.clock, recheckMs: 2000, onError: (e) => errors.push(e) });
    await c.start();
    await s.client.create(NAMESPACES, { metadata: { name: "app" } });
    await s.client.create(NAMESPACES, { metadata: { name: "other" } });
    await s.client.create(WIDGETS, widget("plain", {}, { namespace: "app" }));
    await s.client.create(WIDGETS, widget("held", {}, { namespace: "app", finalizers: ["demo.io/hold"] }));
    await s.client.create(WIDGETS, widget("elsewhere", {}, { namespace: "other" }));
    await s.client.create(GADGETS, { metadata: { name: "cluster-wide" } });

    await s.client.delete(NAMESPACES, undefined, "app");
    await untilAsync(async () => (await s.client.get(WIDGETS, "app", "plain")) === undefined, "content deleted");
    await c.idle();
    const ns = await s.client.get(NAMESPACES, undefined, "app");
    assert.equal((ns?.status as { phase?: string }).phase, "Terminating");
    assert.equal(await s.client.get(WIDGETS, "app", "plain"), undefined);
    const held = await s.client.get(WIDGETS, "app", "held");
    assert.ok(held?.metadata.deletionTimestamp, "the object with a finalizer is marked and keeps the namespace");

    // Still waiting: the recheck does not finalize while content remains.
    s.clock.step(2000);
    await c.idle();
    assert.ok(await s.client.get(NAMESPACES, undefined, "app"));

    await s.client.patch(WIDGETS, "app", "held", "merge", { metadata: { finalizers: null } });
    s.clock.step(2000);
    await c.idle();
    assert.equal(await s.client.get(NAMESPACES, undefined, "app"), undefined, "the namespace is gone");
    assert.ok(await s.client.get(WIDGETS, "other", "elsewhere"));
    assert.ok(await s.client.get(GADGETS, undefined, "cluster-wide"));
    assert.deepEqual(errors, []);
    c.stop();
    assert.equal(s.clock.pending(), 0, "stop cancels the rechecks");
  });

  it("processes namespaces that were already being deleted when it started", async () => {
    const s = newTestServer([widgetDefinition()]);
    await s.client.create(NAMESPACES, { metadata: { name: "old" } });
    await s.client.create(WIDGETS, widget("w", {}, { namespace: "old" }));
    await s.client.delete(NAMESPACES, undefined, "old");
    const c = new NamespaceDeletionController({ client: s.client, registry: s.registry, clock: s.clock });
    await c.start();
    await c.idle();
    assert.equal(await s.client.get(NAMESPACES, undefined, "old"), undefined);
    c.stop();
  });

  it("leaves other finalizers of spec.finalizers in place", async () => {
    const s = newTestServer([]);
    const c = new NamespaceDeletionController({ client: s.client, registry: s.registry, clock: s.clock });
    await c.start();
    await s.client.create(NAMESPACES, { metadata: { name: "x" }, spec: { finalizers: ["kubernetes", "example.com/other"] } });
    await s.client.delete(NAMESPACES, undefined, "x");
    const finalizers = async () => ((await s.client.get(NAMESPACES, undefined, "x"))?.spec as { finalizers: string[] }).finalizers;
    await untilAsync(async () => (await finalizers()).length === 1, "kubernetes finalizer removed");
    await c.idle();
    assert.deepEqual(await finalizers(), ["example.com/other"]);
    assert.equal(((await s.client.get(NAMESPACES, undefined, "x"))?.status as { phase: string }).phase, "Terminating");
    c.stop();
  });

  it("lists each namespaced stored resource once", () => {
    const s = newTestServer([widgetDefinition(), widgetDefinition({ version: "v2" }), gadgetDefinition(), { ...widgetDefinition({ plural: "reviews", kind: "Review" }), virtualCreate: async (_c, o) => o }]);
    assert.deepEqual(namespacedStoredResources(s.registry).map((d) => `${d.group}/${d.version}/${d.plural}`), ["demo.io/v1/widgets"]);
  });
});
