import { test } from "node:test";
import assert from "node:assert/strict";
import type { KubeList, KubeObject, WatchEvent } from "../../apis/meta/v1/types.ts";
import { newInternalError, newResourceExpired } from "../../apimachinery/errors.ts";
import { FakeClock } from "../../utils/clock.ts";
import { Informer, type ListerWatcher } from "./informer.ts";
import { fieldIndexFunc } from "./store.ts";

function obj(name: string, rv: string, extra: Partial<KubeObject> = {}): KubeObject {
  return { apiVersion: "v1", kind: "ConfigMap", metadata: { namespace: "ns", name, resourceVersion: rv }, ...extra };
}

interface WatchCall {
  rv: string;
  emit(ev: WatchEvent): void;
  end(): void;
  fail(err: unknown): void;
}

/** A scripted ListerWatcher: lists come from a queue; each watch call is handed to the test. */
class FakeLW implements ListerWatcher<KubeObject> {
  lists: (KubeList | Error)[] = [];
  listCalls = 0;
  watches: WatchCall[] = [];
  private waiters: ((w: WatchCall) => void)[] = [];

  async list(): Promise<KubeList> {
    this.listCalls++;
    const next = this.lists.shift();
    if (!next) throw new Error("no list scripted");
    if (next instanceof Error) throw next;
    return next;
  }

  watch(rv: string, onEvent: (ev: WatchEvent) => void, signal: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      const call: WatchCall = { rv, emit: onEvent, end: resolve, fail: reject };
      signal.addEventListener("abort", () => resolve(), { once: true });
      this.watches.push(call);
      for (const w of this.waiters.splice(0)) w(call);
    });
  }

  /** Resolves with the n-th watch call (1-based) once it happens. */
  async nthWatch(n: number): Promise<WatchCall> {
    while (this.watches.length < n) await new Promise<WatchCall>((r) => this.waiters.push(r));
    return this.watches[n - 1]!;
  }
}

function list(rv: string, ...items: KubeObject[]): KubeList {
  return { apiVersion: "v1", kind: "ConfigMapList", metadata: { resourceVersion: rv }, items };
}

async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
}

function recorder(inf: Informer<KubeObject>): string[] {
  const seen: string[] = [];
  inf.addEventHandler({
    onAdd: (o) => seen.push(`add ${o.metadata.name}@${o.metadata.resourceVersion}`),
    onUpdate: (a, b) => seen.push(`update ${b.metadata.name} ${a.metadata.resourceVersion}->${b.metadata.resourceVersion}`),
    onDelete: (o) => seen.push(`delete ${o.metadata.name}`),
  });
  return seen;
}

test("lists, watches from the list's resourceVersion, and resumes from the last event's after a clean end", async () => {
  const lw = new FakeLW();
  lw.lists.push(list("10", obj("a", "5"), obj("b", "7")));
  const inf = new Informer(lw, { clock: new FakeClock() });
  const seen = recorder(inf);
  inf.start();
  await inf.waitForSync();
  assert.equal(inf.hasSynced(), true);
  const w1 = await lw.nthWatch(1);
  assert.equal(w1.rv, "10");
  w1.emit({ type: "ADDED", object: obj("c", "11") });
  w1.emit({ type: "MODIFIED", object: obj("a", "12") });
  w1.emit({ type: "DELETED", object: obj("b", "13") });
  w1.emit({ type: "BOOKMARK", object: { metadata: { resourceVersion: "15" } } });
  w1.end();
  const w2 = await lw.nthWatch(2);
  assert.equal(w2.rv, "15", "the bookmark's resourceVersion carries over");
  assert.equal(lw.listCalls, 1, "a clean end does not relist");
  assert.deepEqual(seen, ["add a@5", "add b@7", "add c@11", "update a 5->12", "delete b"]);
  assert.deepEqual(inf.store.list().map((o) => o.metadata.name).sort(), ["a", "c"]);
  await inf.stop();
});

test("a 410 Expired relists and emits deletes, adds and updates for what changed meanwhile", async () => {
  const lw = new FakeLW();
  lw.lists.push(list("10", obj("a", "5"), obj("b", "7"), obj("keep", "8")));
  lw.lists.push(list("30", obj("a", "20"), obj("keep", "8"), obj("new", "25")));
  const inf = new Informer(lw, { clock: new FakeClock() });
  const seen = recorder(inf);
  inf.start();
  const w1 = await lw.nthWatch(1);
  w1.emit({ type: "MODIFIED", object: obj("keep", "9") });
  w1.fail(newResourceExpired("too old resource version: 10 (20)"));
  const w2 = await lw.nthWatch(2);
  assert.equal(lw.listCalls, 2, "relisted at once, without a backoff");
  assert.equal(w2.rv, "30");
  assert.deepEqual(seen.slice(3), ["update keep 8->9", "update a 5->20", "update keep 9->8", "add new@25", "delete b"]);
  await inf.stop();
});

test("other failures reconnect from the same resourceVersion after an exponential backoff on the clock", async () => {
  const clock = new FakeClock();
  const lw = new FakeLW();
  lw.lists.push(list("10"));
  const inf = new Informer(lw, { clock, backoff: { initialMs: 500, maxMs: 4000 } });
  inf.start();
  const delays: number[] = [];
  for (let n = 1; n <= 6; n++) {
    const w = await lw.nthWatch(n);
    assert.equal(w.rv, "10");
    w.fail(newInternalError(new Error("etcd unavailable")));
    await settle();
    const t0 = clock.nowMs();
    while (lw.watches.length === n) {
      clock.step(100);
      await settle();
    }
    delays.push(clock.nowMs() - t0);
  }
  assert.deepEqual(delays, [500, 1000, 2000, 4000, 4000, 4000]);
  // an event proves the connection healthy: the next failure starts from the initial delay again
  const w7 = await lw.nthWatch(7);
  w7.emit({ type: "ADDED", object: obj("x", "11") });
  w7.fail(new Error("socket hang up"));
  await settle();
  const t0 = clock.nowMs();
  while (lw.watches.length === 7) {
    clock.step(100);
    await settle();
  }
  assert.equal(clock.nowMs() - t0, 500);
  assert.equal(lw.watches[7]!.rv, "11");
  assert.equal(lw.listCalls, 1);
  await inf.stop();
});

test("a failing list is retried with backoff and the informer syncs once it succeeds", async () => {
  const clock = new FakeClock();
  const lw = new FakeLW();
  lw.lists.push(new Error("connection refused"), list("3", obj("a", "2")));
  const inf = new Informer(lw, { clock, backoff: { initialMs: 200, maxMs: 1000 } });
  inf.start();
  await settle();
  assert.equal(inf.hasSynced(), false);
  clock.step(199);
  await settle();
  assert.equal(lw.listCalls, 1);
  clock.step(1);
  await inf.waitForSync();
  assert.equal(lw.listCalls, 2);
  assert.equal(inf.store.size(), 1);
  await inf.stop();
});

test("a watch that ends at once without events backs off instead of spinning", async () => {
  const clock = new FakeClock();
  const lw = new FakeLW();
  lw.lists.push(list("1"));
  const inf = new Informer(lw, { clock, backoff: { initialMs: 500, maxMs: 30_000 } });
  inf.start();
  (await lw.nthWatch(1)).end();
  await settle();
  assert.equal(lw.watches.length, 1, "no immediate re-watch");
  clock.step(500);
  await lw.nthWatch(2);
  await inf.stop();
});

test("handlers added later get the current objects as adds; indexers index existing and new objects", async () => {
  const lw = new FakeLW();
  lw.lists.push(list("10", obj("a", "5", { spec: { seedName: "s1" } }), obj("b", "6", { spec: { seedName: "s2" } })));
  const inf = new Informer(lw, { clock: new FakeClock() });
  inf.start();
  await inf.waitForSync();
  inf.addIndexer("seed", fieldIndexFunc("spec.seedName"));
  const late: string[] = [];
  inf.addEventHandler({ onAdd: (o) => late.push(o.metadata.name!) });
  assert.deepEqual(late.sort(), ["a", "b"]);
  const w = await lw.nthWatch(1);
  w.emit({ type: "MODIFIED", object: obj("b", "11", { spec: { seedName: "s1" } }) });
  assert.deepEqual(inf.store.byIndex("seed", "s1").map((o) => o.metadata.name).sort(), ["a", "b"]);
  assert.deepEqual(inf.store.byIndex("seed", "s2"), []);
  w.emit({ type: "DELETED", object: obj("a", "12", { spec: { seedName: "s1" } }) });
  assert.deepEqual(inf.store.byIndex("seed", "s1").map((o) => o.metadata.name), ["b"]);
  assert.deepEqual(inf.store.byIndex("namespace", "ns").map((o) => o.metadata.name), ["b"]);
  await inf.stop();
});

test("a throwing handler does not stop the informer or other handlers", async () => {
  const lw = new FakeLW();
  lw.lists.push(list("1"));
  const inf = new Informer(lw, { clock: new FakeClock() });
  inf.addEventHandler({
    onAdd: () => {
      throw new Error("bad handler");
    },
  });
  const seen = recorder(inf);
  inf.start();
  const w = await lw.nthWatch(1);
  w.emit({ type: "ADDED", object: obj("a", "2") });
  w.emit({ type: "ADDED", object: obj("b", "3") });
  assert.deepEqual(seen, ["add a@2", "add b@3"]);
  await inf.stop();
});

test("stop() ends a running watch and a pending backoff", async () => {
  const clock = new FakeClock();
  const lw = new FakeLW();
  lw.lists.push(list("1"));
  const inf = new Informer(lw, { clock });
  inf.start();
  (await lw.nthWatch(1)).fail(new Error("boom"));
  await settle();
  await inf.stop();
  assert.equal(inf.isRunning(), false);
  clock.step(60_000);
  await settle();
  assert.equal(lw.watches.length, 1);
});

test("a 410 on the list itself (expired continue token) backs off instead of relisting in a loop", async () => {
  const clock = new FakeClock();
  const lw = new FakeLW();
  lw.lists.push(newResourceExpired("the provided continue parameter is too old"), list("4"));
  const inf = new Informer(lw, { clock, backoff: { initialMs: 300, maxMs: 300 } });
  inf.start();
  await settle();
  assert.equal(lw.listCalls, 1);
  clock.step(300);
  await inf.waitForSync();
  assert.equal(lw.listCalls, 2);
  await inf.stop();
});

test("a 410 on the watch of a list just taken relists only after a backoff", async () => {
  const clock = new FakeClock();
  const lw = new FakeLW();
  lw.lists.push(list("4"), list("5"));
  const inf = new Informer(lw, { clock, backoff: { initialMs: 300, maxMs: 300 } });
  inf.start();
  (await lw.nthWatch(1)).fail(newResourceExpired("too old resource version: 4 (9)"));
  await settle();
  assert.equal(lw.listCalls, 1, "no immediate relist");
  clock.step(300);
  const w2 = await lw.nthWatch(2);
  assert.equal(lw.listCalls, 2);
  assert.equal(w2.rv, "5");
  await inf.stop();
});
