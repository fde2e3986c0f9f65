// A machine supervisor that no record names (its starter killed between starting and recording it) is
// still the machine's: stopping the machine, alone or in a batch, kills every supervisor process of its
// directory, so chaos on provider-local leaves no process behind.
import { after, describe, test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { join } from "node:path";
import { isAlive, ref, waitGone, type ProcessRef } from "../../../src/host/procs.ts";
import { cleanUpAndAssertNoLeaks, newTestHost, skipUnlessRoot, type TestHost } from "./support.ts";

/** A process with a supervisor's command line for the machine directory, as an unrecorded supervisor has. */
function strayFor(machineDir: string): ProcessRef {
  const child = spawn("unshare", ["--fork", "--", "/bin/bash", "-c", "sleep 600", "ctl/stage1", join(machineDir, "ctl", "stage1"), "stray"], { detached: true, stdio: "ignore" });
  child.unref();
  const r = ref(child.pid!);
  assert.ok(r, "the stray supervisor runs");
  return r;
}

describe("host e2e: supervisors no record names", { skip: skipUnlessRoot, timeout: 120_000 }, () => {
  let t: TestHost | undefined;
  after(() => cleanUpAndAssertNoLeaks(t));

  test("stopMachine and sweep's batch kill a machine's unrecorded supervisor too", async () => {
    t = await newTestHost();
    const { host } = t;
    const strays: ProcessRef[] = [];
    for (const name of ["one", "b1", "b2"]) {
      const m = await host.startMachine({ name, owner: `bastion/${name}`, networks: [] });
      t.tracker.netns(m.netns);
      t.tracker.pidnsOf(m.init!.pid);
      strays.push(strayFor(join(t.stateDir, "machines", name)));
    }
    await host.stopMachine("one");
    assert.equal(await waitGone([strays[0]!]), true, "stopMachine killed the unrecorded supervisor");
    assert.equal(isAlive(strays[1]!) && isAlive(strays[2]!), true, "other machines' supervisors untouched");
    const report = await host.sweep({ keep: () => false });
    assert.deepEqual(report.failed, []);
    assert.equal(await waitGone(strays.slice(1)), true, "the batch teardown killed the unrecorded supervisors");
  });
});
