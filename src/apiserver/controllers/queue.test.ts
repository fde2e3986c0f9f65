import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { FakeClock } from "../../utils/clock.ts";
import { KeyQueue } from "./queue.ts";

describe("KeyQueue", () => {
  it("runs keys one at a time and de-duplicates keys queued while waiting", async () => {
    const clock = new FakeClock();
    const log: string[] = [];
    let release: () => void = () => undefined;
    const q = new KeyQueue(clock, async (key) => {
      log.push(`start ${key}`);
      if (key === "a" && log.length === 1) await new Promise<void>((r) => (release = r));
      log.push(`end ${key}`);
    });
    q.add("a");
    q.add("b");
    q.add("b");
    q.add("a");
    await new Promise((r) => setImmediate(r));
    release();
    await q.idle();
    assert.deepEqual(log, ["start a", "end a", "start b", "end b", "start a", "end a"]);
  });

  it("re-checks after the returned delay and retries failures after retryMs, on the clock", async () => {
    const clock = new FakeClock();
    const calls: string[] = [];
    const errors: string[] = [];
    let n = 0;
    const q = new KeyQueue(
      clock,
      async (key) => {
        calls.push(key);
        n++;
        if (n === 1) return 500;
        if (n === 2) throw new Error("boom");
        return undefined;
      },
      (key, err) => errors.push(`${key}: ${(err as Error).message}`),
      1000,
    );
    q.add("k");
    await q.idle();
    assert.deepEqual(q.waiting(), ["k"]);
    clock.step(499);
    await q.idle();
    assert.equal(calls.length, 1);
    clock.step(1);
    await q.idle();
    assert.equal(calls.length, 2);
    assert.deepEqual(errors, ["k: boom"]);
    clock.step(1000);
    await q.idle();
    assert.equal(calls.length, 3);
    assert.deepEqual(q.waiting(), []);
    q.add("x");
    q.stop();
    await q.idle();
    assert.equal(clock.pending(), 0);
  });
});
