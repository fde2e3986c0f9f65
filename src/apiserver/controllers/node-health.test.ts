import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { Node, NodeCondition, Taint } from "../../apis/core/v1/types.ts";
import { reconcileTaints, unknownConditions } from "./node-health.ts";

const T0 = Date.UTC(2026, 0, 1);
const node = (conditions: NodeCondition[], taints?: Taint[], unschedulable?: boolean): Node => ({
  metadata: { name: "n", creationTimestamp: "2025-12-31T00:00:00Z" },
  spec: { taints, unschedulable },
  status: { conditions },
});
const ready = (status: NodeCondition["status"]): NodeCondition => ({ type: "Ready", status, reason: "KubeletReady", lastHeartbeatTime: "2025-12-31T23:59:00Z", lastTransitionTime: "2025-12-31T12:00:00Z" });

describe("unknownConditions", () => {
  it("turns the monitored conditions Unknown, keeps heartbeats and adds those never posted", () => {
    const out = unknownConditions(node([ready("True"), { type: "MemoryPressure", status: "False" }, { type: "NetworkUnavailable", status: "False" }]), T0)!;
    const r = out.find((c) => c.type === "Ready")!;
    assert.deepEqual(r, { type: "Ready", status: "Unknown", reason: "NodeStatusUnknown", message: "Kubelet stopped posting node status.", lastHeartbeatTime: "2025-12-31T23:59:00Z", lastTransitionTime: "2026-01-01T00:00:00Z" });
    assert.equal(out.find((c) => c.type === "MemoryPressure")?.status, "Unknown");
    assert.equal(out.find((c) => c.type === "NetworkUnavailable")?.status, "False", "not a monitored condition");
    const disk = out.find((c) => c.type === "DiskPressure")!;
    assert.deepEqual([disk.status, disk.reason, disk.message, disk.lastHeartbeatTime], ["Unknown", "NodeStatusNeverUpdated", "Kubelet never posted node status.", "2025-12-31T00:00:00Z"]);
  });

  it("changes nothing (undefined) when everything is Unknown already", () => {
    const once = unknownConditions(node([ready("True")]), T0)!;
    assert.equal(unknownConditions(node(once), T0 + 5000), undefined);
  });
});

describe("reconcileTaints", () => {
  const keys = (ts: Taint[] | undefined) => ts?.map((t) => `${t.key}:${t.effect}`);
  it("Ready Unknown: unreachable NoSchedule and NoExecute; Ready False: not-ready; with timeAdded", () => {
    assert.deepEqual(keys(reconcileTaints(node([ready("Unknown")]), T0)), ["node.kubernetes.io/unreachable:NoSchedule", "node.kubernetes.io/unreachable:NoExecute"]);
    const out = reconcileTaints(node([ready("False")]), T0)!;
    assert.deepEqual(keys(out), ["node.kubernetes.io/not-ready:NoSchedule", "node.kubernetes.io/not-ready:NoExecute"]);
    assert.ok(out.every((t) => t.timeAdded === "2026-01-01T00:00:00Z"));
  });

  it("swaps not-ready for unreachable and keeps foreign taints", () => {
    const foreign: Taint = { key: "dedicated", value: "gpu", effect: "NoSchedule" };
    const current = [foreign, { key: "node.kubernetes.io/not-ready", effect: "NoSchedule" as const }, { key: "node.kubernetes.io/not-ready", effect: "NoExecute" as const }];
    assert.deepEqual(keys(reconcileTaints(node([ready("Unknown")], current), T0)), ["dedicated:NoSchedule", "node.kubernetes.io/unreachable:NoSchedule", "node.kubernetes.io/unreachable:NoExecute"]);
  });

  it("Ready True removes the controller's taints; nothing to do gives undefined; timeAdded of kept taints stays", () => {
    const t = { key: "node.kubernetes.io/unreachable", effect: "NoSchedule" as const, timeAdded: "2025-01-01T00:00:00Z" };
    assert.deepEqual(reconcileTaints(node([ready("True")], [t, { key: "x", effect: "NoExecute" }]), T0), [{ key: "x", effect: "NoExecute" }]);
    assert.equal(reconcileTaints(node([ready("True")], [{ key: "x", effect: "NoExecute" }]), T0), undefined);
    assert.equal(reconcileTaints(node([ready("Unknown")], [t, { key: "node.kubernetes.io/unreachable", effect: "NoExecute" }]), T0), undefined);
  });

  it("pressure conditions and a cordon add their NoSchedule taints", () => {
    const conditions: NodeCondition[] = [ready("True"), { type: "MemoryPressure", status: "True" }, { type: "DiskPressure", status: "False" }, { type: "PIDPressure", status: "True" }];
    assert.deepEqual(keys(reconcileTaints(node(conditions, [], true), T0)), ["node.kubernetes.io/memory-pressure:NoSchedule", "node.kubernetes.io/pid-pressure:NoSchedule", "node.kubernetes.io/unschedulable:NoSchedule"]);
  });
});
