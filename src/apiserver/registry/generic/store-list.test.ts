import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { rejects } from "./testing/assert.ts";
import { gadgetDefinition, newTestStore, type TestStore, widget, widgetDefinition } from "./testing/fixtures.ts";

async function seed(t: TestStore): Promise<void> {
  await t.store.create(t.ctx("ns1"), widget("a", { color: "red" }, { labels: { app: "web", tier: "front" } }));
  await t.store.create(t.ctx("ns1"), widget("b", { color: "blue" }, { labels: { app: "web" } }));
  await t.store.create(t.ctx("ns1"), widget("c", { color: "red" }, { labels: { app: "db" } }));
  await t.store.create(t.ctx("ns2"), widget("a", { color: "red" }, { labels: { app: "web" } }));
}

const names = (items: { metadata: { namespace?: string; name?: string } }[]) => items.map((i) => `${i.metadata.namespace}/${i.metadata.name}`);

describe("GenericStore.get", () => {
  it("returns 404 with kube's message, and honours resourceVersion", async () => {
    const t = await newTestStore(widgetDefinition());
    await rejects(t.store.get(t.ctx("ns1"), "a"), 404, "NotFound", 'widgets.demo.io "a" not found');
    const { object } = await t.store.create(t.ctx("ns1"), widget("a"));
    assert.equal((await t.store.get(t.ctx("ns1"), "a", { resourceVersion: "0" })).metadata.uid, object.metadata.uid);
    assert.equal((await t.store.get(t.ctx("ns1"), "a", { resourceVersion: object.metadata.resourceVersion! })).metadata.uid, object.metadata.uid);
    const err = await rejects(t.store.get(t.ctx("ns1"), "a", { resourceVersion: "1000" }), 504, "Timeout", /Too large resource version: 1000/);
    assert.equal(err.details?.causes?.[0]?.reason, "ResourceVersionTooLarge");
    await rejects(t.store.get(t.ctx("ns1"), "a", { resourceVersion: "abc" }), 400, "BadRequest");
  });

  it("readOnly reads the same object as a plain get, follows updates, and plain gets stay private copies", async () => {
    const t = await newTestStore(widgetDefinition());
    await t.store.create(t.ctx("ns1"), widget("a", { color: "red" }));
    const shared = await t.store.get(t.ctx("ns1"), "a", { readOnly: true });
    const own = await t.store.get(t.ctx("ns1"), "a");
    assert.deepEqual(shared, own);
    (own.spec as Record<string, unknown>).color = "mutated";
    own.metadata.labels = { mutated: "yes" };
    const again = await t.store.get(t.ctx("ns1"), "a", { readOnly: true });
    assert.deepEqual(again, shared);
    assert.equal((again.spec as Record<string, unknown>).color, "red");
    assert.equal((await t.store.get(t.ctx("ns1"), "a")).metadata.labels, undefined);
    const updated = await t.store.update(t.ctx("ns1"), "a", { ...again, spec: { color: "blue" } });
    const fresh = await t.store.get(t.ctx("ns1"), "a", { readOnly: true });
    assert.equal(fresh.metadata.resourceVersion, updated.object.metadata.resourceVersion);
    assert.equal((fresh.spec as Record<string, unknown>).color, "blue");
  });
});

describe("GenericStore.list", () => {
  it("lists one namespace or all, with apiVersion/kind on every item and the list RV set", async () => {
    const t = await newTestStore(widgetDefinition());
    const empty = await t.store.list(t.ctx("ns1"));
    assert.equal(empty.metadata.resourceVersion, "0");
    assert.deepEqual(empty.items, []);
    await seed(t);
    const l = await t.store.list(t.ctx("ns1"));
    assert.equal(l.kind, "WidgetList");
    assert.equal(l.apiVersion, "demo.io/v1");
    assert.deepEqual(names(l.items), ["ns1/a", "ns1/b", "ns1/c"]);
    assert.ok(l.items.every((i) => i.kind === "Widget" && i.apiVersion === "demo.io/v1"));
    assert.equal(l.metadata.resourceVersion, "4");
    assert.equal(l.metadata.continue, undefined);
    assert.deepEqual(names((await t.store.list(t.ctx())).items), ["ns1/a", "ns1/b", "ns1/c", "ns2/a"]);
    // A namespace whose name is a prefix of another is not mixed in.
    await t.store.create(t.ctx("ns10"), widget("z"));
    assert.deepEqual(names((await t.store.list(t.ctx("ns1"))).items), ["ns1/a", "ns1/b", "ns1/c"]);
  });

  it("filters by label and field selectors", async () => {
    const t = await newTestStore(widgetDefinition());
    await seed(t);
    assert.deepEqual(names((await t.store.list(t.ctx("ns1"), { labelSelector: "app=web" })).items), ["ns1/a", "ns1/b"]);
    assert.deepEqual(names((await t.store.list(t.ctx("ns1"), { labelSelector: "tier!=front" })).items), ["ns1/b", "ns1/c"]);
    assert.deepEqual(names((await t.store.list(t.ctx(), { labelSelector: "app in (db)" })).items), ["ns1/c"]);
    assert.deepEqual(names((await t.store.list(t.ctx(), { fieldSelector: "metadata.name=a" })).items), ["ns1/a", "ns2/a"]);
    assert.deepEqual(names((await t.store.list(t.ctx(), { fieldSelector: "metadata.namespace=ns2" })).items), ["ns2/a"]);
    assert.deepEqual(names((await t.store.list(t.ctx("ns1"), { fieldSelector: "spec.color=red,metadata.name!=a" })).items), ["ns1/c"]);
    const single = await t.store.list(t.ctx("ns1"), { fieldSelector: "metadata.name=b", labelSelector: "app=web" });
    assert.deepEqual(names(single.items), ["ns1/b"]);
    assert.equal(single.metadata.resourceVersion, "4");
    assert.deepEqual((await t.store.list(t.ctx("ns1"), { fieldSelector: "metadata.name=zz" })).items, []);
    // Built-in kinds answer as kube's conversion functions do ...
    await rejects(t.store.list(t.ctx(), { fieldSelector: "spec.size=M" }), 400, "BadRequest", "field label not supported: spec.size");
    await rejects(t.store.list(t.ctx(), { labelSelector: "app in (" }), 400, "BadRequest");
    // ... custom resources as the CRD handler does, naming the supported fields.
    const g = await newTestStore({ ...gadgetDefinition(), crdName: "gadgets.demo.io" });
    await rejects(g.store.list(g.ctx(), { fieldSelector: "metadata.namespace=x" }), 400, "BadRequest", '"metadata.namespace" is not a known field selector: only "metadata.name"');
  });

  it("paginates at the first page's revision, even when objects change between pages", async () => {
    const t = await newTestStore(widgetDefinition());
    for (const n of ["a", "b", "c", "d", "e"]) await t.store.create(t.ctx("ns1"), widget(n));
    const p1 = await t.store.list(t.ctx("ns1"), { limit: 2 });
    assert.deepEqual(names(p1.items), ["ns1/a", "ns1/b"]);
    assert.ok(p1.metadata.continue);
    assert.equal(p1.metadata.remainingItemCount, 3);
    await t.store.delete(t.ctx("ns1"), "c");
    await t.store.create(t.ctx("ns1"), widget("bb"));
    const p2 = await t.store.list(t.ctx("ns1"), { limit: 2, continue: p1.metadata.continue });
    assert.deepEqual(names(p2.items), ["ns1/c", "ns1/d"]);
    assert.equal(p2.metadata.resourceVersion, p1.metadata.resourceVersion);
    assert.equal(p2.metadata.remainingItemCount, 1, "counted in the first page's snapshot");
    const p3 = await t.store.list(t.ctx("ns1"), { limit: 2, continue: p2.metadata.continue });
    assert.deepEqual(names(p3.items), ["ns1/e"]);
    assert.equal(p3.metadata.continue, undefined);
    assert.equal(p3.metadata.remainingItemCount, undefined);
  });

  it("fills pages across filtered-out objects", async () => {
    const t = await newTestStore(widgetDefinition());
    for (let i = 0; i < 10; i++) await t.store.create(t.ctx("ns1"), widget(`w${i}`, {}, { labels: { even: String(i % 2 === 0) } }));
    const seen: string[] = [];
    let cont: string | undefined;
    do {
      const page = await t.store.list(t.ctx("ns1"), { limit: 2, labelSelector: "even=true", ...(cont ? { continue: cont } : {}) });
      assert.ok(page.items.length <= 2);
      assert.equal(page.metadata.remainingItemCount, undefined, "not with a selector");
      seen.push(...page.items.map((i) => i.metadata.name!));
      cont = page.metadata.continue;
    } while (cont);
    assert.deepEqual(seen, ["w0", "w2", "w4", "w6", "w8"]);
  });

  it("resourceVersion=0 may ignore limit; an explicit RV with limit is an exact read", async () => {
    const t = await newTestStore(widgetDefinition());
    await seed(t);
    const any = await t.store.list(t.ctx(), { resourceVersion: "0", limit: 1 });
    assert.equal(any.items.length, 4);
    assert.equal(any.metadata.continue, undefined);
    await t.store.delete(t.ctx("ns1"), "a");
    const exact = await t.store.list(t.ctx(), { resourceVersion: "2", resourceVersionMatch: "Exact" });
    assert.deepEqual(names(exact.items), ["ns1/a", "ns1/b"]);
    assert.equal(exact.metadata.resourceVersion, "2");
    const withLimit = await t.store.list(t.ctx(), { resourceVersion: "3", limit: 10 });
    assert.deepEqual(names(withLimit.items), ["ns1/a", "ns1/b", "ns1/c"]);
    const notOlder = await t.store.list(t.ctx(), { resourceVersion: "2", resourceVersionMatch: "NotOlderThan" });
    assert.equal(notOlder.metadata.resourceVersion, "5");
    await rejects(t.store.list(t.ctx(), { resourceVersion: "50" }), 504, "Timeout", /Too large resource version/);
  });

  it("validates resourceVersionMatch and continue combinations", async () => {
    const t = await newTestStore(widgetDefinition());
    await seed(t);
    await rejects(t.store.list(t.ctx(), { resourceVersionMatch: "Exact" }), 422, "Invalid", /^ListOptions\.meta\.k8s\.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided$/);
    await rejects(t.store.list(t.ctx(), { resourceVersion: "0", resourceVersionMatch: "Exact" }), 422, "Invalid", /"exact" is forbidden for resourceVersion "0"/);
    await rejects(t.store.list(t.ctx(), { resourceVersion: "1", resourceVersionMatch: "Newest" as "Exact" }), 422, "Invalid", /Unsupported value/);
    const p1 = await t.store.list(t.ctx(), { limit: 1 });
    await rejects(t.store.list(t.ctx(), { limit: 1, continue: p1.metadata.continue!, resourceVersion: "3" }), 400, "BadRequest", "specifying resource version is not allowed when using continue");
    await rejects(t.store.list(t.ctx(), { limit: 1, continue: "garbage!" }), 400, "BadRequest", /continue key is not valid/);
  });

  it("answers 410 Expired for compacted revisions and expired continue tokens", async () => {
    const t = await newTestStore(widgetDefinition());
    await seed(t);
    const p1 = await t.store.list(t.ctx(), { limit: 1 });
    await t.store.delete(t.ctx("ns1"), "b");
    await t.store.create(t.ctx("ns1"), widget("d"));
    await t.storage.compact(await t.storage.currentRevision());
    await rejects(t.store.list(t.ctx(), { limit: 1, continue: p1.metadata.continue! }), 410, "Expired", /The provided continue parameter is too old/);
    await rejects(t.store.list(t.ctx(), { resourceVersion: "2", resourceVersionMatch: "Exact" }), 410, "Expired", /^too old resource version: 2 \(\d+\)$/);
  });
});
