// Two managers with leader election on one Lease of the real API server: exactly one
// reconciles; the other takes over when the first stops (at once, it hands the lease back), is
// "killed" in-process (it just stops renewing: after the 15 s lease, on the fake clock), or is
// SIGKILLed as a separate process (real time, short lease).
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { join } from "node:path";
import { type Lease, ConfigMaps, Leases } from "../../../src/client/builtins.ts";
import { Client } from "../../../src/client/client.ts";
import { Manager } from "../../../src/controllerruntime/manager.ts";
import { FakeClock, realClock } from "../../../src/utils/clock.ts";
import { repoRoot } from "../../support/apiserver.ts";
import { addMirrorController, mirrorName, sourceConfigMap } from "./sample.ts";
import { type TestServer, advance, ensureNamespace, eventually, startTestServer, stepUntil } from "./support.ts";

let ts: TestServer;
before(async () => {
  ts = await startTestServer("sqlite");
  await ensureNamespace(ts.client, "kube-system");
});
after(async () => {
  await ts?.dispose();
});

function candidate(clock: FakeClock, identity: string, lease: string, releaseOnCancel: boolean) {
  const client = Client.fromKubeconfigFile(ts.kubeconfig, { fieldManager: identity });
  const mgr = new Manager({
    client,
    clock,
    cache: { clock: realClock },
    server: false,
    defaultMetrics: false,
    leaderElection: { namespace: "kube-system", name: lease, identity, releaseOnCancel },
  });
  const { reconciler } = addMirrorController(mgr);
  return { mgr, reconciler, client, identity };
}

async function holder(name: string): Promise<string | undefined> {
  const l: Lease = await ts.client.get(Leases, { namespace: "kube-system", name });
  return l.spec?.holderIdentity;
}

function mirrored(ns: string, name: string): Promise<true> {
  return eventually(`mirror of ${ns}/${name}`, async () => {
    const m = await ts.client.get(ConfigMaps, { namespace: ns, name: mirrorName(name) }).catch(() => undefined);
    return m ? true : undefined;
  });
}

for (const releaseOnCancel of [false, true]) {
  const how = releaseOnCancel ? "stopped (lease handed back)" : "killed (lease left to expire)";
  test(`exactly one of two managers reconciles; the other takes over when the leader is ${how}`, async (t) => {
    const ns = `le-${releaseOnCancel ? "release" : "expire"}`;
    const lease = `mirror-${ns}`;
    await ensureNamespace(ts.client, ns);
    const clock = new FakeClock();
    const a = candidate(clock, "a", lease, releaseOnCancel);
    const b = candidate(clock, "b", lease, releaseOnCancel);
    await Promise.all([a.mgr.start(), b.mgr.start()]);
    try {
      // Settled: every running elector sleeps on the fake clock again (the mirror controllers
      // succeed, so their queues set no timers).
      let electors = 2;
      const settled = (): boolean => clock.pending() >= electors;
      await stepUntil(clock, "a leader", () => a.mgr.isLeader() || b.mgr.isLeader(), { stepMs: 200, maxMs: 10_000, settled });
      const [leader, standby] = a.mgr.isLeader() ? [a, b] : [b, a];
      assert.equal(await holder(lease), leader.identity);

      await ts.client.create(ConfigMaps, sourceConfigMap(ns, "one", { v: "1" }));
      await mirrored(ns, "one");
      // let the renew loop run for a while: the standby must stay a standby
      await advance(clock, 60_000, { stepMs: 1000, settled });
      assert.equal(leader.mgr.isLeader(), true);
      assert.equal(standby.mgr.isLeader(), false);
      assert.ok(leader.reconciler.seen.length > 0);
      assert.equal(standby.reconciler.seen.length, 0, "the standby never reconciles");

      await leader.mgr.stop();
      electors = 1;
      const tookMs = await stepUntil(clock, "takeover", () => standby.mgr.isLeader(), { stepMs: 250, maxMs: 30_000, settled });
      t.diagnostic(`takeover ${tookMs} ms (fake) after the leader was ${how}`);
      if (releaseOnCancel) assert.ok(tookMs <= 2_000 * 2.2 + 250, `takeover after a release took ${tookMs} ms`);
      // The standby counts the 15 s from when it *saw* the last renewal (client-go semantics), and
      // polls every retryPeriod * (1 + up to 1.2 jitter): at most two polls late, never early.
      else assert.ok(tookMs >= 13_000 && tookMs <= 15_000 + 2 * 2_000 * 2.2 + 250, `takeover after the lease expired took ${tookMs} ms`);
      assert.equal(await holder(lease), standby.identity);

      await ts.client.create(ConfigMaps, sourceConfigMap(ns, "two", { v: "2" }));
      await mirrored(ns, "two");
      assert.ok(standby.reconciler.seen.includes(`${ns}/two`));
      assert.ok(!leader.reconciler.seen.includes(`${ns}/two`), "the old leader no longer reconciles");
    } finally {
      await Promise.all([a.mgr.stop(), b.mgr.stop()]);
      a.client.close();
      b.client.close();
    }
  });
}

test("a leader process killed with SIGKILL is replaced within the lease duration", async (t) => {
  const ns = "le-sigkill";
  const lease = "mirror-controller";
  const [leaseMs, renewMs, retryMs] = [3000, 2000, 400];
  await ensureNamespace(ts.client, ns);
  const child = spawn(process.execPath, ["--import", "tsx", join(repoRoot, "test/integration/controllerruntime/manager-child.ts"), ts.kubeconfig, "child", String(leaseMs), String(renewMs), String(retryMs)], {
    cwd: repoRoot,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout.on("data", (d: Buffer) => (out += d.toString()));
  child.stderr.on("data", (d: Buffer) => (out += d.toString()));
  const exited = new Promise<void>((r) => child.once("exit", () => r()));
  t.after(async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    await exited;
  });
  await eventually("the child to lead", () => (out.includes("leading") ? true : undefined), 30_000);

  const client = Client.fromKubeconfigFile(ts.kubeconfig, { fieldManager: "parent" });
  const mgr = new Manager({
    client,
    server: false,
    defaultMetrics: false,
    leaderElection: { namespace: "kube-system", name: lease, identity: "parent", leaseDurationMs: leaseMs, renewDeadlineMs: renewMs, retryPeriodMs: retryMs },
  });
  const { reconciler } = addMirrorController(mgr);
  await mgr.start();
  try {
    await ts.client.create(ConfigMaps, sourceConfigMap(ns, "one", { v: "1" }));
    await mirrored(ns, "one");
    assert.match(out, /reconciled le-sigkill\/one/);
    assert.equal(reconciler.seen.length, 0, "the standby parent never reconciles");

    child.kill("SIGKILL");
    await exited;
    const killedAt = Date.now();
    await mgr.elected();
    const took = Date.now() - killedAt;
    t.diagnostic(`takeover ${took} ms after SIGKILL (lease ${leaseMs} ms, retry ${retryMs} ms)`);
    assert.ok(took <= leaseMs + 2 * retryMs * 2.2 + 1000, `took over ${took} ms after the kill (lease ${leaseMs} ms)`);
    assert.equal(await holder(lease), "parent");
    await ts.client.create(ConfigMaps, sourceConfigMap(ns, "two", { v: "2" }));
    await mirrored(ns, "two");
    assert.ok(reconciler.seen.includes(`${ns}/two`));
  } finally {
    await mgr.stop();
    client.close();
  }
});

test("a leader whose lease is taken away steps down after the renew deadline, and its manager stops with an error", async (t) => {
  const ns = "le-stolen";
  const lease = "mirror-stolen";
  await ensureNamespace(ts.client, ns);
  const clock = new FakeClock();
  const a = candidate(clock, "a", lease, true);
  await a.mgr.start();
  try {
    // Settled: a's elector sleeps on the fake clock again, or it has stepped down (and ended).
    let led = false;
    const settled = (): boolean => {
      led ||= a.mgr.isLeader();
      return clock.pending() >= 1 || (led && !a.mgr.isLeader());
    };
    await stepUntil(clock, "a leads", () => a.mgr.isLeader(), { stepMs: 200, maxMs: 10_000, settled });
    // Someone else writes itself into the lease (as after a split brain or a manual edit) and keeps it fresh.
    const steal = async (): Promise<void> => {
      const l = await ts.client.get(Leases, { namespace: "kube-system", name: lease });
      await ts.client.update(Leases, { ...l, spec: { ...l.spec, holderIdentity: "intruder", renewTime: new Date(clock.nowMs()).toISOString() } });
    };
    await steal();
    let lastSteal = clock.nowMs();
    const tookMs = await stepUntil(
      clock,
      "a steps down",
      async () => {
        if (clock.nowMs() - lastSteal >= 1000) {
          await steal().catch(() => undefined);
          lastSteal = clock.nowMs();
        }
        return !a.mgr.isLeader();
      },
      { stepMs: 250, maxMs: 30_000, settled },
    );
    t.diagnostic(`stepped down ${tookMs} ms (fake) after the lease was taken`);
    assert.ok(tookMs >= 10_000 && tookMs <= 10_000 + 2 * 2_000 + 500, `stepped down after ${tookMs} ms (renew deadline 10 s)`);
    await assert.rejects(a.mgr.done(), /leader election lost/);
    assert.equal(await holder(lease), "intruder", "a stepped down without overwriting the new holder");
  } finally {
    await a.mgr.stop();
    a.client.close();
  }
});
