import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { rejects } from "./testing/assert.ts";
import { newTestStore, widget, widgetDefinition } from "./testing/fixtures.ts";
import { CollectingSink, settle, until } from "./testing/sink.ts";

describe("GenericStore.watch", () => {
  it("without resourceVersion (or with 0) starts with synthetic ADDED events, then changes", async () => {
    for (const resourceVersion of [undefined, "0"]) {
      const t = await newTestStore(widgetDefinition());
      await t.store.create(t.ctx("ns1"), widget("a"));
      await t.store.create(t.ctx("ns1"), widget("b"));
      await t.store.create(t.ctx("ns2"), widget("c"));
      const sink = new CollectingSink();
      const h = await t.store.watch(t.ctx("ns1"), resourceVersion === undefined ? {} : { resourceVersion }, sink);
      assert.deepEqual(sink.summary(), ["ADDED a", "ADDED b"]);
      await t.store.patch(t.ctx("ns1"), "a", "merge", { spec: { replicas: 1 } });
      await t.store.create(t.ctx("ns2"), widget("d"));
      await t.store.delete(t.ctx("ns1"), "b");
      await until(() => sink.events.length === 4, "4 events");
      assert.deepEqual(sink.summary(), ["ADDED a", "ADDED b", "MODIFIED a", "DELETED b"]);
      assert.ok(sink.events.every((e) => e.object.apiVersion === "demo.io/v1" && e.object.kind === "Widget"));
      h.stop();
    }
  });

  it("from resourceVersion n delivers only later changes; DELETED carries the deletion's revision", async () => {
    const t = await newTestStore(widgetDefinition());
    await t.store.create(t.ctx("ns1"), widget("a"));
    const b = (await t.store.create(t.ctx("ns1"), widget("b"))).object;
    await t.store.patch(t.ctx("ns1"), "a", "merge", { spec: { replicas: 2 } });
    const sink = new CollectingSink();
    const h = await t.store.watch(t.ctx("ns1"), { resourceVersion: b.metadata.resourceVersion! }, sink);
    await until(() => sink.events.length === 1, "replay");
    assert.deepEqual(sink.summary(), ["MODIFIED a"]);
    await t.store.delete(t.ctx("ns1"), "b");
    await until(() => sink.events.length === 2, "delete");
    const del = sink.events[1]!;
    assert.equal(del.type, "DELETED");
    assert.equal(del.object.metadata.resourceVersion, String(await t.storage.currentRevision()));
    assert.equal(del.object.metadata.uid, b.metadata.uid);
    h.stop();
  });

  it("turns selector transitions into ADDED and DELETED", async () => {
    const t = await newTestStore(widgetDefinition());
    await t.store.create(t.ctx("ns1"), widget("a", { color: "red" }, { labels: { app: "web" } }));
    const sink = new CollectingSink();
    const h = await t.store.watch(t.ctx("ns1"), { labelSelector: "app=web", fieldSelector: "spec.color=red" }, sink);
    await t.store.patch(t.ctx("ns1"), "a", "merge", { spec: { color: "blue" } });
    await t.store.patch(t.ctx("ns1"), "a", "merge", { metadata: { labels: { app: "db" } } });
    await t.store.patch(t.ctx("ns1"), "a", "merge", { spec: { color: "red" } });
    await t.store.patch(t.ctx("ns1"), "a", "merge", { metadata: { labels: { app: "web" } } });
    await t.store.patch(t.ctx("ns1"), "a", "merge", { metadata: { annotations: { x: "y" } } });
    await until(() => sink.events.length === 4, "4 events");
    assert.deepEqual(sink.summary(), ["ADDED a", "DELETED a", "ADDED a", "MODIFIED a"]);
    const left = sink.events[1]!.object;
    assert.equal((left.spec as { color: string }).color, "red", "the object that left is the old one");
    assert.ok(Number(left.metadata.resourceVersion) > Number(sink.events[0]!.object.metadata.resourceVersion), "at the revision of the change");
    h.stop();
  });

  it("kubectl get -w style: fieldSelector metadata.name with resourceVersion=0", async () => {
    const t = await newTestStore(widgetDefinition());
    await t.store.create(t.ctx("ns1"), widget("a"));
    await t.store.create(t.ctx("ns1"), widget("b"));
    const sink = new CollectingSink();
    const h = await t.store.watch(t.ctx("ns1"), { fieldSelector: "metadata.name=b", resourceVersion: "0" }, sink);
    await t.store.patch(t.ctx("ns1"), "a", "merge", { spec: { replicas: 1 } });
    await t.store.patch(t.ctx("ns1"), "b", "merge", { spec: { replicas: 1 } });
    await until(() => sink.events.length === 2, "2 events");
    assert.deepEqual(sink.summary(), ["ADDED b", "MODIFIED b"]);
    h.stop();
  });

  it("sends BOOKMARKs of the watched kind on the clock when asked", async () => {
    const t = await newTestStore(widgetDefinition(), { bookmarkIntervalMs: 10_000 });
    const a = (await t.store.create(t.ctx("ns1"), widget("a"))).object;
    const plain = new CollectingSink();
    const h1 = await t.store.watch(t.ctx("ns1"), { resourceVersion: a.metadata.resourceVersion! }, plain);
    const sink = new CollectingSink();
    const h2 = await t.store.watch(t.ctx("ns1"), { resourceVersion: a.metadata.resourceVersion!, allowWatchBookmarks: true }, sink);
    t.clock.step(10_000);
    assert.deepEqual(sink.events, [{ type: "BOOKMARK", object: { apiVersion: "demo.io/v1", kind: "Widget", metadata: { resourceVersion: a.metadata.resourceVersion } } }]);
    const b = (await t.store.create(t.ctx("ns1"), widget("b"))).object;
    await until(() => sink.events.length === 2, "ADDED b");
    t.clock.step(10_000);
    assert.deepEqual(sink.summary(), [`BOOKMARK ${a.metadata.resourceVersion}`, "ADDED b", `BOOKMARK ${b.metadata.resourceVersion}`]);
    assert.deepEqual(plain.summary(), ["ADDED b"], "no bookmarks unless requested");
    h1.stop();
    h2.stop();
    assert.equal(t.clock.pending(), 0, "stop cancels the bookmark timer");
  });

  it("sendInitialEvents streams the state, then a BOOKMARK marking the end, then changes", async () => {
    const t = await newTestStore(widgetDefinition());
    await t.store.create(t.ctx("ns1"), widget("a"));
    await t.store.create(t.ctx("ns1"), widget("b"));
    const sink = new CollectingSink();
    const h = await t.store.watch(t.ctx("ns1"), { sendInitialEvents: true, resourceVersionMatch: "NotOlderThan", allowWatchBookmarks: true }, sink);
    assert.deepEqual(sink.summary(), ["ADDED a", "ADDED b", "BOOKMARK 2"]);
    assert.deepEqual(sink.events[2]!.object.metadata.annotations, { "k8s.io/initial-events-end": "true" });
    await t.store.create(t.ctx("ns1"), widget("c"));
    await until(() => sink.events.length === 4, "ADDED c");
    assert.equal(sink.summary()[3], "ADDED c");
    h.stop();
    await rejects(t.store.watch(t.ctx("ns1"), { sendInitialEvents: true, resourceVersionMatch: "NotOlderThan", allowWatchBookmarks: true, resourceVersion: "99" }, new CollectingSink()), 504, "Timeout");
  });

  it("rejects invalid sendInitialEvents and resourceVersionMatch combinations with 422 on ListOptions", async () => {
    const t = await newTestStore(widgetDefinition());
    const err = await rejects(t.store.watch(t.ctx("ns1"), { sendInitialEvents: true }, new CollectingSink()), 422, "Invalid", /^ListOptions\.meta\.k8s\.io "" is invalid: \[/);
    assert.deepEqual(err.details?.causes?.map((c) => c.field), ["resourceVersionMatch", "allowWatchBookmarks"]);
    await rejects(t.store.watch(t.ctx("ns1"), { resourceVersionMatch: "NotOlderThan", resourceVersion: "1" }, new CollectingSink()), 422, "Invalid", /forbidden for watch unless sendInitialEvents is provided/);
    await rejects(t.store.watch(t.ctx("ns1"), { labelSelector: "a in (" }, new CollectingSink()), 400, "BadRequest");
  });

  it("ends with 410 Expired when the resourceVersion is compacted", async () => {
    const t = await newTestStore(widgetDefinition());
    await t.store.create(t.ctx("ns1"), widget("a"));
    await t.store.patch(t.ctx("ns1"), "a", "merge", { spec: { replicas: 1 } });
    await t.store.patch(t.ctx("ns1"), "a", "merge", { spec: { replicas: 2 } });
    await t.storage.compact(3);
    const sink = new CollectingSink();
    await t.store.watch(t.ctx("ns1"), { resourceVersion: "1" }, sink);
    await until(() => sink.ended !== undefined, "end");
    assert.equal(sink.ended?.err?.code, 410);
    assert.equal(sink.ended?.err?.reason, "Expired");
    assert.match(sink.ended?.err?.message ?? "", /^too old resource version: 1 \(3\)$/);
    assert.deepEqual(sink.events, []);
  });

  it("stops when the sink asks to, and delivers nothing after stop()", async () => {
    const t = await newTestStore(widgetDefinition());
    const sink = new CollectingSink();
    sink.stopAfter = 1;
    await t.store.watch(t.ctx("ns1"), {}, sink);
    await t.store.create(t.ctx("ns1"), widget("a"));
    await t.store.create(t.ctx("ns1"), widget("b"));
    await until(() => sink.ended !== undefined, "end");
    assert.deepEqual(sink.summary(), ["ADDED a"]);
    assert.equal(sink.ended?.err, undefined);

    const other = new CollectingSink();
    const h = await t.store.watch(t.ctx("ns1"), {}, other);
    assert.equal(other.events.length, 2);
    h.stop();
    await t.store.create(t.ctx("ns1"), widget("c"));
    await settle();
    assert.equal(other.events.length, 2);
    assert.equal(other.ended, undefined, "stop() is not an end the sink must report");
  });

  it("delivers fresh copies to each watcher", async () => {
    const t = await newTestStore(widgetDefinition());
    const s1 = new CollectingSink();
    const s2 = new CollectingSink();
    const h1 = await t.store.watch(t.ctx(), {}, s1);
    const h2 = await t.store.watch(t.ctx(), {}, s2);
    await t.store.create(t.ctx("ns1"), widget("a"));
    await until(() => s1.events.length === 1 && s2.events.length === 1, "events");
    s1.events[0]!.object.metadata.name = "mutated";
    assert.equal(s2.events[0]!.object.metadata.name, "a");
    h1.stop();
    h2.stop();
  });
});
