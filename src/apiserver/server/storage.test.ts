import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { pino } from "pino";
import { FakeClock } from "../../utils/clock.ts";
import { SQLiteStorage } from "../storage/sqlite/sqlite.ts";
import { etcdKeyPrefix, startCompaction } from "./storage.ts";
import { pollFor } from "../../utils/poll.ts";

void describe("startCompaction", () => {
  void it("compacts on the interval, keeping the newest revisions", async () => {
    const storage = new SQLiteStorage({ path: ":memory:" });
    const clock = new FakeClock();
    try {
      for (let i = 0; i < 20; i++) await storage.create(`/registry/core/configmaps/n/c${i}`, "{}");
      const c = startCompaction(storage, { intervalMs: 60_000, retainedRevisions: 5, clock, logger: pino({ level: "silent" }) });
      assert.equal(await storage.compactedRevision(), 0);
      clock.step(59_999);
      assert.equal(await storage.compactedRevision(), 0);
      clock.step(1);
      await pollFor("the compaction", async () => (await storage.compactedRevision()) !== 0, { intervalMs: 5 });
      assert.equal(await storage.compactedRevision(), 15);
      // Nothing new to compact: the next pass is a no-op, and a pass is scheduled again.
      assert.equal(await c.runOnce(), undefined);
      assert.equal(clock.pending(), 1);
      c.stop();
      assert.equal(clock.pending(), 0);
    } finally {
      await storage.close();
    }
  });

  void it("never runs with interval 0", () => {
    const clock = new FakeClock();
    const storage = new SQLiteStorage({ path: ":memory:" });
    const c = startCompaction(storage, { intervalMs: 0, retainedRevisions: 5, clock, logger: pino({ level: "silent" }) });
    assert.equal(clock.pending(), 0);
    c.stop();
    return storage.close();
  });
});

void describe("etcdKeyPrefix", () => {
  void it("keeps kube's layout for the default prefix and nests others", () => {
    assert.equal(etcdKeyPrefix("/registry"), "");
    assert.equal(etcdKeyPrefix("/registry/"), "");
    assert.equal(etcdKeyPrefix("/garden"), "/garden");
  });
});
