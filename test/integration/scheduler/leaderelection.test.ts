// Two schedulers with leader election (Lease kube-system/kube-scheduler, as system:kube-scheduler):
// only the leader binds, each pod is bound once, and the standby takes over when the leader stops.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type Lease, Leases } from "../../../src/client/builtins.ts";
import type { Scheduler } from "../../../src/scheduler/app.ts";
import { type Env, addNode, boundNode, createPod, eventsFor, eventually, namespace, startEnv } from "./support.ts";

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

void describe("scheduler leader election", { timeout: 120_000 }, () => {
  let env: Env;
  before(async () => {
    env = await startEnv();
    await namespace(env, "le");
    for (const n of ["le-a", "le-b"]) await addNode(env, n);
  });
  after(async () => {
    await env?.stop();
  });

  async function leaderOf(a: Scheduler, b: Scheduler): Promise<[Scheduler, Scheduler]> {
    for (let i = 0; i < 100; i++) {
      if (a.manager.isLeader() !== b.manager.isLeader()) return a.manager.isLeader() ? [a, b] : [b, a];
      env.clock.step(500);
      await pause(20);
    }
    throw new Error("no single leader");
  }

  void it("binds every pod exactly once, and the standby takes over when the leader stops", async () => {
    const one = await env.startScheduler({ identity: "one" });
    const two = await env.startScheduler({ identity: "two" });
    const [leader, standby] = await leaderOf(one, two);
    const lease: Lease = await env.admin.get(Leases, { namespace: "kube-system", name: "kube-scheduler" });
    assert.ok(["one", "two"].includes(lease.spec?.holderIdentity ?? ""));

    const pods = ["p0", "p1", "p2", "p3", "p4", "p5"];
    for (const p of pods) await createPod(env, "le", p);
    const nodes = await Promise.all(pods.map((p) => boundNode(env, "le", p)));
    assert.deepEqual(nodes.filter((n) => n === "le-a").length, 3, `spread: ${nodes.join(",")}`);
    for (const p of pods) {
      const scheduled = await eventually(`Scheduled event of ${p}`, async () => {
        const e = await eventsFor(env, "le", p, "Scheduled");
        return e.length ? e : undefined;
      });
      assert.equal(scheduled.length, 1, `${p}: one Scheduled event`);
      assert.equal(scheduled[0]!.count, 1);
    }
    assert.equal(standby.manager.isLeader(), false);
    assert.equal(standby.controller.isRunning(), false, "the standby's scheduling controller never started");

    await leader.stop();
    for (let i = 0; i < 100 && !standby.manager.isLeader(); i++) {
      env.clock.step(500);
      await pause(20);
    }
    assert.equal(standby.manager.isLeader(), true);
    await createPod(env, "le", "after");
    assert.ok(["le-a", "le-b"].includes(await boundNode(env, "le", "after")));
  });
});
