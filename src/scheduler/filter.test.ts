import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { Pod, Toleration } from "../apis/core/v1/pod.ts";
import type { Node, Taint } from "../apis/core/v1/types.ts";
import { fitErrorMessage, filterNode, needsScheduling, placePod, podCounts, toleratesTaint, untoleratedTaint } from "./filter.ts";

function node(name: string, o: { ready?: boolean; labels?: Record<string, string>; taints?: Taint[]; unschedulable?: boolean } = {}): Node {
  return {
    metadata: { name, labels: o.labels ?? {} },
    spec: { taints: o.taints, unschedulable: o.unschedulable },
    status: { conditions: [{ type: "Ready", status: o.ready === false ? "False" : "True" }] },
  };
}

function pod(o: { nodeSelector?: Record<string, string>; tolerations?: Toleration[]; nodeName?: string; phase?: string; schedulerName?: string } = {}): Pod {
  return {
    metadata: { name: "p", namespace: "default" },
    spec: { containers: [{ name: "c" }], nodeSelector: o.nodeSelector, tolerations: o.tolerations, nodeName: o.nodeName, schedulerName: o.schedulerName },
    status: { phase: (o.phase ?? "Pending") as "Pending" },
  };
}

const taint = (key: string, value: string | undefined, effect: Taint["effect"]): Taint => ({ key, value, effect });

describe("toleratesTaint (v1 Toleration.ToleratesTaint)", () => {
  const t = taint("k", "v", "NoSchedule");
  const cases: [Toleration, boolean][] = [
    [{ key: "k", operator: "Equal", value: "v", effect: "NoSchedule" }, true],
    [{ key: "k", value: "v" }, true], // operator empty = Equal, effect empty = all
    [{ key: "k", value: "w" }, false],
    [{ key: "k", operator: "Equal" }, false], // value "" != "v"
    [{ key: "k", operator: "Exists" }, true],
    [{ operator: "Exists" }, true], // empty key with Exists: every taint
    [{ operator: "Exists", effect: "NoExecute" }, false],
    [{ key: "other", operator: "Exists" }, false],
    [{ key: "k", operator: "Exists", effect: "NoSchedule" }, true],
    [{ key: "k", operator: "Bogus" as "Exists" }, false],
  ];
  for (const [tol, want] of cases) it(`${JSON.stringify(tol)} -> ${want}`, () => assert.equal(toleratesTaint(tol, t), want));

  it("an Equal toleration without value tolerates a taint without value", () => {
    assert.equal(toleratesTaint({ key: "k", operator: "Equal" }, taint("k", undefined, "NoSchedule")), true);
  });

  it("only NoSchedule and NoExecute taints must be tolerated; the first untolerated one is reported", () => {
    const taints = [taint("soft", "", "PreferNoSchedule"), taint("a", "1", "NoExecute"), taint("b", "2", "NoSchedule")];
    assert.deepEqual(untoleratedTaint(taints, []), taints[1]);
    assert.deepEqual(untoleratedTaint(taints, [{ key: "a", operator: "Exists" }]), taints[2]);
    assert.equal(untoleratedTaint(taints, [{ key: "a", operator: "Exists" }, { key: "b", value: "2" }]), undefined);
  });
});

describe("filterNode", () => {
  it("checks unschedulable, taints, selector, Ready in that order", () => {
    const n = node("n", { unschedulable: true, ready: false, taints: [taint("t", "x", "NoSchedule")] });
    assert.equal(filterNode(pod({ nodeSelector: { a: "b" } }), n), "node(s) were unschedulable");
    const tolUnsched: Toleration = { key: "node.kubernetes.io/unschedulable", operator: "Exists", effect: "NoSchedule" };
    assert.equal(filterNode(pod({ nodeSelector: { a: "b" }, tolerations: [tolUnsched] }), n), "node(s) had untolerated taint {t: x}");
    assert.equal(filterNode(pod({ nodeSelector: { a: "b" }, tolerations: [{ operator: "Exists" }] }), n), "node(s) didn't match Pod's node affinity/selector");
    assert.equal(filterNode(pod({ tolerations: [{ operator: "Exists" }] }), n), "node(s) were not ready");
    assert.equal(filterNode(pod({ nodeSelector: { a: "b" } }), node("m", { labels: { a: "b", c: "d" } })), undefined);
  });

  it("a node without a Ready condition does not fit", () => {
    assert.equal(filterNode(pod(), { metadata: { name: "n" } }), "node(s) were not ready");
  });

  it("an empty taint value prints as {key: }", () => {
    assert.equal(filterNode(pod(), node("n", { taints: [taint("node-role.kubernetes.io/control-plane", undefined, "NoSchedule")] })), "node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }");
  });
});

describe("fitErrorMessage (FitError.Error)", () => {
  it("counts reasons and sorts the entries as strings", () => {
    const reasons = ["node(s) didn't match Pod's node affinity/selector", "node(s) had untolerated taint {k: v}", "node(s) didn't match Pod's node affinity/selector"];
    assert.equal(fitErrorMessage(3, reasons), "0/3 nodes are available: 1 node(s) had untolerated taint {k: v}, 2 node(s) didn't match Pod's node affinity/selector.");
  });

  it("sorts lexicographically, not numerically (as Go's sort.Strings)", () => {
    const reasons = [...Array(10).fill("a"), "b", "b"];
    assert.equal(fitErrorMessage(12, reasons), "0/12 nodes are available: 10 a, 2 b.");
  });

  it("no nodes at all: ErrNoNodesAvailable", () => {
    assert.equal(fitErrorMessage(0, []), "no nodes available to schedule pods");
  });
});

describe("placePod", () => {
  it("prefers the fitting node with the fewest pods, then the smaller name", () => {
    const nodes = [node("c"), node("b"), node("a", { ready: false })];
    assert.deepEqual(placePod(pod(), nodes, new Map([["b", 2], ["c", 1]])), { node: "c" });
    assert.deepEqual(placePod(pod(), nodes, new Map([["b", 1], ["c", 1]])), { node: "b" });
    assert.deepEqual(placePod(pod(), nodes, new Map()), { node: "b" });
  });

  it("reports every node's reason when none fits", () => {
    const nodes = [node("a", { ready: false }), node("b", { taints: [taint("k", "v", "NoExecute")] }), node("c", { labels: { x: "y" } })];
    assert.deepEqual(placePod(pod({ nodeSelector: { x: "z" } }), nodes, new Map()), {
      message: "0/3 nodes are available: 1 node(s) had untolerated taint {k: v}, 2 node(s) didn't match Pod's node affinity/selector.",
    });
  });
});

describe("podCounts and needsScheduling", () => {
  it("counts bound, non-terminal pods per node", () => {
    const counts = podCounts([pod({ nodeName: "a" }), pod({ nodeName: "a", phase: "Succeeded" }), pod({ nodeName: "a", phase: "Failed" }), pod({ nodeName: "b", phase: "Running" }), pod()]);
    assert.deepEqual([...counts], [["a", 1], ["b", 1]]);
  });

  it("schedules unbound pods of the default scheduler (or unset) that are not being deleted or gated", () => {
    assert.equal(needsScheduling(pod()), true);
    assert.equal(needsScheduling(pod({ schedulerName: "default-scheduler" })), true);
    assert.equal(needsScheduling(pod({ schedulerName: "other" })), false);
    assert.equal(needsScheduling(pod({ schedulerName: "other" }), "other"), true);
    assert.equal(needsScheduling(pod({ nodeName: "a" })), false);
    assert.equal(needsScheduling({ ...pod(), metadata: { name: "p", deletionTimestamp: "2026-01-01T00:00:00Z" } }), false);
    const gated = pod();
    gated.spec!.schedulingGates = [{ name: "g" }];
    assert.equal(needsScheduling(gated), false);
  });
});
