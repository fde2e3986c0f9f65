import { test } from "node:test";
import assert from "node:assert/strict";
import { FakeClock } from "../utils/clock.ts";
import { Controller } from "./controller.ts";
import { type Request, type Result, TerminalError, terminal } from "./reconcile.ts";
import { ItemExponentialFailureRateLimiter } from "./workqueue/ratelimiter.ts";

/** Lets pending promise callbacks and I/O callbacks run. */
async function settle(rounds = 5): Promise<void> {
  for (let i = 0; i < rounds; i++) await new Promise((r) => setImmediate(r));
}

function newController(clock: FakeClock, reconcile: (req: Request) => Promise<Result | void>, maxConcurrentReconciles = 1) {
  return new Controller(
    { name: "test", clock, maxConcurrentReconciles, rateLimiter: new ItemExponentialFailureRateLimiter(5, 1_000_000) },
    reconcile,
  );
}

test("failures are retried with per-key exponential backoff: 5, 10, 20 ... ms on the clock", async () => {
  const clock = new FakeClock();
  const runs: number[] = [];
  const c = newController(clock, async () => {
    runs.push(clock.nowMs());
    throw new Error("boom");
  });
  await c.start();
  c.enqueue({ name: "a" });
  await settle();
  for (let t = 0; t < 700; t++) {
    clock.step(1);
    await settle(1);
  }
  const gaps = runs.slice(1).map((t, i) => t - runs[i]!);
  assert.deepEqual(gaps.slice(0, 7), [5, 10, 20, 40, 80, 160, 320]);
  await c.stop();
});

test("requeueAfter schedules the key and resets its failure backoff", async () => {
  const clock = new FakeClock();
  const plan: (Result | Error)[] = [new Error("1"), new Error("2"), new Error("3"), { requeueAfterMs: 60_000 }, new Error("4")];
  const runs: number[] = [];
  const c = newController(clock, async () => {
    runs.push(clock.nowMs());
    const next = plan.shift();
    if (next instanceof Error) throw next;
    return next;
  });
  await c.start();
  c.enqueue({ name: "a" });
  await settle();
  for (let i = 0; i < 35; i++) {
    clock.step(1);
    await settle(1);
  }
  assert.equal(runs.length, 4, "three failures (5, 10, 20 ms backoff) then success with requeueAfter");
  assert.equal(c.queue.numRequeues("a"), 0, "requeueAfter forgot the failures");
  clock.step(59_000);
  await settle();
  assert.equal(runs.length, 4, "not before the minute is over");
  clock.step(1_000);
  await settle();
  assert.equal(runs.length, 5);
  assert.equal(runs[4]! - runs[3]!, 60_000);
  clock.step(4);
  await settle();
  assert.equal(runs.length, 5);
  clock.step(1);
  await settle();
  assert.equal(runs.length, 6, "the next failure backs off from 5 ms again");
  await c.stop();
});

test("terminal errors are not retried and reset the backoff", async () => {
  const clock = new FakeClock();
  let runs = 0;
  const c = newController(clock, async () => {
    runs++;
    if (runs === 1) throw new Error("transient");
    throw terminal(new Error("spec.foo is not supported"));
  });
  await c.start();
  c.enqueue({ name: "a" });
  await settle();
  clock.step(5);
  await settle();
  assert.equal(runs, 2);
  clock.step(10_000_000);
  await settle();
  assert.equal(runs, 2, "no retry after a terminal error");
  assert.equal(c.queue.numRequeues("a"), 0);
  assert.equal(c.queue.delayed(), 0);
  c.enqueue({ name: "a" });
  await settle();
  assert.equal(runs, 3, "a new event still reconciles the key");
  await c.stop();
});

test("a terminal error wrapped as a cause is still terminal", async () => {
  const clock = new FakeClock();
  let runs = 0;
  const c = newController(clock, async () => {
    runs++;
    throw new Error("outer", { cause: new TerminalError("inner") });
  });
  await c.start();
  c.enqueue({ name: "a" });
  await settle();
  clock.step(1000);
  await settle();
  assert.equal(runs, 1);
  await c.stop();
});

test("requeue: true goes through the rate limiter", async () => {
  const clock = new FakeClock();
  const runs: number[] = [];
  const c = newController(clock, async () => {
    runs.push(clock.nowMs());
    return runs.length < 3 ? { requeue: true } : {};
  });
  await c.start();
  c.enqueue({ name: "a" });
  await settle();
  clock.step(5);
  await settle();
  clock.step(10);
  await settle();
  assert.deepEqual(runs.map((t) => t - runs[0]!), [0, 5, 15]);
  clock.step(1000);
  await settle();
  assert.equal(runs.length, 3);
  await c.stop();
});

test("one key never runs twice at once, while other keys run in parallel", async () => {
  const clock = new FakeClock();
  const active = new Map<string, number>();
  let maxSameKey = 0;
  let maxTotal = 0;
  const releases: (() => void)[] = [];
  const calls: string[] = [];
  const c = newController(
    clock,
    async (req) => {
      calls.push(req.name);
      active.set(req.name, (active.get(req.name) ?? 0) + 1);
      maxSameKey = Math.max(maxSameKey, active.get(req.name)!);
      maxTotal = Math.max(maxTotal, [...active.values()].reduce((a, b) => a + b, 0));
      await new Promise<void>((r) => releases.push(r));
      active.set(req.name, active.get(req.name)! - 1);
    },
    4,
  );
  await c.start();
  c.enqueue({ name: "a" });
  c.enqueue({ name: "b" });
  await settle();
  c.enqueue({ name: "a" });
  c.enqueue({ name: "a" });
  await settle();
  assert.deepEqual(calls, ["a", "b"], "the second a waits although workers are free");
  for (const r of releases.splice(0)) r();
  await settle();
  assert.deepEqual(calls, ["a", "b", "a"], "a runs once more for the adds made while it ran");
  for (const r of releases.splice(0)) r();
  await settle();
  assert.equal(maxSameKey, 1);
  assert.equal(maxTotal, 2);
  await c.stop();
});

test("stop() waits for a running reconcile and aborts its signal", async () => {
  const clock = new FakeClock();
  let sawAbort = false;
  let release!: () => void;
  const c = new Controller({ name: "t", clock }, async (_req, ctx) => {
    await new Promise<void>((r) => (release = r));
    sawAbort = ctx.signal.aborted;
  });
  await c.start();
  c.enqueue({ name: "a" });
  await settle();
  let stopped = false;
  const stopping = c.stop().then(() => (stopped = true));
  await settle();
  assert.equal(stopped, false);
  release();
  await stopping;
  assert.equal(sawAbort, true);
  c.enqueue({ name: "b" });
  assert.equal(c.queue.len(), 0, "no adds after stop");
});
