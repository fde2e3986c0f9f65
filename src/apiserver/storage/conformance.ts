// The storage conformance suite: the scenarios of the apiserver's storage tests
// (k8s.io/apiserver pkg/storage/testing store_tests.go, watcher_tests.go) ported to our Storage
// contract. Every implementation registers it from its own test file. Assertions use revisions
// relative to the storage's current one, so one etcd can serve several cases (each with its own
// key prefix); the compaction cases run last because compaction is global in etcd.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { KeyValue } from "./interface.ts";
import { StorageError } from "./interface.ts";
import { registerWatchCases } from "./conformance-watch.ts";
import { expectStorageError, withStorage, WatchRecorder, type MakeStorage } from "./testing.ts";

export type { MakeStorage, StorageFixture } from "./testing.ts";

export function runStorageConformance(name: string, make: MakeStorage): void {
  void describe(`storage conformance: ${name}`, () => {
    registerWriteCases(make);
    registerListCases(make);
    registerWatchCases(make);
    registerCompactionCases(make);
  });
}

function registerWriteCases(make: MakeStorage): void {
  void it("create stores the key at a new revision, and get reads it back", withStorage(make, async (s) => {
    const before = await s.currentRevision();
    const kv = await s.create("/create/ns/foo", "v1");
    assert.equal(kv.key, "/create/ns/foo");
    assert.equal(kv.value, "v1");
    assert.ok(kv.modRevision > before, "revision increases");
    assert.equal(kv.createRevision, kv.modRevision);
    assert.equal(await s.currentRevision(), kv.modRevision);
    assert.deepEqual(await s.get("/create/ns/foo"), kv);
  }));

  void it("create fails with KeyExists when the key exists and changes nothing", withStorage(make, async (s) => {
    const kv = await s.create("/create/ns/foo", "v1");
    const err = await expectStorageError(s.create("/create/ns/foo", "v2"), "KeyExists");
    assert.ok(err instanceof StorageError);
    assert.equal(await s.currentRevision(), kv.modRevision);
    assert.deepEqual(await s.get("/create/ns/foo"), kv);
  }));

  void it("get of a missing key is undefined", withStorage(make, async (s) => {
    await s.create("/get/ns/a", "x");
    assert.equal(await s.get("/get/ns/b"), undefined);
    assert.equal(await s.get("/get/ns"), undefined);
  }));

  void it("update is a compare-and-swap on the mod revision", withStorage(make, async (s) => {
    const kv = await s.create("/update/ns/foo", "v1");
    const u1 = await s.update("/update/ns/foo", "v2", kv.modRevision);
    assert.equal(u1.value, "v2");
    assert.equal(u1.createRevision, kv.createRevision);
    assert.ok(u1.modRevision > kv.modRevision);
    const conflict = await expectStorageError(s.update("/update/ns/foo", "v3", kv.modRevision), "Conflict");
    assert.deepEqual(conflict.extra.current, u1, "a conflict reports the current version");
    assert.deepEqual(await s.get("/update/ns/foo"), u1);
    await expectStorageError(s.update("/update/ns/missing", "v", u1.modRevision), "NotFound");
    await expectStorageError(s.update("/update/ns/missing", "v", 0), "NotFound");
  }));

  void it("concurrent read-modify-write loops lose no update (GuaranteedUpdate)", withStorage(make, async (s) => {
    await s.create("/gu/ns/counter", "0");
    const increment = async () => {
      let cur = (await s.get("/gu/ns/counter")) as KeyValue;
      for (;;) {
        try {
          return await s.update(cur.key, String(Number(cur.value) + 1), cur.modRevision);
        } catch (err) {
          if (!(err instanceof StorageError) || err.code !== "Conflict") throw err;
          cur = err.extra.current ?? ((await s.get(cur.key)) as KeyValue);
        }
      }
    };
    const worker = async () => {
      for (let i = 0; i < 5; i++) await increment();
    };
    await Promise.all([worker(), worker(), worker(), worker()]);
    assert.equal((await s.get("/gu/ns/counter"))?.value, "20");
  }));

  void it("conditional delete checks the mod revision; the result carries the deletion revision", withStorage(make, async (s) => {
    const kv = await s.create("/delete/ns/foo", "v1");
    const u = await s.update(kv.key, "v2", kv.modRevision);
    const conflict = await expectStorageError(s.delete(kv.key, kv.modRevision), "Conflict");
    assert.deepEqual(conflict.extra.current, u);
    assert.deepEqual(await s.get(kv.key), u, "a failed conditional delete leaves the key");
    const deleted = await s.delete(kv.key, u.modRevision);
    assert.equal(deleted.value, "v2");
    assert.equal(deleted.createRevision, kv.createRevision);
    assert.ok(deleted.modRevision > u.modRevision);
    assert.equal(await s.currentRevision(), deleted.modRevision);
    assert.equal(await s.get(kv.key), undefined);
    await expectStorageError(s.delete(kv.key), "NotFound");
    await expectStorageError(s.delete(kv.key, deleted.modRevision), "NotFound");
  }));

  void it("unconditional delete, then create starts a new incarnation of the key", withStorage(make, async (s) => {
    const kv = await s.create("/delete/ns/foo", "v1");
    const deleted = await s.delete(kv.key);
    assert.equal(deleted.value, "v1");
    const again = await s.create(kv.key, "v2");
    assert.ok(again.modRevision > deleted.modRevision);
    assert.equal(again.createRevision, again.modRevision);
    assert.deepEqual(await s.get(kv.key), again);
  }));
}

function registerListCases(make: MakeStorage): void {
  void it("list is sorted by key and treats the prefix as a directory", withStorage(make, async (s) => {
    for (const k of ["/l/b/2", "/l/b/1", "/l/bc/1", "/l/b", "/l/b/sub/x", "/m/b/1"]) await s.create(k, k);
    const rev = await s.currentRevision();
    for (const prefix of ["/l/b", "/l/b/"]) {
      const res = await s.list(prefix);
      assert.deepEqual(res.items.map((i) => i.key), ["/l/b/1", "/l/b/2", "/l/b/sub/x"], `list ${prefix}`);
      assert.equal(res.more, false);
      assert.equal(res.revision, rev);
    }
    const all = await s.list("/l");
    assert.deepEqual(all.items.map((i) => i.key), ["/l/b", "/l/b/1", "/l/b/2", "/l/b/sub/x", "/l/bc/1"]);
    assert.deepEqual(all.items[1], await s.get("/l/b/1"));
    assert.deepEqual((await s.list("/l/nothing")).items, []);
  }));

  void it("list at an older revision returns the state at that revision", withStorage(make, async (s) => {
    const a1 = await s.create("/lr/ns/a", "a1");
    const b1 = await s.create("/lr/ns/b", "b1");
    const rev1 = b1.modRevision;
    const a2 = await s.update(a1.key, "a2", a1.modRevision);
    await s.delete(b1.key);
    const c1 = await s.create("/lr/ns/c", "c1");
    const old = await s.list("/lr/ns", { revision: rev1 });
    assert.equal(old.revision, rev1);
    assert.deepEqual(old.items, [a1, b1]);
    const mid = await s.list("/lr/ns", { revision: a2.modRevision });
    assert.deepEqual(mid.items, [a2, b1]);
    const now = await s.list("/lr/ns");
    assert.equal(now.revision, c1.modRevision);
    assert.deepEqual(now.items, [a2, c1]);
    const err = await expectStorageError(s.list("/lr/ns", { revision: c1.modRevision + 1000 }), "FutureRevision");
    assert.ok(err.message.length > 0);
  }));

  void it("list continuation with startKey and limit stays at the first page's revision", withStorage(make, async (s) => {
    for (const k of ["a", "b", "c", "d", "e"]) await s.create(`/page/ns/${k}`, k);
    const page1 = await s.list("/page/ns", { limit: 2 });
    assert.deepEqual(page1.items.map((i) => i.value), ["a", "b"]);
    assert.equal(page1.more, true);
    // Changes after the first page must not show in later pages.
    await s.create("/page/ns/bb", "bb");
    await s.delete("/page/ns/d");
    const next = (after: string) => `${after}\x00`;
    const page2 = await s.list("/page/ns", { limit: 2, revision: page1.revision, startKey: next("/page/ns/b") });
    assert.deepEqual(page2.items.map((i) => i.value), ["c", "d"]);
    assert.equal(page2.more, true);
    assert.equal(page2.revision, page1.revision);
    const page3 = await s.list("/page/ns", { limit: 2, revision: page1.revision, startKey: next("/page/ns/d") });
    assert.deepEqual(page3.items.map((i) => i.value), ["e"]);
    assert.equal(page3.more, false);
    const exact = await s.list("/page/ns", { limit: 5 });
    assert.deepEqual(exact.items.map((i) => i.value), ["a", "b", "bb", "c", "e"]);
    assert.equal(exact.more, false, "more is false when the limit is reached exactly");
    const outside = await s.list("/page/ns", { startKey: "/page/nt" });
    assert.deepEqual(outside.items, [], "a startKey past the prefix yields nothing");
    const before = await s.list("/page/ns", { startKey: "/a", limit: 1 });
    assert.deepEqual(before.items.map((i) => i.value), ["a"], "a startKey before the prefix is clamped to it");
  }));
}

function registerCompactionCases(make: MakeStorage): void {
  void it("compaction keeps the latest versions and fails older lists and watches with Compacted", withStorage(make, async (s) => {
    const a1 = await s.create("/compact/ns/a", "a1");
    const a2 = await s.update(a1.key, "a2", a1.modRevision);
    const b1 = await s.create("/compact/ns/b", "b1");
    await s.delete(b1.key);
    const c1 = await s.create("/compact/ns/c", "c1");
    const c2 = await s.update(c1.key, "c2", c1.modRevision);
    await s.compact(c1.modRevision);
    assert.equal(await s.compactedRevision(), c1.modRevision);

    await expectStorageError(s.list("/compact/ns", { revision: a1.modRevision }), "Compacted");
    assert.deepEqual((await s.list("/compact/ns", { revision: c1.modRevision })).items, [a2, c1]);
    assert.deepEqual((await s.list("/compact/ns")).items, [a2, c2]);
    assert.deepEqual(await s.get(a1.key), a2, "the latest version of a key older than the compaction survives");

    const old = new WatchRecorder(s, "/compact/ns", a1.modRevision);
    assert.equal((await old.waitForError()).code, "Compacted");
    old.stop();

    const fromCompacted = new WatchRecorder(s, "/compact/ns", c1.modRevision);
    const [ev] = await fromCompacted.waitForEvents(1);
    assert.deepEqual(ev, { type: "put", kv: c2, prev: c1 });
    const c3 = await s.update(c1.key, "c3", c2.modRevision);
    await fromCompacted.waitForEvents(2);
    assert.deepEqual(fromCompacted.events[1]?.kv, c3);
    fromCompacted.stop();

    await s.compact(a2.modRevision);
    assert.equal(await s.compactedRevision(), c1.modRevision, "compacting at an older revision is a no-op");
  }));

  void it("a key deleted before the compacted revision stays deleted and can be recreated", withStorage(make, async (s) => {
    const kv = await s.create("/compact2/ns/x", "x1");
    const del = await s.delete(kv.key);
    const other = await s.create("/compact2/ns/y", "y1");
    await s.compact(other.modRevision);
    assert.equal(await s.get(kv.key), undefined);
    assert.deepEqual((await s.list("/compact2/ns")).items, [other]);
    const again = await s.create(kv.key, "x2");
    assert.ok(again.createRevision > del.modRevision);
    assert.deepEqual((await s.list("/compact2/ns")).items, [again, other]);
  }));
}
