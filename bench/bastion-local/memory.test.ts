import assert from "node:assert/strict";
import { test } from "node:test";
import { kiBField, machineOf, perBastion, ppidFromStat } from "./memory.ts";

test("kiBField reads kB lines and yields 0 for a missing field", () => {
  const t = "Rss:                2048 kB\nPss:                 512 kB\nPss_Anon:  100 kB\n";
  assert.equal(kiBField(t, "Rss"), 2048);
  assert.equal(kiBField(t, "Pss"), 512);
  assert.equal(kiBField(t, "Swap"), 0);
});

test("ppidFromStat copes with spaces and parentheses in the command", () => {
  assert.equal(ppidFromStat("4242 (a (weird) name) S 17 4242 4242 0 -1"), 17);
});

test("machineOf finds the machine named in a supervisor's command line, only below hostState", () => {
  const cmd = "unshare --fork --pid -- /bin/bash /s/provider/host/machines/shoot--l--l.bastion-x/ctl/stage1 /s/provider/host/machines/shoot--l--l.bastion-x/root";
  assert.equal(machineOf(cmd, "/s/provider/host"), "shoot--l--l.bastion-x");
  assert.equal(machineOf(cmd, "/other/host"), undefined);
});

test("perBastion averages bastion machines with processes only", () => {
  const r = perBastion([
    { name: "ns.bastion-a", processes: 2, rssKiB: 100, pssKiB: 50, upperKiB: 10 },
    { name: "ns.bastion-b", processes: 4, rssKiB: 300, pssKiB: 150, upperKiB: 30 },
    { name: "ns.bastion-gone", processes: 0, rssKiB: 0, pssKiB: 0, upperKiB: 99 },
    { name: "ns.worker-w1", processes: 9, rssKiB: 9000, pssKiB: 9000, upperKiB: 900 },
  ]);
  assert.deepEqual(r, { n: 2, processes: 3, rssKiB: 200, pssKiB: 100, upperKiB: 20 });
});
