import assert from "node:assert/strict";
import { describe, it, mock } from "node:test";
import { MAX_TIMEOUT_MS, RealClock } from "./clock.ts";

void describe("RealClock.setTimer", () => {
  void it("does not fire at once for a delay beyond setTimeout's 2^31-1 ms", async () => {
    let fired = false;
    const t = new RealClock().setTimer(2_147_484_000, () => (fired = true));
    await new Promise((r) => setTimeout(r, 30));
    t.cancel();
    assert.equal(fired, false);
  });

  void it("fires a long delay at its time, chained from shorter ones, and cancels at any stage", () => {
    mock.timers.enable({ apis: ["setTimeout"] });
    try {
      const clock = new RealClock();
      const ms = MAX_TIMEOUT_MS * 2 + 5;
      let fired = 0;
      clock.setTimer(ms, () => fired++);
      const cancelled = clock.setTimer(ms, () => fired++);
      mock.timers.tick(MAX_TIMEOUT_MS);
      cancelled.cancel();
      mock.timers.tick(MAX_TIMEOUT_MS);
      assert.equal(fired, 0);
      mock.timers.tick(4);
      assert.equal(fired, 0);
      mock.timers.tick(1);
      assert.equal(fired, 1);
    } finally {
      mock.timers.reset();
    }
  });

  void it("treats NaN and negative delays as 0 and never fires Infinity", () => {
    mock.timers.enable({ apis: ["setTimeout"] });
    try {
      const clock = new RealClock();
      const seen: string[] = [];
      clock.setTimer(Number.NaN, () => seen.push("nan"));
      clock.setTimer(-5, () => seen.push("negative"));
      clock.setTimer(Infinity, () => seen.push("infinity"));
      mock.timers.tick(0);
      mock.timers.tick(MAX_TIMEOUT_MS);
      assert.deepEqual(seen.sort(), ["nan", "negative"]);
    } finally {
      mock.timers.reset();
    }
  });
});
