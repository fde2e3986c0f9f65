import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { KubeObject } from "../../../apis/meta/v1/types.ts";
import { newForbiddenMessage } from "../../../apimachinery/errors.ts";
import { AdmissionChain } from "../../admission/chain.ts";
import type { AdmissionPlugin } from "../../admission/types.ts";
import { gadgetDefinition, newTestStore, widget, widgetDefinition } from "./testing/fixtures.ts";
import { rejects } from "./testing/assert.ts";
import { CollectingSink, settle } from "./testing/sink.ts";


describe("GenericStore.create", () => {
  it("fills the system fields and stores the object", async () => {
    const t = await newTestStore(widgetDefinition());
    const { object, warnings } = await t.store.create(t.ctx("ns1"), widget("w1", { replicas: 1 }, { uid: "client-uid", generation: 7 }));
    assert.deepEqual(warnings, []);
    assert.equal(object.apiVersion, "demo.io/v1");
    assert.equal(object.kind, "Widget");
    assert.equal(object.metadata.namespace, "ns1");
    assert.match(object.metadata.uid!, /^[0-9a-f-]{36}$/);
    assert.notEqual(object.metadata.uid, "client-uid");
    assert.equal(object.metadata.creationTimestamp, "2026-01-01T12:00:00Z");
    assert.equal(object.metadata.generation, 1);
    assert.match(object.metadata.resourceVersion!, /^[1-9][0-9]*$/);
    assert.deepEqual(object.spec, { replicas: 1, size: "M" }, "schema defaults applied");
    const got = await t.store.get(t.ctx("ns1"), "w1");
    assert.deepEqual(got, object);
  });

  it("copies the caller's object unless the caller hands it over (bodyOwned)", async () => {
    const t = await newTestStore(widgetDefinition());
    const body = widget("w1", { replicas: 1 });
    const before = structuredClone(body);
    await t.store.create(t.ctx("ns1"), body);
    assert.deepEqual(body, before);
    const owned = widget("w2", { replicas: 1 });
    const { object } = await t.store.create(t.ctx("ns1"), owned, { bodyOwned: true });
    assert.equal(object, owned, "the handed-over body becomes the created object");
    assert.deepEqual(await t.store.get(t.ctx("ns1"), "w2"), object);
  });

  it("refuses a create that carries metadata.resourceVersion, dry run or not", async () => {
    const t = await newTestStore(widgetDefinition());
    for (const dryRun of [false, true]) {
      await rejects(t.store.create(t.ctx("ns1"), widget("w1", {}, { resourceVersion: "99" }), { dryRun }), 400, "BadRequest", "resourceVersion should not be set on objects to be created");
    }
    assert.equal((await t.store.list(t.ctx("ns1"))).items.length, 0);
  });

  it("drops status on create when the resource has a status subresource, keeps it otherwise", async () => {
    const t = await newTestStore(widgetDefinition());
    const w = await t.store.create(t.ctx("ns1"), { ...widget("w1"), status: { phase: "Ready" } });
    assert.equal(w.object.status, undefined);
    const g = await newTestStore(gadgetDefinition({ hasStatus: false }));
    const obj = await g.store.create(g.ctx(), { apiVersion: "v1", kind: "Gadget", metadata: { name: "g" }, data: { a: "b" } });
    assert.deepEqual(obj.object.data, { a: "b" });
  });

  it("treats null metadata fields as unset and wrongly typed ones as undecodable (400)", async () => {
    const t = await newTestStore(widgetDefinition());
    // kubectl 1.27 sends the zero time as null.
    const nulls: Record<string, unknown> = { creationTimestamp: null, labels: null };
    const { object } = await t.store.create(t.ctx("ns1"), widget("w1", {}, nulls));
    assert.equal(object.metadata.creationTimestamp, "2026-01-01T12:00:00Z");
    const wrong: Record<string, unknown> = { name: true };
    await rejects(t.store.create(t.ctx("ns1"), widget("w2", {}, wrong)), 400, "BadRequest", /metadata\.name in body must be of type string/);
  });

  it("takes the namespace from the URL and rejects a different one", async () => {
    const t = await newTestStore(widgetDefinition());
    await rejects(
      t.store.create(t.ctx("ns1"), widget("w1", {}, { namespace: "other" })),
      400,
      "BadRequest",
      "the namespace of the provided object does not match the namespace sent on the request",
    );
    const ok = await t.store.create(t.ctx("ns1"), widget("w1", {}, { namespace: "ns1" }));
    assert.equal(ok.object.metadata.namespace, "ns1");
  });

  it("clears the namespace of cluster-scoped objects", async () => {
    const t = await newTestStore(gadgetDefinition());
    const { object } = await t.store.create(t.ctx("ns1"), { metadata: { name: "g1", namespace: "ns1" } });
    assert.equal(object.metadata.namespace, undefined);
    assert.equal((await t.store.get(t.ctx(), "g1")).metadata.name, "g1");
  });

  it("rejects an existing name with 409 AlreadyExists", async () => {
    const t = await newTestStore(widgetDefinition());
    await t.store.create(t.ctx("ns1"), widget("w1"));
    await rejects(t.store.create(t.ctx("ns1"), widget("w1")), 409, "AlreadyExists", 'widgets.demo.io "w1" already exists');
  });

  it("generates names and retries up to 8 times on collisions", async () => {
    const names = ["w-aaaaa", "w-aaaaa", "w-aaaaa", "w-bbbbb"];
    let calls = 0;
    const t = await newTestStore(widgetDefinition(), { generateName: () => names[Math.min(calls++, names.length - 1)]! });
    const first = await t.store.create(t.ctx("ns1"), widget("", {}, { generateName: "w-" }));
    assert.equal(first.object.metadata.name, "w-aaaaa");
    const second = await t.store.create(t.ctx("ns1"), widget("", {}, { generateName: "w-" }));
    assert.equal(second.object.metadata.name, "w-bbbbb");
    assert.equal(calls, 4);

    calls = 0;
    const stuck = await newTestStore(widgetDefinition(), { storage: t.storage, clock: t.clock, generateName: () => (calls++, "w-aaaaa") });
    const err = await rejects(stuck.store.create(t.ctx("ns1"), widget("", {}, { generateName: "w-" })), 409, "AlreadyExists", /not able to generate a unique name/);
    assert.equal(calls, 8);
    assert.ok((err.details?.retryAfterSeconds ?? 0) > 0);
  });

  it("uses the real generator by default", async () => {
    const t = await newTestStore(widgetDefinition());
    const { object } = await t.store.create(t.ctx("ns1"), widget("", {}, { generateName: "web-" }));
    assert.match(object.metadata.name!, /^web-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
  });

  it("fieldValidation: Strict rejects every unknown field, Warn warns, Ignore drops silently", async () => {
    const t = await newTestStore(widgetDefinition());
    const body = widget("w1", { replicas: 1, x: 1, y: { z: 2 } });
    body.extra = true;
    await rejects(
      t.store.create(t.ctx("ns1"), body, { fieldValidation: "Strict" }),
      400,
      "BadRequest",
      /^strict decoding error: (unknown field "(extra|spec\.x|spec\.y)"(, )?){3}$/,
    );
    const warned = await t.store.create(t.ctx("ns1"), body, { fieldValidation: "Warn" });
    assert.deepEqual([...warned.warnings].sort(), ['unknown field "extra"', 'unknown field "spec.x"', 'unknown field "spec.y"']);
    assert.deepEqual(warned.object.spec, { replicas: 1, size: "M" });
    assert.equal(warned.object.extra, undefined);
    const ignored = await t.store.create(t.ctx("ns1"), { ...body, metadata: { name: "w2" } }, { fieldValidation: "Ignore" });
    assert.deepEqual(ignored.warnings, []);
    assert.deepEqual(ignored.object.spec, { replicas: 1, size: "M" });
  });

  it("reports ObjectMeta, schema and strategy errors together as 422 Invalid", async () => {
    const t = await newTestStore(widgetDefinition());
    const err = await rejects(
      t.store.create(t.ctx("ns1"), widget("Bad_Name", { replicas: 13, color: "pink" }, { labels: { "a b": "c" } })),
      422,
      "Invalid",
      /^Widget\.demo\.io "Bad_Name" is invalid: \[/,
    );
    const fields = (err.details?.causes ?? []).map((c) => c.field).sort();
    assert.deepEqual(fields, ["metadata.labels", "metadata.name", "spec.color", "spec.replicas"]);
    assert.equal(err.details?.kind, "Widget");
    assert.equal(err.details?.group, "demo.io");
    await rejects(t.store.create(t.ctx("ns1"), widget("")), 422, "Invalid", /metadata\.name: Required value: name or generateName is required/);
  });

  it("rejects a body of another kind or apiVersion with 400", async () => {
    const t = await newTestStore(widgetDefinition());
    await rejects(t.store.create(t.ctx("ns1"), { ...widget("w"), kind: "Gadget" }), 400, "BadRequest", /kind/);
    await rejects(t.store.create(t.ctx("ns1"), { ...widget("w"), apiVersion: "demo.io/v2" }), 400, "BadRequest", /API version/);
  });

  it("dryRun returns the would-be object and stores nothing, emits no event", async () => {
    const t = await newTestStore(widgetDefinition());
    const sink = new CollectingSink();
    const handle = await t.store.watch(t.ctx("ns1"), {}, sink);
    const { object } = await t.store.create(t.ctx("ns1"), widget("", {}, { generateName: "dry-" }), { dryRun: true });
    assert.match(object.metadata.name!, /^dry-/);
    assert.ok(object.metadata.uid);
    assert.equal(object.metadata.creationTimestamp, "2026-01-01T12:00:00Z");
    assert.equal((await t.store.list(t.ctx("ns1"))).items.length, 0);
    await settle();
    assert.deepEqual(sink.events, []);
    handle.stop();
    await t.store.create(t.ctx("ns1"), widget("w1"));
    await rejects(t.store.create(t.ctx("ns1"), widget("w1"), { dryRun: true }), 409, "AlreadyExists");
  });

  it("runs mutating admission before validation and validating admission after it", async () => {
    const seen: string[] = [];
    const plugin: AdmissionPlugin = {
      name: "test",
      async admit(attrs) {
        seen.push(`admit ${attrs.operation} name=${attrs.name} gen=${attrs.object?.metadata.generation ?? "-"}`);
        attrs.object!.metadata.labels = { ...attrs.object!.metadata.labels, mutated: "yes" };
      },
      async validate(attrs) {
        seen.push(`validate ${attrs.operation} name=${attrs.name} gen=${attrs.object?.metadata.generation} user=${attrs.user.username}`);
        if (attrs.object?.metadata.labels?.deny) throw newForbiddenMessage("denied by test");
      },
    };
    const t = await newTestStore(widgetDefinition(), { admission: new AdmissionChain([plugin]) });
    const { object } = await t.store.create(t.ctx("ns1"), widget("", {}, { generateName: "a-" }));
    assert.equal(object.metadata.labels?.mutated, "yes");
    assert.equal(seen[0], "admit CREATE name= gen=-");
    assert.equal(seen[1], `validate CREATE name=${object.metadata.name} gen=1 user=alice`);
    await rejects(t.store.create(t.ctx("ns1"), widget("w2", {}, { labels: { deny: "1" } })), 403, "Forbidden", "denied by test");
    assert.equal((await t.store.list(t.ctx("ns1"))).items.length, 1);
  });

  it("returns fresh copies", async () => {
    const t = await newTestStore(widgetDefinition());
    const body: KubeObject = widget("w1", { replicas: 1 });
    const { object } = await t.store.create(t.ctx("ns1"), body);
    assert.equal(body.metadata.uid, undefined, "the caller's body is not modified");
    (object.spec as { replicas: number }).replicas = 5;
    const a = await t.store.get(t.ctx("ns1"), "w1");
    assert.equal((a.spec as { replicas: number }).replicas, 1);
    a.metadata.name = "changed";
    assert.equal((await t.store.get(t.ctx("ns1"), "w1")).metadata.name, "w1");
  });
});
