import assert from "node:assert/strict";
import { test } from "node:test";
import { FakeClock } from "./clock.ts";
import { advance, pollFor, pollUntil, stepUntil } from "./poll.ts";

test("pollUntil returns the first answer; errors count as not yet", async () => {
  let n = 0;
  const v = await pollUntil("the third call", () => {
    n++;
    if (n === 1) throw new Error("not up");
    return n === 3 ? "yes" : undefined;
  }, { intervalMs: 1 });
  assert.equal(v, "yes");
  assert.equal(n, 3);
});

test("pollUntil times out on its clock and names what it waited for and the last error", async () => {
  const clock = new FakeClock();
  const p = pollUntil("the answer", () => {
    throw new Error("connection refused");
  }, { clock, timeoutMs: 1000, intervalMs: 100 });
  const err = p.catch((e: unknown) => e);
  for (let i = 0; i < 12; i++) {
    await new Promise((r) => setImmediate(r));
    clock.step(100);
  }
  const e = await err;
  assert.ok(e instanceof Error);
  assert.equal(e.message, "timed out after 1000 ms waiting for the answer: connection refused");
});

test("pollFor stops when its signal aborts", async () => {
  const ac = new AbortController();
  const p = pollFor("never", () => false, { intervalMs: 1, signal: ac.signal });
  ac.abort(new Error("stopped"));
  await assert.rejects(p, /stopped/);
});

test("stepUntil settles after every step before it looks, and gives up after maxMs of fake time", async () => {
  const clock = new FakeClock();
  // Something under test: each timer sets off work that ends a few event-loop turns later.
  let busy = false;
  let ticks = 0;
  const arm = (): void => {
    clock.setTimer(100, () => {
      busy = true;
      setTimeout(() => {
        ticks++;
        busy = false;
        arm();
      }, 5);
    });
  };
  arm();
  const settled = (): boolean => !busy;
  const took = await stepUntil(clock, "three ticks", () => ticks >= 3, { stepMs: 50, maxMs: 1000, settled });
  assert.equal(took, 300, "each tick was seen right after the step that set it off");
  await advance(clock, 200, { stepMs: 100, settled });
  assert.equal(ticks, 5);
  await assert.rejects(stepUntil(clock, "never", () => false, { stepMs: 100, maxMs: 300, settled }), /never: not reached within 300 ms of fake time/);
  await assert.rejects(
    stepUntil(clock, "stuck", () => false, { stepMs: 100, maxMs: 300, settled: () => false, settleTimeoutMs: 20 }),
    /timed out after 20 ms waiting for stuck \(settling after a step of the fake clock\)/,
  );
});
