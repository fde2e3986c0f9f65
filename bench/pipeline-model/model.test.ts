import assert from "node:assert/strict";
import { test } from "node:test";
import { measureAlternating } from "./measure.ts";
import { startModel } from "./model.ts";

test("the model answers every request in each arrangement, and the work thread's CPU is its own", async () => {
  const servers = [await startModel({ workUs: 300, split: false, syncs: 1, perTurn: 4 }), await startModel({ workUs: 600, split: true, syncs: 2, perTurn: 4 })];
  try {
    await measureAlternating(servers, 4, 1, 400); // warm: TLS, JIT
    const [inline, split] = await measureAlternating(servers, 4, 1, 1000);
    for (const f of [inline!, split!]) assert.ok(f.opsPerSec > 10, `requests/s ${f.opsPerSec}`);
    // Each request burns its work on the thread that does it: 300 µs inline, 600 µs split.
    assert.ok(inline!.cpuUsPerOp >= 300, `inline CPU per request ${inline!.cpuUsPerOp} µs`);
    assert.equal(inline!.workBusy, 0);
    // Split, the work thread (found by its own thread id) carries the work, the serving thread not.
    const perOp = (busy: number) => (busy / split!.opsPerSec) * 1e6;
    assert.ok(perOp(split!.workBusy) >= 550, `work thread ${perOp(split!.workBusy)} µs per request`);
    assert.ok(perOp(split!.mainBusy) < perOp(split!.workBusy), `serving thread ${perOp(split!.mainBusy)} µs per request`);
  } finally {
    for (const s of servers) await s.stop();
  }
});
