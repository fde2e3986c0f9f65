// Node lifecycle in the API server, on its fake clock: a node whose kubelet stops renewing its
// Lease is marked Unknown and tainted unreachable after the grace period (not before), the
// scheduler places new pods elsewhere, and the taints go when the kubelet reports Ready again.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Node } from "../../../src/apis/core/v1/types.ts";
import { Nodes } from "../../../src/scheduler/scheduler.ts";
import { type Env, addNode, boundNode, createPod, eventually, lifecycleHandledEarlierEvents, namespace, podSpec, postReady, renewLease, startEnv } from "./support.ts";

void describe("node lifecycle", { timeout: 120_000 }, () => {
  let env: Env;
  before(async () => {
    env = await startEnv({ gracePeriod: "40s" });
    await namespace(env, "lc");
    await env.startScheduler();
  });
  after(async () => {
    await env?.stop();
  });

  const getNode = (name: string): Promise<Node> => env.admin.get(Nodes, { name });
  const ready = (n: Node) => n.status?.conditions?.find((c) => c.type === "Ready");
  const taintKeys = (n: Node) => (n.spec?.taints ?? []).map((t) => `${t.key}:${t.effect}`).sort();

  /** Lets `ms` of fake time pass in 5 s steps; the kubelet of `alive` renews its Lease at every step. */
  async function pass(ms: number, alive: string): Promise<void> {
    for (let t = 0; t < ms; t += 5_000) {
      env.clock.step(5_000);
      await renewLease(env, alive);
    }
  }

  void it("marks a silent node Unknown and unreachable after the grace period; new pods go elsewhere; Ready again removes the taints", async () => {
    await addNode(env, "lc-a");
    await addNode(env, "lc-b");
    // lc-b is busier, so while both are healthy lc-a is preferred.
    await createPod(env, "lc", "busy", podSpec({ nodeName: "lc-b" }));
    await createPod(env, "lc", "first");
    assert.equal(await boundNode(env, "lc", "first"), "lc-a");

    await pass(35_000, "lc-b");
    // lc-a is looked at now (a label change queues it), and that look is over before the check.
    await env.admin.patch(Nodes, { name: "lc-a" }, { type: "merge", body: { metadata: { labels: { probe: "35s" } } } });
    await lifecycleHandledEarlierEvents(env, "lc-probe");
    assert.equal(ready(await getNode("lc-a"))?.status, "True", "35 s of silence is within the grace period");
    assert.deepEqual(taintKeys(await getNode("lc-a")), []);

    await pass(10_000, "lc-b");
    const a = await eventually("lc-a Unknown", async () => {
      const n = await getNode("lc-a");
      return ready(n)?.status === "Unknown" && taintKeys(n).length === 2 ? n : undefined;
    });
    assert.equal(ready(a)?.reason, "NodeStatusUnknown");
    assert.equal(ready(a)?.message, "Kubelet stopped posting node status.");
    assert.deepEqual(taintKeys(a), ["node.kubernetes.io/unreachable:NoExecute", "node.kubernetes.io/unreachable:NoSchedule"]);
    for (const type of ["MemoryPressure", "DiskPressure", "PIDPressure"]) {
      const c = a.status?.conditions?.find((x) => x.type === type);
      assert.equal(c?.status, "Unknown");
      assert.equal(c?.reason, "NodeStatusNeverUpdated");
    }
    assert.ok(a.spec?.taints?.every((t) => t.timeAdded), "taints carry timeAdded");
    const b = await getNode("lc-b");
    assert.equal(ready(b)?.status, "True");
    assert.deepEqual(taintKeys(b), []);
    // The pod bound to lc-a stays (no eviction).
    assert.equal(await boundNode(env, "lc", "first"), "lc-a");

    await createPod(env, "lc", "second");
    assert.equal(await boundNode(env, "lc", "second"), "lc-b");

    // The kubelet is back: Lease and Ready; the controller's taints go.
    await renewLease(env, "lc-a");
    await postReady(env, "lc-a");
    await eventually("lc-a untainted", async () => (taintKeys(await getNode("lc-a")).length === 0 ? true : undefined));
    assert.equal(ready(await getNode("lc-a"))?.status, "True");
  });

  void it("a node whose kubelet reports Ready=False gets the not-ready taints at once", async () => {
    await addNode(env, "lc-sick", { ready: false });
    const n = await eventually("not-ready taints", async () => {
      const node = await getNode("lc-sick");
      return taintKeys(node).length === 2 ? node : undefined;
    });
    assert.deepEqual(taintKeys(n), ["node.kubernetes.io/not-ready:NoExecute", "node.kubernetes.io/not-ready:NoSchedule"]);
    await postReady(env, "lc-sick", true);
    await eventually("not-ready taints gone", async () => (taintKeys(await getNode("lc-sick")).length === 0 ? true : undefined));
  });
});
