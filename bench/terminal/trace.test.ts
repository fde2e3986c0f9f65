import { test } from "node:test";
import assert from "node:assert/strict";
import type { Pod } from "../../src/apis/core/v1/pod.ts";
import type { Terminal } from "../../src/apis/dashboard/v1alpha1/types.ts";
import { breakdown, podMilestones, terminalMilestones } from "./trace.ts";

test("a Terminal's milestones follow its status: started, attach ServiceAccount, pod name, Succeeded only with the pod", () => {
  const t = (status: Terminal["status"]) => ({ metadata: { name: "t" }, spec: {}, status }) as unknown as Terminal;
  assert.deepEqual(terminalMilestones(t(undefined)), ["garden: Terminal created"]);
  assert.deepEqual(terminalMilestones(t({ lastOperation: { type: "Reconcile", state: "Processing", description: "", lastUpdateTime: "" }, attachServiceAccountName: "a" })), ["garden: Terminal created", "tcm: reconcile started", "tcm: attach SA (status)"]);
  // a Succeeded of an earlier reconcile without a pod yet is no readiness
  assert.ok(!terminalMilestones(t({ lastOperation: { type: "Reconcile", state: "Succeeded", description: "", lastUpdateTime: "" } })).includes("tcm: Succeeded (ready)"));
  assert.ok(terminalMilestones(t({ lastOperation: { type: "Reconcile", state: "Succeeded", description: "", lastUpdateTime: "" }, podName: "p", attachServiceAccountName: "a" })).includes("tcm: Succeeded (ready)"));
});

test("a pod's milestones: bound, the init container running then done, the terminal container running then ready", () => {
  const pod = { metadata: {}, spec: { nodeName: "w1" }, status: { initContainerStatuses: [{ name: "setup", state: { terminated: { exitCode: 1 } } }], containerStatuses: [{ name: "terminal", ready: false, state: { waiting: {} } }] } } as unknown as Pod;
  assert.deepEqual(podMilestones(pod), ["host: pod created", "host: pod bound", "host: init container running"]);
  const running = { ...pod, status: { initContainerStatuses: [{ name: "setup", state: { terminated: { exitCode: 0 } } }], containerStatuses: [{ name: "terminal", ready: true, state: { running: {} } }] } } as unknown as Pod;
  assert.deepEqual(podMilestones(running), ["host: pod created", "host: pod bound", "host: init container running", "host: init container done", "host: container running", "host: container ready (status)"]);
});

test("the breakdown measures from each pane's first milestone and steps from the previous one present", () => {
  const rows = breakdown([
    { "create sent": 1000, "garden: Terminal created": 1100, "tcm: Succeeded (ready)": 1500, "fetch answered": 2000 },
    { click: 5000, "create sent": 5050, "tcm: Succeeded (ready)": 5700, "fetch answered": 6000 },
  ]);
  assert.deepEqual(rows[0], ["milestone", "since start p50 ms", "step p50 ms", "step p95 ms", "n"]);
  const byName = new Map(rows.slice(1).map((r) => [r[0], r.slice(1)]));
  assert.deepEqual(byName.get("click"), [0, NaN, NaN, 1]);
  assert.deepEqual(byName.get("create sent"), [0, 50, 50, 2]);
  // the second pane's Terminal creation was not seen: its step is from create sent
  assert.deepEqual(byName.get("tcm: Succeeded (ready)"), [500, 400, 650, 2]);
  assert.deepEqual(byName.get("fetch answered"), [1000, 300, 500, 2]);
  assert.equal(byName.has("host: pod bound"), false);
});
