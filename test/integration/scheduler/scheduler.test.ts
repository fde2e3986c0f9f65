// The scheduler against a real in-process API server, connected as system:kube-scheduler (so the
// bootstrap ClusterRole is exercised too): spreading by pod count, nodeSelector, taints and
// tolerations, Unschedulable with upstream's exact message and the retry when nodes change.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Pod } from "../../../src/apis/core/v1/pod.ts";
import { Nodes, Pods } from "../../../src/scheduler/scheduler.ts";
import { type Env, addNode, boundNode, createPod, eventsFor, eventually, namespace, podScheduled, podSpec, startEnv } from "./support.ts";

void describe("scheduler", { timeout: 120_000 }, () => {
  let env: Env;
  before(async () => {
    env = await startEnv();
  });
  after(async () => {
    await env?.stop();
  });

  void it("binds each pod to the fitting node with the fewest pods (then the smaller name), with PodScheduled=True and a Scheduled event", async () => {
    await namespace(env, "spread");
    for (const n of ["s-a", "s-b", "s-c"]) await addNode(env, n, { labels: { pool: "spread" } });
    // Already running: two pods on s-a, one on s-b, one finished pod on s-c (does not count).
    await createPod(env, "spread", "old-1", podSpec({ nodeName: "s-a" }));
    await createPod(env, "spread", "old-2", podSpec({ nodeName: "s-a" }));
    await createPod(env, "spread", "old-3", podSpec({ nodeName: "s-b" }));
    await createPod(env, "spread", "done", podSpec({ nodeName: "s-c" }));
    await env.admin.patchStatus(Pods, { namespace: "spread", name: "done" }, { type: "merge", body: { status: { phase: "Succeeded" } } });
    const scheduler = await env.startScheduler();

    const sel = { nodeSelector: { pool: "spread" } };
    await createPod(env, "spread", "p1", podSpec(sel));
    assert.equal(await boundNode(env, "spread", "p1"), "s-c"); // 0 pods
    await createPod(env, "spread", "p2", podSpec(sel));
    assert.equal(await boundNode(env, "spread", "p2"), "s-b"); // s-b 1, s-c 1: the smaller name
    // Three at once: the scheduler counts pods it bound before its cache saw them.
    for (const p of ["p3", "p4", "p5"]) await createPod(env, "spread", p, podSpec(sel));
    const placed = await Promise.all(["p3", "p4", "p5"].map((p) => boundNode(env, "spread", p)));
    assert.deepEqual(placed.sort(), ["s-a", "s-b", "s-c"]);

    const p1: Pod = await env.admin.get(Pods, { namespace: "spread", name: "p1" });
    assert.equal(podScheduled(p1)?.status, "True");
    const events = await eventually("Scheduled event", async () => {
      const e = await eventsFor(env, "spread", "p1", "Scheduled");
      return e.length ? e : undefined;
    });
    assert.equal(events.length, 1);
    assert.equal(events[0]!.message, "Successfully assigned spread/p1 to s-c");
    assert.equal(events[0]!.type, "Normal");
    assert.equal(events[0]!.source?.component, "default-scheduler");
    assert.equal(events[0]!.reportingComponent, "default-scheduler");
    await scheduler.stop();
  });

  void it("leaves pods of another scheduler, and bound pods, alone", async () => {
    await namespace(env, "other");
    const scheduler = await env.startScheduler();
    await createPod(env, "other", "mine", podSpec({ nodeSelector: { pool: "spread" } }));
    await createPod(env, "other", "theirs", podSpec({ nodeSelector: { pool: "spread" }, schedulerName: "my-scheduler" }));
    await boundNode(env, "other", "mine");
    const theirs: Pod = await env.admin.get(Pods, { namespace: "other", name: "theirs" });
    assert.equal(theirs.spec?.nodeName, undefined);
    assert.equal(podScheduled(theirs), undefined);
    assert.deepEqual(await eventsFor(env, "other", "theirs"), []);
    await scheduler.stop();
  });
});

void describe("scheduler: selectors, taints and unschedulable pods", { timeout: 120_000 }, () => {
  let env: Env;
  before(async () => {
    env = await startEnv();
    await namespace(env, "t");
    await env.startScheduler();
  });
  after(async () => {
    await env?.stop();
  });

  const unschedulable = (ns: string, name: string, message: string) =>
    eventually(`${name} Unschedulable: ${message}`, async () => {
      const c = podScheduled(await env.admin.get(Pods, { namespace: ns, name }));
      return c?.status === "False" && c.reason === "Unschedulable" && c.message === message ? c : undefined;
    });

  void it("without nodes: Unschedulable with upstream's message and a FailedScheduling event; binds once a node appears", async () => {
    await createPod(env, "t", "early");
    await unschedulable("t", "early", "no nodes available to schedule pods");
    const failed = await eventually("FailedScheduling", async () => (await eventsFor(env, "t", "early", "FailedScheduling"))[0]);
    assert.equal(failed.type, "Warning");
    assert.equal(failed.message, "no nodes available to schedule pods");

    // A node that does not fit: the message names it; one that fits: the pod is bound at once
    // (the fake clock stands still, so no backoff timer fired: the node events did it).
    await addNode(env, "t-tainted", { labels: { disk: "ssd" }, taints: [{ key: "dedicated", value: "gpu", effect: "NoSchedule" }] });
    await unschedulable("t", "early", "0/1 nodes are available: 1 node(s) had untolerated taint {dedicated: gpu}.");
    await addNode(env, "t-plain", { labels: { disk: "hdd" } });
    assert.equal(await boundNode(env, "t", "early"), "t-plain");
  });

  void it("honours nodeSelector and taints: the exact FitError message, then binding once the pod tolerates the taint", async () => {
    await addNode(env, "t-cordoned", { labels: { disk: "ssd" } });
    await env.admin.patch(Nodes, { name: "t-cordoned" }, { type: "merge", body: { spec: { unschedulable: true } } });
    await addNode(env, "t-notready", { labels: { disk: "ssd" }, ready: false });
    await createPod(env, "t", "ssd", podSpec({ nodeSelector: { disk: "ssd" } }));
    // t-tainted: taint; t-plain: selector; t-cordoned: unschedulable (its taint comes from the node lifecycle
    // controller too, but NodeUnschedulable runs first); t-notready: the lifecycle controller's not-ready taint.
    await unschedulable(
      "t",
      "ssd",
      "0/4 nodes are available: 1 node(s) didn't match Pod's node affinity/selector, 1 node(s) had untolerated taint {dedicated: gpu}, 1 node(s) had untolerated taint {node.kubernetes.io/not-ready: }, 1 node(s) were unschedulable.",
    );
    // Pods may gain tolerations (keeping the defaulted ones): tolerating the taint makes t-tainted fit.
    const before: Pod = await env.admin.get(Pods, { namespace: "t", name: "ssd" });
    const tolerations = [...(before.spec?.tolerations ?? []), { key: "dedicated", operator: "Equal", value: "gpu", effect: "NoSchedule" }];
    await env.admin.patch(Pods, { namespace: "t", name: "ssd" }, { type: "merge", body: { spec: { tolerations } } });
    assert.equal(await boundNode(env, "t", "ssd"), "t-tainted");
    const pod: Pod = await env.admin.get(Pods, { namespace: "t", name: "ssd" });
    assert.equal(podScheduled(pod)?.status, "True");
  });

  void it("an Exists toleration without key tolerates every taint, including the cordon's", async () => {
    await createPod(env, "t", "anywhere", podSpec({ nodeSelector: { disk: "ssd" }, tolerations: [{ operator: "Exists" }] }));
    // t-tainted has one pod, t-cordoned none (t-notready is not Ready): the cordoned node wins.
    assert.equal(await boundNode(env, "t", "anywhere"), "t-cordoned");
  });
});
