import assert from "node:assert/strict";
import { test } from "node:test";
import { cpuDelta, cpuFromStat } from "./cpu.ts";
import { bootLineMs, breakdown } from "./trace.ts";

test("bootLineMs reads init's millisecond boot line and nothing else", () => {
  const log = "2026-11-27T07:13:50.123Z init: booting bastion-b1\n2026-11-27T07:13:50.600Z init: user-data exited with 0\n";
  assert.equal(bootLineMs(log), Date.UTC(2026, 10, 27, 7, 13, 50, 123));
  assert.equal(bootLineMs("no boot line\n"), undefined);
});

test("breakdown: medians since the create and steps from the milestone before that a bastion has", () => {
  const traces = [
    { sent: 1000, "garden: created (response)": 1010, "seed: Processing": 1100, "garden: Ready": 1500 },
    { sent: 2000, "garden: created (response)": 2030, "garden: Ready": 2600 },
    { sent: 3000, "garden: created (response)": 3020, "seed: Processing": 3200, "garden: Ready": 3400 },
  ];
  const rows = breakdown(traces);
  const row = (k: string) => rows.find((r) => r[0] === k);
  assert.deepEqual(row("garden: created (response)")?.slice(1), [20, 20, 30, 3]);
  assert.deepEqual(row("seed: Processing")?.slice(1), [100, 90, 180, 2]);
  // The second bastion has no Processing: its step to Ready is counted from its create response.
  assert.deepEqual(row("garden: Ready")?.slice(1), [500, 400, 570, 3]);
  assert.equal(row("machine: directory"), undefined, "a milestone nobody has is left out");
});

test("cpuFromStat reads utime, stime, cutime and cstime (ticks of 10 ms) after a command with spaces", () => {
  const stat = "4242 (node (main) x) S 1 4242 4242 0 -1 4194560 100 0 0 0 150 50 7 3 20 0 11 0 100 0 0";
  assert.deepEqual(cpuFromStat(stat), { self: 2000, children: 100 });
  const before = new Map([["a", { self: 100, children: 10 }]]);
  const after = new Map([["a", { self: 250, children: 40 }], ["b", { self: 5, children: 0 }]]);
  assert.deepEqual([...cpuDelta(before, after)], [["a", { self: 150, children: 30 }]]);
});
