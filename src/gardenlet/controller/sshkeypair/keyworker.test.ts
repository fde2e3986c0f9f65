import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { getPriority } from "node:os";
import { describe, it } from "node:test";
import { keyPairProblem } from "./keypair.ts";
import { keyWorker } from "./keyworker.ts";

/** Nice values of this process's threads. */
function threadNices(): number[] {
  return readdirSync("/proc/self/task").flatMap((tid) => {
    try {
      // Field 19 (nice); the name in field 2 may hold spaces, so count from its closing parenthesis.
      return [Number(readFileSync(`/proc/self/task/${tid}/stat`, "utf8").split(") ")[1]!.split(" ")[16])];
    } catch {
      return [];
    }
  });
}

describe("keyWorker", () => {
  it("generates valid, distinct RSA key pairs on a thread with a lower CPU priority", async () => {
    const mainPriority = getPriority(); // not 0 when the suite itself runs under nice
    const w = keyWorker({ bits: 1024, nice: 7 });
    try {
      assert.ok(!threadNices().includes(7), "no thread of this process runs at nice 7 before");
      const [a, b] = await Promise.all([w.generate(), w.generate()]);
      for (const pair of [a!, b!]) assert.equal(keyPairProblem(pair), undefined);
      assert.notEqual(a!.privateKey, b!.privateKey);
      assert.ok(threadNices().includes(7), "the generating thread runs at nice 7");
      assert.equal(getPriority(), mainPriority, "the main thread keeps its priority");
    } finally {
      await w.stop();
    }
  });

  it("stop fails pending and later generations", async () => {
    const w = keyWorker({ bits: 4096 });
    const pending = assert.rejects(w.generate(), /stopped/);
    await w.stop();
    await pending;
    await assert.rejects(w.generate(), /stopped/);
  });
});
