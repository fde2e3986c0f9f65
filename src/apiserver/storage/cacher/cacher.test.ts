import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { FakeClock } from "../../../utils/clock.ts";
import { runStorageConformance } from "../conformance.ts";
import { StorageError } from "../interface.ts";
import { SQLiteStorage } from "../sqlite/sqlite.ts";
import { expectStorageError, WatchRecorder } from "../testing.ts";
import { bucketAtSlash } from "./buckets.ts";
import { Cacher, type CacherOptions } from "./cacher.ts";
import { ControlledStorage } from "./controlled.ts";

const dir = mkdtempSync(join(tmpdir(), "cacher-"));
after(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;

runStorageConformance("cacher over sqlite", async () => {
  const storage = new Cacher(new SQLiteStorage({ path: join(dir, `db-${n++}.sqlite`) }), { prefix: "/" });
  await storage.start();
  return { storage, cleanup: () => storage.close() };
});

runStorageConformance("cacher over sqlite, two-segment buckets", async () => {
  const inner = new SQLiteStorage({ path: ":memory:" });
  const storage = new Cacher(inner, { prefix: "/", bucketOf: (s) => bucketAtSlash(s, 2) });
  await storage.start();
  return { storage, cleanup: () => storage.close() };
});

/** A started Cacher over a ControlledStorage over in-memory SQLite, with a fake clock. */
async function setup(options: CacherOptions = {}) {
  const sqlite = new SQLiteStorage({ path: ":memory:" });
  const inner = new ControlledStorage(sqlite);
  const clock = new FakeClock();
  const cacher = new Cacher(inner, { clock, ...options });
  await cacher.start();
  return { sqlite, inner, clock, cacher };
}

const turn = () => new Promise((r) => setImmediate(r));

void describe("Cacher", () => {
  void it("serves gets and lists from memory once it has caught up", async () => {
    const { inner, cacher } = await setup();
    const a = await cacher.create("/registry/core/pods/ns1/a", "a");
    const reads = { ...inner.calls };
    assert.deepEqual(await cacher.get(a.key), a);
    const list = await cacher.list("/registry/core/pods/ns1");
    assert.deepEqual(list, { items: [a], more: false, revision: a.modRevision });
    assert.equal(inner.calls.get, reads.get);
    assert.equal(inner.calls.list, reads.list);
    await cacher.close();
  });

  void it("a consistent read waits until the cache has seen the current revision", async () => {
    const { inner, cacher } = await setup();
    inner.hold = true;
    const a = await cacher.create("/registry/core/pods/ns1/a", "a");
    assert.equal(cacher.revision, a.modRevision - 1);
    let got: unknown = "pending";
    const read = cacher.get(a.key).then((kv) => (got = kv));
    await turn();
    assert.equal(got, "pending");
    inner.release();
    await read;
    assert.deepEqual(got, a);
    assert.equal(inner.calls.get, 0, "served from memory");
    await cacher.close();
  });

  void it("after the freshness timeout a read falls back to the inner storage", async () => {
    const { inner, clock, cacher } = await setup();
    inner.hold = true;
    const a = await cacher.create("/registry/core/pods/ns1/a", "a");
    const read = cacher.list("/registry/core/pods");
    await turn();
    clock.step(2999);
    await turn();
    assert.equal(inner.calls.list, 1, "only the initial list so far");
    clock.step(1);
    const res = await read;
    assert.deepEqual(res.items, [a]);
    assert.equal(inner.calls.list, 2);
    await cacher.close();
  });

  void it("writes outside the root do not hold up consistent reads; a delete under it does", async () => {
    const { sqlite, inner, cacher } = await setup();
    const a = await cacher.create("/registry/core/pods/ns1/a", "a");
    inner.hold = true;
    await sqlite.create("/elsewhere/x", "moves the revision, never reaches the cache");
    const timeout = new Promise<never>((_, reject) => setTimeout(() => reject(new Error("the read waited")), 5000).unref());
    assert.deepEqual(await Promise.race([cacher.get(a.key), timeout]), a, "answered without waiting (the fake clock never fires)");
    assert.equal(inner.calls.get, 0);

    await sqlite.delete(a.key);
    let got: unknown = "pending";
    const read = cacher.get(a.key).then((kv) => (got = kv));
    await turn();
    await turn();
    assert.equal(got, "pending", "the deletion changed the live count: wait for the watch");
    inner.release();
    await read;
    assert.equal(got, undefined);
    await cacher.close();
  });

  void it("allowStale answers at once from the cache's state", async () => {
    const { inner, cacher } = await setup();
    const old = await cacher.create("/registry/core/pods/ns1/a", "a");
    inner.hold = true;
    await cacher.create("/registry/core/pods/ns1/b", "b");
    const res = await cacher.list("/registry/core/pods", { allowStale: true });
    assert.deepEqual(res, { items: [old], more: false, revision: old.modRevision });
    await cacher.close();
  });

  void it("a get with allowStale answers at once from the cache's state; without it, the get waits for the current revision", async () => {
    const { inner, cacher } = await setup();
    const a = await cacher.create("/registry/core/namespaces/a", "v1");
    inner.hold = true;
    const a2 = await cacher.update(a.key, "v2", a.modRevision);
    const b = await cacher.create("/registry/core/namespaces/b", "v1");
    assert.deepEqual(await cacher.get(a.key, { allowStale: true }), a, "the version the cache has seen");
    assert.equal(await cacher.get(b.key, { allowStale: true }), undefined, "not seen yet");
    let got: unknown = "pending";
    const read = cacher.get(a.key).then((kv) => (got = kv));
    await turn();
    assert.equal(got, "pending");
    inner.release();
    await read;
    assert.deepEqual(got, a2);
    assert.equal(inner.calls.get, 0, "all served from memory");
    await cacher.close();
  });

  void it("lists at another explicit revision go to the inner storage", async () => {
    const { inner, cacher } = await setup();
    const a = await cacher.create("/registry/core/pods/ns1/a", "a");
    await cacher.update(a.key, "a2", a.modRevision);
    const calls = inner.calls.list;
    assert.deepEqual((await cacher.list("/registry/core/pods", { revision: a.modRevision })).items, [a]);
    assert.equal(inner.calls.list, calls + 1);
    await cacher.list("/registry/core/pods", { revision: cacher.revision });
    assert.equal(inner.calls.list, calls + 1, "the cache's own revision is served from memory");
    await cacher.close();
  });

  void it("watches resume from the history ring, or from the inner storage when it is too short", async () => {
    const { inner, cacher } = await setup({ historySize: 3 });
    const base = cacher.revision;
    const kvs = [];
    for (let i = 0; i < 6; i++) kvs.push(await cacher.create(`/registry/core/pods/ns1/k${i}`, `${i}`));
    const watches = inner.calls.watch;

    const recent = new WatchRecorder(cacher, "/registry/core/pods", kvs[2]?.modRevision ?? 0);
    await recent.waitForEvents(3);
    assert.equal(inner.calls.watch, watches, "served from the ring");
    assert.deepEqual(recent.revisions(), kvs.slice(3).map((kv) => kv.modRevision));

    const old = new WatchRecorder(cacher, "/registry/core/pods", base);
    await old.waitForEvents(6);
    assert.equal(inner.calls.watch, watches + 1, "delegated to the inner storage");
    assert.deepEqual(old.revisions(), kvs.map((kv) => kv.modRevision));

    const next = await cacher.create("/registry/core/pods/ns1/k6", "6");
    await recent.waitForEvents(4);
    await old.waitForEvents(7);
    assert.equal(recent.events[3]?.kv.modRevision, next.modRevision);
    recent.stop();
    old.stop();
    await cacher.close();
  });

  void it("the history is bounded in bytes: large values push old events out, watches from before them go to the inner storage", async () => {
    const { inner, cacher } = await setup({ historyBytes: 250_000 });
    const big = "x".repeat(100_000);
    const first = await cacher.create("/registry/core/pods/ns1/a", big);
    let kv = first;
    for (let i = 0; i < 5; i++) kv = await cacher.update(kv.key, big + i, kv.modRevision);
    // Each update pins its value and the previous one (~200 KB): only the newest event fits.
    const watches = inner.calls.watch;
    const recent = new WatchRecorder(cacher, "/registry/core/pods", kv.modRevision - 1);
    await recent.waitForEvents(1);
    assert.equal(inner.calls.watch, watches, "the newest event is still served from the ring");
    const old = new WatchRecorder(cacher, "/registry/core/pods", first.modRevision);
    await old.waitForEvents(5);
    assert.equal(inner.calls.watch, watches + 1, "older ones come from the inner storage");
    recent.stop();
    old.stop();
    await cacher.close();
  });

  void it("a replay from the history hands out copies, never the objects live watchers got", async () => {
    const { cacher } = await setup();
    const base = cacher.revision;
    const live = new WatchRecorder(cacher, "/registry/core/pods", base);
    await cacher.create("/registry/core/pods/ns1/a", "a");
    await live.waitForEvents(1);
    const replay = new WatchRecorder(cacher, "/registry/core/pods", base);
    await replay.waitForEvents(1);
    assert.deepEqual(replay.events[0], live.events[0]);
    assert.notEqual(replay.events[0]?.kv, live.events[0]?.kv);
    live.stop();
    replay.stop();
    await cacher.close();
  });

  void it("a watch after compaction fails with Compacted even if the ring still holds the events", async () => {
    const { cacher } = await setup();
    const a = await cacher.create("/registry/core/pods/ns1/a", "a");
    const b = await cacher.update(a.key, "b", a.modRevision);
    await cacher.compact(b.modRevision);
    const w = new WatchRecorder(cacher, "/registry/core/pods", a.modRevision);
    assert.equal((await w.waitForError()).code, "Compacted");
    await cacher.close();
  });

  void it("a watch from a revision the cache has not reached yet waits for it", async () => {
    const { inner, cacher } = await setup();
    inner.hold = true;
    const a = await cacher.create("/registry/core/pods/ns1/a", "a");
    const b = await cacher.create("/registry/core/pods/ns1/b", "b");
    const w = new WatchRecorder(cacher, "/registry/core/pods", a.modRevision);
    inner.release();
    await w.waitForEvents(1);
    assert.deepEqual(w.events, [{ type: "put", kv: b }]);
    const future = new WatchRecorder(cacher, "/registry/core/pods", b.modRevision + 100);
    assert.equal((await future.waitForError()).code, "FutureRevision");
    w.stop();
    await cacher.close();
  });

  void it("buckets: lists and watches of one resource or namespace see exactly their keys", async () => {
    const { sqlite, cacher } = await setup();
    const keys = [
      "/registry/core/pods/ns1/a", "/registry/core/pods/ns1/b", "/registry/core/pods/ns2/a",
      "/registry/core/podsx/ns1/a", "/registry/core/configmaps/ns1/a", "/registry/apps/deployments/ns1/a",
      "/registry/core/namespaces/ns1", "/registry/short",
    ];
    const podsNs1 = new WatchRecorder(cacher, "/registry/core/pods/ns1", cacher.revision);
    const core = new WatchRecorder(cacher, "/registry/core", cacher.revision);
    for (const k of keys) await cacher.create(k, k);
    const prefixes = [
      "/registry/core/pods/ns1", "/registry/core/pods", "/registry/core/pod", "/registry/core",
      "/registry", "/registry/core/namespaces", "/registry/apps/deployments/ns1/", "/registry/nothing",
    ];
    for (const p of prefixes) {
      for (const options of [{}, { limit: 1 }, { limit: 2, startKey: "/registry/core/pods/ns1/b" }]) {
        assert.deepEqual(await cacher.list(p, options), await sqlite.list(p, options), `list ${p} ${JSON.stringify(options)}`);
      }
    }
    await core.waitForEvents(6);
    await podsNs1.waitForEvents(2);
    assert.deepEqual(podsNs1.events.map((e) => e.kv.key), keys.slice(0, 2));
    assert.deepEqual(core.events.map((e) => e.kv.key), keys.filter((k) => k.startsWith("/registry/core/")));
    podsNs1.stop();
    core.stop();
    await cacher.close();
  });

  void it("when the inner watch is compacted away, cache watchers end with Compacted and the cache relists", async () => {
    const { sqlite, inner, clock, cacher } = await setup();
    await cacher.create("/registry/core/pods/ns1/a", "a");
    const w = new WatchRecorder(cacher, "/registry/core/pods", cacher.revision);
    inner.failWatches(new StorageError("Compacted", "compacted"));
    assert.equal((await w.waitForError()).code, "Compacted");
    const b = await sqlite.create("/registry/core/pods/ns1/b", "b");
    clock.step(100);
    await turn();
    assert.equal(cacher.revision, b.modRevision, "relisted");
    const after = new WatchRecorder(cacher, "/registry/core/pods", cacher.revision);
    const c = await cacher.create("/registry/core/pods/ns1/c", "c");
    await after.waitForEvents(1);
    assert.deepEqual(after.events, [{ type: "put", kv: c }]);
    assert.equal((await cacher.list("/registry/core/pods")).items.length, 3);
    after.stop();
    await cacher.close();
  });

  void it("when the inner watch breaks otherwise, the cache watches again from its revision and watchers see no gap", async () => {
    const { sqlite, inner, clock, cacher } = await setup();
    const w = new WatchRecorder(cacher, "/registry/core/pods", cacher.revision);
    const a = await cacher.create("/registry/core/pods/ns1/a", "a");
    inner.failWatches(new StorageError("Unavailable", "connection lost"));
    const b = await sqlite.create("/registry/core/pods/ns1/b", "b");
    clock.step(100);
    const c = await cacher.create("/registry/core/pods/ns1/c", "c");
    await w.waitForEvents(3);
    assert.deepEqual(w.revisions(), [a.modRevision, b.modRevision, c.modRevision]);
    assert.equal(w.error, undefined);
    w.stop();
    await cacher.close();
  });

  void it("keys outside the root prefix pass through to the inner storage", async () => {
    const { inner, cacher } = await setup();
    const kv = await cacher.create("/other/thing", "x");
    assert.deepEqual(await cacher.get(kv.key), kv);
    assert.deepEqual((await cacher.list("/other")).items, [kv]);
    assert.equal(inner.calls.get, 1);
    await expectStorageError(cacher.create("/other/thing", "y"), "KeyExists");
    await cacher.close();
  });

  void it("10k objects: a namespace list is fast and 500 watchers of one prefix get each event at once", async () => {
    const { cacher } = await setup();
    for (let ns = 0; ns < 100; ns++) {
      for (let i = 0; i < 100; i++) await cacher.create(`/registry/core/pods/ns${ns}/p${i}`, "{}");
    }
    let t = performance.now();
    for (let i = 0; i < 100; i++) {
      const res = await cacher.list(`/registry/core/pods/ns${i}`);
      assert.equal(res.items.length, 100);
    }
    const perList = (performance.now() - t) / 100;
    assert.ok(perList < 5, `a namespace list takes ${perList.toFixed(2)} ms`);

    let received = 0;
    const handles = [];
    for (let i = 0; i < 500; i++) {
      handles.push(cacher.watch("/registry/core/pods/ns7", cacher.revision, (evs) => (received += evs.length), () => undefined));
    }
    await turn();
    t = performance.now();
    await cacher.create("/registry/core/pods/ns7/new", "{}");
    const elapsed = performance.now() - t;
    assert.equal(received, 500, "delivered synchronously to every watcher");
    assert.ok(elapsed < 50, `fan-out took ${elapsed.toFixed(2)} ms`);
    for (const h of handles) h.stop();
    await cacher.close();
  });
});
