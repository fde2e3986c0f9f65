import { test } from "node:test";
import assert from "node:assert/strict";
import { FakeClock } from "../../utils/clock.ts";
import { WorkQueue } from "./queue.ts";
import { BucketRateLimiter, ItemExponentialFailureRateLimiter, MaxOfRateLimiter, defaultControllerRateLimiter } from "./ratelimiter.ts";

function newQueue(clock = new FakeClock()) {
  return { clock, q: new WorkQueue(clock, new ItemExponentialFailureRateLimiter(5, 1_000_000)) };
}

/** Resolves to the key if get() has an answer after pending microtasks, else "pending". */
async function peek(p: Promise<string | undefined>): Promise<string | undefined | "pending"> {
  return Promise.race([p, new Promise<"pending">((r) => setImmediate(() => r("pending")))]);
}

test("duplicate adds of a waiting key collapse into one", async () => {
  const { q } = newQueue();
  q.add("ns/a");
  q.add("ns/b");
  q.add("ns/a");
  q.add("ns/a");
  assert.equal(q.len(), 2);
  assert.equal(await q.get(), "ns/a");
  assert.equal(await q.get(), "ns/b");
  assert.equal(q.len(), 0);
});

test("a key being processed is not handed out again until done, then exactly once", async () => {
  const { q } = newQueue();
  q.add("a");
  assert.equal(await q.get(), "a");
  q.add("a");
  q.add("a");
  assert.equal(q.len(), 0, "the re-added key waits for done()");
  const next = q.get();
  assert.equal(await peek(next), "pending");
  q.done("a");
  assert.equal(await next, "a");
  q.done("a");
  assert.equal(await peek(q.get()), "pending", "the two adds during processing gave one more run, not two");
});

test("a waiting get() receives the next added key", async () => {
  const { q } = newQueue();
  const p = q.get();
  q.add("x");
  assert.equal(await p, "x");
});

test("addAfter waits on the clock, and an earlier time replaces a later one", async () => {
  const { q, clock } = newQueue();
  q.addAfter("k", 1000);
  q.addAfter("k", 300);
  q.addAfter("k", 2000);
  assert.equal(q.len(), 0);
  clock.step(299);
  assert.equal(q.len(), 0);
  clock.step(1);
  assert.equal(q.len(), 1);
  assert.equal(await q.get(), "k");
  q.done("k");
  clock.step(5000);
  assert.equal(q.len(), 0, "the superseded timers do not add the key again");
});

test("per-key backoff doubles from 5 ms and is capped at 1000 s", () => {
  const rl = new ItemExponentialFailureRateLimiter();
  const delays = Array.from({ length: 20 }, () => rl.when("k"));
  assert.deepEqual(delays.slice(0, 8), [5, 10, 20, 40, 80, 160, 320, 640]);
  assert.equal(delays[17], 5 * 2 ** 17);
  assert.equal(delays[18], 1_000_000);
  assert.equal(delays[19], 1_000_000);
  assert.equal(rl.when("other"), 5, "keys back off independently");
  assert.equal(rl.numRequeues("k"), 20);
  rl.forget("k");
  assert.equal(rl.when("k"), 5);
  for (let i = 0; i < 2000; i++) rl.when("huge");
  assert.equal(rl.when("huge"), 1_000_000, "no overflow to Infinity or NaN");
});

test("addRateLimited hands the key out only after its backoff delay on the fake clock", async () => {
  const { q, clock } = newQueue();
  const seen: number[] = [];
  for (const expected of [5, 10, 20, 40]) {
    const t0 = clock.nowMs();
    q.addRateLimited("k");
    clock.step(expected - 1);
    assert.equal(q.len(), 0, `not before ${expected} ms`);
    clock.step(1);
    assert.equal(q.len(), 1, `ready at ${expected} ms`);
    assert.equal(await q.get(), "k");
    q.done("k");
    seen.push(clock.nowMs() - t0);
  }
  assert.deepEqual(seen, [5, 10, 20, 40]);
  q.forget("k");
  q.addRateLimited("k");
  clock.step(5);
  assert.equal(q.len(), 1, "forget() resets the backoff to the base delay");
});

test("the token bucket allows a burst, then spaces requeues at 1/qps, and refills over time", () => {
  const clock = new FakeClock();
  const rl = new BucketRateLimiter(clock, 10, 100);
  for (let i = 0; i < 100; i++) assert.equal(rl.when(), 0, `burst item ${i}`);
  assert.equal(rl.when(), 100);
  assert.equal(rl.when(), 200);
  assert.equal(rl.when(), 300);
  clock.step(10_000 + 300); // 103 tokens come back, capped at the burst of 100
  for (let i = 0; i < 100; i++) assert.equal(rl.when(), 0);
  assert.ok(Math.abs(rl.when() - 100) < 1e-6);
});

test("the default controller limiter takes the larger of backoff and bucket", () => {
  const clock = new FakeClock();
  const rl = defaultControllerRateLimiter(clock, { qps: 10, burst: 2 });
  assert.equal(rl.when("a"), 5);
  assert.equal(rl.when("b"), 5);
  assert.equal(rl.when("c"), 100, "bucket empty: 1/qps wins over the 5 ms backoff");
  assert.equal(rl.numRequeues("a"), 1);
  const max = new MaxOfRateLimiter(new ItemExponentialFailureRateLimiter(1, 10));
  assert.equal(max.when("x"), 1);
});

test("the queue applies the global rate limit across keys", () => {
  const clock = new FakeClock();
  const q = new WorkQueue(clock, defaultControllerRateLimiter(clock, { qps: 10, burst: 3 }));
  for (const k of ["a", "b", "c", "d", "e"]) q.addRateLimited(k);
  clock.step(5);
  assert.equal(q.len(), 3, "the burst passes after the per-key 5 ms");
  clock.step(95);
  assert.equal(q.len(), 4);
  clock.step(100);
  assert.equal(q.len(), 5);
});

test("shutDown drops queued and delayed keys and releases waiting getters; drain waits for in-flight keys", async () => {
  const { q, clock } = newQueue();
  q.add("a");
  q.add("b");
  assert.equal(await q.get(), "a");
  q.addAfter("c", 10);
  const drained = q.shutDownWithDrain();
  assert.equal(await q.get(), undefined);
  q.add("d");
  clock.step(100);
  assert.equal(q.len(), 0);
  let done = false;
  void drained.then(() => (done = true));
  await new Promise((r) => setImmediate(r));
  assert.equal(done, false, "a is still being processed");
  q.done("a");
  await drained;
});

test("metrics hooks see adds, depth, retries and durations", async () => {
  const clock = new FakeClock();
  const seen = { adds: 0, retries: 0, depth: [] as number[], latency: [] as number[], work: [] as number[] };
  const q = new WorkQueue(clock, new ItemExponentialFailureRateLimiter(), {
    add: () => seen.adds++,
    retry: () => seen.retries++,
    depth: (n) => seen.depth.push(n),
    queueLatency: (ms) => seen.latency.push(ms),
    workDuration: (ms) => seen.work.push(ms),
  });
  q.add("a");
  q.add("a");
  clock.step(7);
  const k = await q.get();
  clock.step(3);
  q.done(k!);
  q.addRateLimited("a");
  assert.equal(seen.adds, 1);
  assert.equal(seen.retries, 1);
  assert.deepEqual(seen.depth, [1, 0]);
  assert.deepEqual(seen.latency, [7]);
  assert.deepEqual(seen.work, [3]);
});
