import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { runStorageConformance } from "../conformance.ts";
import { expectStorageError, WatchRecorder } from "../testing.ts";
import { SQLiteStorage } from "./sqlite.ts";
import { WRITER_NICE } from "./writer-protocol.ts";

const dir = mkdtempSync(join(tmpdir(), "sqlite-storage-"));
after(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
const nextPath = () => join(dir, `db-${n++}.sqlite`);

runStorageConformance("sqlite", async () => {
  const storage = new SQLiteStorage({ path: nextPath() });
  return { storage, cleanup: () => storage.close() };
});

/** This process's threads and their nice values (/proc/self/task/<tid>/stat, field 19). */
function threadNices(): Map<string, number> {
  const out = new Map<string, number>();
  for (const tid of readdirSync("/proc/self/task")) {
    try {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, "utf8");
      out.set(tid, Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[16]));
    } catch {
      // the thread ended meanwhile
    }
  }
  return out;
}

void describe("SQLiteStorage", () => {
  void it("the writer thread, and only it, runs at WRITER_NICE; it is gone after close", async (t) => {
    if (process.getuid?.() !== 0) return t.skip("raising a thread's priority needs root (CAP_SYS_NICE)");
    const before = threadNices();
    const s = new SQLiteStorage({ path: nextPath() });
    await s.create("/a/b", "x"); // answered: the thread runs
    const started = [...threadNices()].filter(([tid]) => !before.has(tid));
    const raised = started.filter(([, nice]) => nice === WRITER_NICE).map(([tid]) => tid);
    assert.equal(raised.length, 1, `new threads and their nice values: ${JSON.stringify(started)}`);
    assert.equal(threadNices().get(String(process.pid)), before.get(String(process.pid)), "the main thread keeps its priority");
    await s.close();
    assert.equal(threadNices().has(raised[0]!), false);
  });

  void it("the first write is revision 1", async () => {
    const s = new SQLiteStorage({ path: ":memory:" });
    assert.equal(await s.currentRevision(), 0);
    assert.equal((await s.create("/a/b", "x")).modRevision, 1);
    await s.close();
  });

  void it("a reopened database keeps data, revision and compacted revision", async () => {
    const path = nextPath();
    const s1 = new SQLiteStorage({ path });
    const a = await s1.create("/r/ns/a", "a1");
    const a2 = await s1.update(a.key, "a2", a.modRevision);
    const b = await s1.create("/r/ns/b", "b1");
    await s1.compact(a2.modRevision);
    await s1.delete(b.key); // the newest row, a delete: the revision must not fall back after reopening
    const rev = await s1.currentRevision();
    await s1.close();

    const s2 = new SQLiteStorage({ path });
    assert.equal(await s2.currentRevision(), rev);
    assert.equal(await s2.compactedRevision(), a2.modRevision);
    assert.deepEqual((await s2.list("/r/ns")).items, [a2]);
    assert.equal((await s2.create("/r/ns/c", "c")).modRevision, rev + 1);
    await s2.compact(rev + 1);
    await s2.close();
    const s3 = new SQLiteStorage({ path });
    assert.equal(await s3.currentRevision(), rev + 1, "compacting away the newest delete keeps the revision");
    assert.equal((await s3.create("/r/ns/d", "d")).modRevision, rev + 2);
    await s3.close();
  });

  void it("compaction removes superseded history in batches and keeps live keys", async () => {
    const s = new SQLiteStorage({ path: ":memory:" });
    let kv = await s.create("/big/ns/hot", "0");
    for (let i = 1; i <= 2500; i++) kv = await s.update(kv.key, String(i), kv.modRevision);
    const cold = await s.create("/big/ns/cold", "c");
    const rev = await s.currentRevision();
    await s.compact(rev);
    assert.deepEqual((await s.list("/big/ns")).items, [cold, kv]);
    assert.deepEqual(s.stats(), { logRows: 2, liveKeys: 2 });
    const w = new WatchRecorder(s, "/big/ns", rev);
    const next = await s.update(kv.key, "next", kv.modRevision);
    await w.waitForEvents(1);
    assert.deepEqual(w.events, [{ type: "put", kv: next, prev: kv }]);
    w.stop();
    await expectStorageError(s.compact(rev + 10), "FutureRevision");
    await s.close();
  });

  void it("compaction leaves only the live version of a key deleted and created again", async () => {
    const s = new SQLiteStorage({ path: nextPath() });
    const first = await s.create("/r/ns/k", "1");
    await s.delete("/r/ns/k", first.modRevision);
    const again = await s.create("/r/ns/k", "2");
    assert.equal(again.createRevision, again.modRevision, "a new incarnation");
    const updated = await s.update("/r/ns/k", "3", again.modRevision);
    await s.compact(updated.modRevision);
    assert.deepEqual(s.stats(), { logRows: 1, liveKeys: 1 });
    assert.deepEqual(await s.get("/r/ns/k"), { key: "/r/ns/k", value: "3", createRevision: again.modRevision, modRevision: updated.modRevision });
    await s.close();
  });

  void it("a watch replaying a long history switches to live delivery without gap or duplicate", async () => {
    const s = new SQLiteStorage({ path: ":memory:" });
    for (let i = 0; i < 2500; i++) await s.create(`/long/ns/k${i}`, "x");
    const w = new WatchRecorder(s, "/long", 0);
    // Writes while the replay is still in progress (it reads 1000 rows per event-loop turn).
    await new Promise((r) => setImmediate(r));
    for (let i = 2500; i < 2600; i++) await s.create(`/long/ns/k${i}`, "x");
    await w.waitForEvents(2600);
    assert.deepEqual(w.revisions(), Array.from({ length: 2600 }, (_, i) => i + 1));
    w.stop();
    await s.close();
  });

  void it("a watcher that writes from its callback does not reorder other watchers' events", async () => {
    const s = new SQLiteStorage({ path: ":memory:" });
    const seen: number[] = [];
    const h1 = s.watch("/re", 0, (evs) => {
      for (const e of evs) if (e.kv.key === "/re/a") void s.create("/re/b", "from callback");
    }, () => undefined);
    const w2 = new WatchRecorder(s, "/re", 0);
    await new Promise((r) => setImmediate(r));
    await s.create("/re/a", "x");
    await w2.waitForEvents(2);
    seen.push(...w2.revisions());
    assert.deepEqual(seen, [1, 2]);
    h1.stop();
    w2.stop();
    await s.close();
  });

  void it("a closed storage fails with Unavailable", async () => {
    const s = new SQLiteStorage({ path: ":memory:" });
    await s.close();
    await expectStorageError(s.get("/x"), "Unavailable");
    await expectStorageError(s.create("/x", "y"), "Unavailable");
    const w = new WatchRecorder(s, "/x", 0);
    assert.equal((await w.waitForError()).code, "Unavailable");
  });
});

const turn = () => new Promise((r) => setImmediate(r));

void describe("SQLiteStorage durability (fsync before the answer, group commit)", () => {
  void it("a write is acknowledged, read and watched only after its WAL sync", async () => {
    const s = new SQLiteStorage({ path: nextPath() });
    const w = new WatchRecorder(s, "/d/ns", 0);
    const before = await s.currentRevision();
    let acked = false;
    const p = s.create("/d/ns/a", "v").then((kv) => ((acked = true), kv));
    // The commit is in the WAL, but no sync has completed yet: nobody may see it.
    assert.equal(await s.currentRevision(), before);
    assert.deepEqual((await s.list("/d/ns")).items, []);
    assert.equal(w.events.length, 0);
    const read = await s.get("/d/ns/a"); // waits for the sync of that commit
    assert.equal(read?.value, "v");
    const kv = await p;
    assert.ok(acked);
    assert.equal(await s.currentRevision(), kv.modRevision);
    assert.deepEqual((await w.waitForEvents(1))[0]?.kv, kv);
    assert.ok(s.syncs >= 1);
    w.stop();
    await s.close();
  });

  void it("concurrent writes share syncs; each write and event is still in revision order", async () => {
    const s = new SQLiteStorage({ path: nextPath() });
    const w = new WatchRecorder(s, "/g/ns", 0);
    const kvs = await Promise.all(Array.from({ length: 200 }, (_, i) => s.create(`/g/ns/k${i}`, String(i))));
    assert.deepEqual(kvs.map((kv) => kv.modRevision), kvs.map((_, i) => i + 1));
    assert.ok(s.syncs < 50, `200 concurrent writes needed ${s.syncs} syncs`);
    await w.waitForEvents(200);
    assert.deepEqual(w.revisions(), kvs.map((kv) => kv.modRevision));
    w.stop();
    await s.close();
  });

  void it("a refused write leaves its group alone; a SQLite error fails the whole group, whose revisions are reused", async () => {
    const s = new SQLiteStorage({ path: nextPath() });
    const w = new WatchRecorder(s, "/e/ns", 0);
    // One event-loop turn, one group: a, a again (refused: KeyExists), b.
    const a = s.create("/e/ns/a", "1");
    const again = s.create("/e/ns/a", "2");
    const b = s.create("/e/ns/b", "3");
    await expectStorageError(again, "KeyExists");
    assert.deepEqual([(await a).modRevision, (await b).modRevision], [1, 2]);
    // Next group: c, then a write SQLite itself refuses (a value that is not text) in the middle.
    const c = s.create("/e/ns/c", "4");
    const d = s.create("/e/ns/d", null as unknown as string);
    await Promise.all([assert.rejects(c, /NOT NULL/), assert.rejects(d, /NOT NULL/)]);
    const e = await s.create("/e/ns/e", "5");
    assert.equal(e.modRevision, 3, "the failed group's revision is used again");
    assert.equal(await s.get("/e/ns/c"), undefined);
    assert.deepEqual((await s.list("/e/ns")).items.map((kv) => kv.key), ["/e/ns/a", "/e/ns/b", "/e/ns/e"]);
    await w.waitForEvents(3);
    assert.deepEqual(w.revisions(), [1, 2, 3]);
    w.stop();
    await s.close();
  });

  void it("the writes of one event-loop turn are one group on the writer thread; a later turn's a later group", async () => {
    const s = new SQLiteStorage({ path: nextPath() });
    const first = await Promise.all([s.create("/t/ns/a", "1"), s.create("/t/ns/b", "2")]);
    assert.equal(s.groups, 1, "one turn's writes are one group");
    assert.equal(s.syncs, 1, "with one sync");
    const second = await s.create("/t/ns/c", "3");
    assert.deepEqual([...first, second].map((kv) => kv.modRevision), [1, 2, 3]);
    assert.equal(s.groups, 2, "a later turn's write is a group of its own");
    // Writes in every turn: each turn's go to the thread together, and the thread takes every
    // message waiting when it starts a group.
    const busy = [];
    for (let i = 0; i < 6; i++) {
      busy.push(s.create(`/t/ns/e${i}`, "5"));
      await turn();
    }
    assert.deepEqual((await Promise.all(busy)).map((kv) => kv.modRevision), [4, 5, 6, 7, 8, 9]);
    assert.ok(s.groups > 2 && s.groups <= 8, `${s.groups} groups for 6 turns after 2`);
    await s.close();
  });

  void it("a group's events reach watchers after its answers; a watcher added in between sees each event once", async () => {
    const s = new SQLiteStorage({ path: nextPath() });
    const early = new WatchRecorder(s, "/o/ns", 0);
    const a = await s.create("/o/ns/a", "1");
    // Answered, and durable for reads, while the event waits for the check phase (the answers leave first).
    assert.equal(early.events.length, 0, "the answer comes before the event");
    assert.equal(await s.currentRevision(), a.modRevision);
    // Added before that event was published: one replays from the log, one starts at the durable revision.
    const replaying = new WatchRecorder(s, "/o/ns", 0);
    const current = new WatchRecorder(s, "/o/ns", a.modRevision);
    const b = await s.create("/o/ns/b", "2");
    await Promise.all([early.waitForEvents(2), replaying.waitForEvents(2), current.waitForEvents(1)]);
    await turn();
    assert.deepEqual(early.revisions(), [a.modRevision, b.modRevision]);
    assert.deepEqual(replaying.revisions(), [a.modRevision, b.modRevision], "no event twice, none missed");
    assert.deepEqual(current.revisions(), [b.modRevision]);
    for (const w of [early, replaying, current]) w.stop();
    await s.close();
  });

  void it("a writer thread that dies fails the writes not yet answered and every later one, and reads go on", async () => {
    const s = new SQLiteStorage({ path: nextPath() });
    const kept = await s.create("/x/ns/a", "1");
    const inFlight = s.create("/x/ns/b", "2");
    await (s as unknown as { writer: { thread: { terminate(): Promise<number> } } }).writer.thread.terminate();
    await expectStorageError(inFlight, "Unavailable");
    await expectStorageError(s.create("/x/ns/c", "3"), "Unavailable");
    assert.deepEqual(await s.get("/x/ns/a"), kept);
    assert.equal(await s.currentRevision(), kept.modRevision);
    await s.close();
  });

  void it("a watch from an older revision replays only durable commits, then the rest live", async () => {
    const s = new SQLiteStorage({ path: nextPath() });
    const first = await s.create("/r2/ns/a", "1");
    const pending = [s.create("/r2/ns/b", "2"), s.create("/r2/ns/c", "3")];
    const w = new WatchRecorder(s, "/r2/ns", 0);
    await Promise.all(pending);
    await w.waitForEvents(3);
    assert.deepEqual(w.revisions(), [first.modRevision, first.modRevision + 1, first.modRevision + 2]);
    w.stop();
    await s.close();
  });

  void it("without fsync a write is visible at once (fsync: false)", async () => {
    const s = new SQLiteStorage({ path: nextPath(), fsync: false });
    const p = s.create("/n/ns/a", "v");
    assert.equal(await s.currentRevision(), 1);
    await p;
    assert.equal(s.syncs, 0);
    await s.close();
  });
});
