import assert from "node:assert/strict";
import { afterEach, beforeEach, describe, it } from "node:test";
import type { KubeObject, OwnerReference } from "../../../apis/meta/v1/types.ts";
import { gadgetDefinition, widget, widgetDefinition } from "../../registry/generic/testing/fixtures.ts";
import { untilAsync } from "../../registry/generic/testing/sink.ts";
import { newTestServer, type TestServer } from "../../registry/generic/testing/server.ts";
import { newForbiddenMessage } from "../../../apimachinery/errors.ts";
import { NamespaceLifecycle } from "../../admission/namespace-lifecycle.ts";
import type { AdmissionPlugin } from "../../admission/types.ts";
import { NAMESPACES } from "../namespace-deletion.ts";
import { GarbageCollector } from "./garbagecollector.ts";

const WIDGETS = { group: "demo.io", resource: "widgets" };
const GADGETS = { group: "", resource: "gadgets" };
const ns = "app";

function ref(obj: KubeObject, block = false): OwnerReference {
  const r: OwnerReference = { apiVersion: obj.apiVersion!, kind: obj.kind!, name: obj.metadata.name!, uid: obj.metadata.uid! };
  if (block) r.blockOwnerDeletion = true;
  return r;
}

describe("GarbageCollector", () => {
  let s: TestServer;
  let gc: GarbageCollector;
  let errors: unknown[];
  const getW = (name: string) => s.client.get(WIDGETS, ns, name);
  const gone = (name: string) => untilAsync(async () => (await getW(name)) === undefined, `${name} deleted`);
  const child = (name: string, owners: OwnerReference[], meta: Record<string, unknown> = {}) =>
    s.client.create(WIDGETS, widget(name, {}, { namespace: ns, ownerReferences: owners, ...meta }));

  beforeEach(async () => {
    s = newTestServer([widgetDefinition(), gadgetDefinition()]);
    await s.client.create(NAMESPACES, { metadata: { name: ns } });
    errors = [];
    gc = new GarbageCollector({ client: s.client, registry: s.registry, clock: s.clock, onError: (e) => errors.push(e) });
    await gc.start();
  });
  afterEach(() => {
    gc.stop();
  });

  it("Background: a chain of dependents goes after its cluster-scoped owner, the owner at once", async () => {
    const owner = await s.client.create(GADGETS, { apiVersion: "v1", kind: "Gadget", metadata: { name: "root" } });
    const mid = await child("mid", [ref(owner)]);
    await child("leaf", [ref(mid)]);
    const bystander = await child("bystander", []);
    await s.client.delete(GADGETS, undefined, "root", { propagationPolicy: "Background" });
    assert.equal(await s.client.get(GADGETS, undefined, "root"), undefined, "the owner goes at once");
    await gone("mid");
    await gone("leaf");
    await gc.idle();
    assert.equal((await getW("bystander"))?.metadata.uid, bystander.metadata.uid);
    assert.deepEqual(errors, []);
  });

  it("Foreground: the owner waits with foregroundDeletion until its blocking dependents are gone", async () => {
    const owner = await s.client.create(WIDGETS, widget("owner", {}, { namespace: ns }));
    const held = await child("held", [ref(owner, true)], { finalizers: ["demo.io/hold"] });
    await child("grandchild", [ref(held, true)]);
    await child("loose", [ref(owner)]);
    await s.client.delete(WIDGETS, ns, "owner", { propagationPolicy: "Foreground" });
    await gone("loose");
    await gone("grandchild");
    await gc.idle();
    const waiting = await getW("owner");
    assert.ok(waiting?.metadata.deletionTimestamp);
    assert.deepEqual(waiting.metadata.finalizers, ["foregroundDeletion"]);
    const h = await getW("held");
    assert.ok(h?.metadata.deletionTimestamp, "the blocking dependent is being deleted");
    // Deleted in the foreground (it has a dependent), it dropped foregroundDeletion once the grandchild went.
    assert.deepEqual(h.metadata.finalizers, ["demo.io/hold"]);

    await s.client.patch(WIDGETS, ns, "held", "merge", { metadata: { finalizers: null } });
    await gone("held");
    await gone("owner");
    assert.deepEqual(errors, []);
  });

  it("Foreground: dependents that do not block are deleted but not waited for", async () => {
    const owner = await s.client.create(WIDGETS, widget("owner", {}, { namespace: ns }));
    await child("nonblocking", [ref(owner)], { finalizers: ["demo.io/hold"] });
    await s.client.delete(WIDGETS, ns, "owner", { propagationPolicy: "Foreground" });
    await gone("owner");
    assert.ok((await getW("nonblocking"))?.metadata.deletionTimestamp);
  });

  it("Orphan: dependents lose the reference and stay, the owner goes", async () => {
    const owner = await s.client.create(GADGETS, { apiVersion: "v1", kind: "Gadget", metadata: { name: "root" } });
    const other = await s.client.create(GADGETS, { apiVersion: "v1", kind: "Gadget", metadata: { name: "other" } });
    await child("a", [ref(owner, true)]);
    await child("b", [ref(owner), ref(other)]);
    await s.client.delete(GADGETS, undefined, "root", { propagationPolicy: "Orphan" });
    await untilAsync(async () => (await s.client.get(GADGETS, undefined, "root")) === undefined, "owner deleted");
    await gc.idle();
    assert.equal((await getW("a"))?.metadata.ownerReferences, undefined);
    assert.deepEqual((await getW("b"))?.metadata.ownerReferences, [ref(other)]);
    assert.deepEqual(errors, []);
  });

  it("orphanDependents=true is Orphan, and the orphan finalizer of a user decides when no policy is given", async () => {
    const o1 = await s.client.create(WIDGETS, widget("o1", {}, { namespace: ns }));
    await child("d1", [ref(o1)]);
    await s.client.delete(WIDGETS, ns, "o1", { orphanDependents: true });
    const o2 = await s.client.create(WIDGETS, widget("o2", {}, { namespace: ns, finalizers: ["orphan"] }));
    await child("d2", [ref(o2)]);
    await s.client.delete(WIDGETS, ns, "o2");
    await gone("o1");
    await gone("o2");
    await gc.idle();
    assert.ok(await getW("d1"));
    assert.ok(await getW("d2"));
  });

  it("an owner that never existed or has another uid: the dependent is deleted; a solid owner keeps it", async () => {
    const owner = await s.client.create(WIDGETS, widget("real", {}, { namespace: ns }));
    await child("no-owner", [{ apiVersion: "demo.io/v1", kind: "Widget", name: "ghost", uid: "ghost-uid" }]);
    await child("wrong-uid", [{ ...ref(owner), uid: "old-uid" }]);
    await child("mixed", [ref(owner), { apiVersion: "v1", kind: "Gadget", name: "ghost", uid: "ghost-uid" }]);
    await gone("no-owner");
    await gone("wrong-uid");
    await gc.idle();
    assert.deepEqual((await getW("mixed"))?.metadata.ownerReferences, [ref(owner)], "the dangling reference is removed");
    assert.ok(await getW("real"));
  });

  it("unresolvable owners: a kind nobody serves, a namespaced owner of a cluster-scoped object", async () => {
    const owner = await s.client.create(WIDGETS, widget("real", {}, { namespace: ns }));
    await child("unknown-kind", [{ apiVersion: "nowhere.io/v1", kind: "Thing", name: "x", uid: "x" }]);
    await s.client.create(GADGETS, { apiVersion: "v1", kind: "Gadget", metadata: { name: "g", ownerReferences: [ref(owner)] } });
    await s.client.delete(WIDGETS, ns, "real");
    await gone("real");
    await gc.idle();
    s.clock.step(30_000);
    await gc.idle();
    assert.ok(await getW("unknown-kind"));
    assert.ok(await s.client.get(GADGETS, undefined, "g"));
  });

  it("a dependent created before the collector starts, whose owner is gone, is collected at start", async () => {
    gc.stop();
    await child("early", [{ apiVersion: "demo.io/v1", kind: "Widget", name: "ghost", uid: "ghost-uid" }]);
    gc = new GarbageCollector({ client: s.client, registry: s.registry, clock: s.clock });
    await gc.start();
    await gone("early");
  });

  it("a refused delete is retried with a growing delay and reported, until it goes through", async () => {
    gc.stop();
    let refuse = true;
    const guard: AdmissionPlugin = {
      name: "Guard",
      validate: (a) => (a.operation === "DELETE" && a.name === "guarded" && refuse ? Promise.reject(newForbiddenMessage("not yet")) : Promise.resolve()),
    };
    s = newTestServer([widgetDefinition(), gadgetDefinition()], [new NamespaceLifecycle(), guard]);
    await s.client.create(NAMESPACES, { metadata: { name: ns } });
    errors = [];
    gc = new GarbageCollector({ client: s.client, registry: s.registry, clock: s.clock, onError: (e) => errors.push(e) });
    await gc.start();
    await child("guarded", [{ apiVersion: "v1", kind: "Gadget", name: "ghost", uid: "ghost-uid" }]);
    await untilAsync(async () => errors.length === 1, "first refusal reported");
    await gc.idle();
    s.clock.step(1000);
    await untilAsync(async () => errors.length === 2, "retried after 1 s");
    await gc.idle();
    s.clock.step(1000);
    await gc.idle();
    assert.equal(errors.length, 2, "the second retry waits 2 s");
    refuse = false;
    s.clock.step(1000);
    await gone("guarded");
  });

  it("follows resources added to the registry (a new CRD's kind)", async () => {
    const owner = await s.client.create(GADGETS, { apiVersion: "v1", kind: "Gadget", metadata: { name: "root" } });
    s.registry.add(widgetDefinition({ group: "later.io", kind: "Thing", listKind: "ThingList", plural: "things", singular: "thing" }));
    const THINGS = { group: "later.io", resource: "things" };
    await untilAsync(async () => gc.watchedResources().some((d) => d.plural === "things"), "watched");
    await s.client.create(THINGS, { apiVersion: "later.io/v1", kind: "Thing", metadata: { name: "t", namespace: ns, ownerReferences: [ref(owner)] } });
    await gc.idle();
    await s.client.delete(GADGETS, undefined, "root");
    await untilAsync(async () => (await s.client.get(THINGS, ns, "t")) === undefined, "thing collected");
  });
});
