// Watch scenarios of the storage conformance suite (see conformance.ts).
import assert from "node:assert/strict";
import { it } from "node:test";
import type { KeyValue } from "./interface.ts";
import { WatchRecorder, withStorage, type MakeStorage } from "./testing.ts";

export function registerWatchCases(make: MakeStorage): void {
  void it("watch from before the first write replays every event, then continues live", withStorage(make, async (s) => {
    const base = await s.currentRevision();
    const a1 = await s.create("/watch/ns/a", "a1");
    const a2 = await s.update(a1.key, "a2", a1.modRevision);
    const b1 = await s.create("/watch/ns/b", "b1");
    const del = await s.delete(a1.key);
    const w = new WatchRecorder(s, "/watch/ns", base);
    await w.waitForEvents(4);
    assert.deepEqual(w.events, [
      { type: "put", kv: a1 },
      { type: "put", kv: a2, prev: a1 },
      { type: "put", kv: b1 },
      { type: "delete", kv: { ...a2, modRevision: del.modRevision }, prev: a2 },
    ]);
    const c1 = await s.create("/watch/ns/c", "c1");
    await w.waitForEvents(5);
    assert.deepEqual(w.events[4], { type: "put", kv: c1 });
    w.stop();
  }));

  void it("watch from a revision delivers only the events after it", withStorage(make, async (s) => {
    const a1 = await s.create("/watch/ns/a", "a1");
    const a2 = await s.update(a1.key, "a2", a1.modRevision);
    const a3 = await s.update(a1.key, "a3", a2.modRevision);
    const w = new WatchRecorder(s, "/watch/ns", a2.modRevision);
    await w.waitForEvents(1);
    assert.deepEqual(w.events, [{ type: "put", kv: a3, prev: a2 }]);
    const current = new WatchRecorder(s, "/watch/ns", a3.modRevision);
    const a4 = await s.update(a1.key, "a4", a3.modRevision);
    await current.waitForEvents(1);
    await w.waitForEvents(2);
    assert.deepEqual(current.events, [{ type: "put", kv: a4, prev: a3 }]);
    assert.deepEqual(w.events[1], { type: "put", kv: a4, prev: a3 });
    w.stop();
    current.stop();
  }));

  void it("a delete event carries the last value, with the deletion's revision", withStorage(make, async (s) => {
    const kv = await s.create("/watch/ns/d", "last");
    const w = new WatchRecorder(s, "/watch/ns", kv.modRevision);
    const del = await s.delete(kv.key, kv.modRevision);
    const [ev] = await w.waitForEvents(1);
    assert.equal(ev?.type, "delete");
    assert.equal(ev?.kv.value, "last");
    assert.equal(ev?.kv.modRevision, del.modRevision);
    assert.equal(ev?.kv.createRevision, kv.createRevision);
    assert.deepEqual(ev?.prev, kv);
    w.stop();
  }));

  void it("events under other prefixes are not delivered", withStorage(make, async (s) => {
    const base = await s.currentRevision();
    const w = new WatchRecorder(s, "/iso/a", base);
    await s.create("/iso/ab/1", "x");
    await s.create("/iso/b/1", "x");
    await s.create("/iso/a", "the directory key itself");
    const mine = await s.create("/iso/a/1", "x");
    await w.waitForEvents(1);
    // Later events arrive in revision order, so nothing earlier can still be on its way.
    const more = await s.create("/iso/a/2", "x");
    await w.waitForEvents(2);
    assert.deepEqual(w.events.map((e) => e.kv.key), [mine.key, more.key]);
    w.stop();
  }));

  void it("stop() ends delivery", withStorage(make, async (s) => {
    const base = await s.currentRevision();
    const stopped = new WatchRecorder(s, "/stop/ns", base);
    const witness = new WatchRecorder(s, "/stop/ns", base);
    await s.create("/stop/ns/1", "x");
    await stopped.waitForEvents(1);
    stopped.stop();
    await s.create("/stop/ns/2", "x");
    await s.create("/stop/ns/3", "x");
    await witness.waitForEvents(3);
    assert.equal(stopped.events.length, 1);
    witness.stop();
  }));

  void it("a watch started while writes run sees every revision once, in order", withStorage(make, async (s) => {
    const base = await s.currentRevision();
    const written: KeyValue[] = [];
    for (let i = 0; i < 20; i++) written.push(await s.create(`/order/ns/k${i}`, `${i}`));
    const w = new WatchRecorder(s, "/order/ns", base);
    const writes: Promise<KeyValue>[] = [];
    for (let i = 20; i < 60; i++) writes.push(s.create(`/order/ns/k${i}`, `${i}`));
    written.push(...(await Promise.all(writes)));
    await w.waitForEvents(60);
    const expected = written.map((kv) => kv.modRevision).sort((x, y) => x - y);
    assert.deepEqual(w.revisions(), expected);
    for (let i = 1; i < w.batches.length; i++) {
      const prev = w.batches[i - 1] as { kv: KeyValue }[];
      const first = (w.batches[i] as { kv: KeyValue }[])[0];
      assert.ok((first?.kv.modRevision ?? 0) > (prev[prev.length - 1]?.kv.modRevision ?? 0), "batches are ordered");
    }
    w.stop();
  }));
}
