import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { type Pumpable, WatchWriter } from "./watch-writer.ts";

const turn = () => new Promise((r) => setImmediate(r));

void describe("WatchWriter", () => {
  void it("writes round-robin, a piece per watch, at most about its budget per event-loop turn", async () => {
    const log: string[] = [];
    const watch = (name: string, pieces: number): Pumpable => ({
      writeOne() {
        log.push(name);
        pieces--;
        return { bytes: 100, more: pieces > 0 };
      },
    });
    const writer = new WatchWriter(250);
    for (const w of [watch("a", 3), watch("b", 1), watch("c", 3)]) writer.wake(w);
    assert.deepEqual(log, [], "nothing is written while the caller runs");
    await turn();
    assert.deepEqual(log, ["a", "b", "c"], "a turn stops once its budget is spent");
    await turn();
    await turn();
    await turn();
    assert.deepEqual(log, ["a", "b", "c", "a", "c", "a", "c"]);
  });

  void it("schedules a watch once however often it is woken, and survives a watch that throws", async () => {
    let n = 0;
    const writer = new WatchWriter();
    const w: Pumpable = { writeOne: () => ({ bytes: 1, more: ++n < 0 }) };
    writer.wake({ writeOne: () => assert.fail("broken connection") });
    writer.wake(w);
    writer.wake(w);
    await turn();
    assert.equal(n, 1);
  });
});
