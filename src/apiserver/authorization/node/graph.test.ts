import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { KubeObject } from "../../../apis/meta/v1/types.ts";
import { NodeGraph } from "./graph.ts";

const pod = (name: string, nodeName: string | undefined, secrets: string[], extra: Record<string, unknown> = {}): KubeObject => ({
  metadata: { name, namespace: "ns", uid: `uid-${name}` },
  spec: { nodeName, serviceAccountName: "sa", containers: [{ name: "c" }], volumes: secrets.map((s, i) => ({ name: `v${i}`, secret: { secretName: s } })), ...extra },
});

describe("node graph", () => {
  it("relates a bound pod's references to its node only", () => {
    const g = new NodeGraph();
    g.setPod(pod("a1", "a", ["shared", "only-a"]));
    g.setPod(pod("b1", "b", ["shared"]));
    assert.equal(g.relates("secret", "ns", "shared", "a"), true);
    assert.equal(g.relates("secret", "ns", "shared", "b"), true);
    assert.equal(g.relates("secret", "ns", "only-a", "a"), true);
    assert.equal(g.relates("secret", "ns", "only-a", "b"), false);
    assert.equal(g.relates("secret", "other", "only-a", "a"), false, "namespaces are part of the identity");
    assert.equal(g.relates("configmap", "ns", "only-a", "a"), false, "types are part of the identity");
    assert.equal(g.relates("serviceaccount", "ns", "sa", "b"), true);
    assert.equal(g.nodeOfPod("ns", "a1"), "a");
  });

  it("leaves unbound pods out and counts references, so access ends with the last pod", () => {
    const g = new NodeGraph();
    g.setPod(pod("pending", undefined, ["s"]));
    assert.equal(g.relates("secret", "ns", "s", "a"), false);
    assert.equal(g.podCount, 0);
    g.setPod(pod("p1", "a", ["s", "s"]));
    g.setPod(pod("p2", "a", ["s"]));
    g.removePod("ns", "p1");
    assert.equal(g.relates("secret", "ns", "s", "a"), true, "p2 still references it");
    g.removePod("ns", "p2");
    assert.equal(g.relates("secret", "ns", "s", "a"), false);
    assert.equal(g.referenceCount, 0, "nothing is left behind");
  });

  it("replaces a pod's references on update and follows a pod recreated on another node", () => {
    const g = new NodeGraph();
    g.setPod(pod("p", "a", ["old"]));
    g.setPod(pod("p", "a", ["new"]));
    assert.equal(g.relates("secret", "ns", "old", "a"), false);
    assert.equal(g.relates("secret", "ns", "new", "a"), true);
    g.removePod("ns", "p");
    g.setPod(pod("p", "b", ["new"]));
    assert.equal(g.relates("secret", "ns", "new", "a"), false);
    assert.equal(g.relates("secret", "ns", "new", "b"), true);
    assert.equal(g.nodeOfPod("ns", "p"), "b");
  });

  it("replacePods drops what a relist no longer has", () => {
    const g = new NodeGraph();
    g.setPod(pod("gone", "a", ["x"]));
    g.replacePods([pod("kept", "a", ["y"])]);
    assert.equal(g.relates("secret", "ns", "x", "a"), false);
    assert.equal(g.relates("secret", "ns", "y", "a"), true);
    assert.equal(g.podCount, 1);
  });

  it("relates a volume through the claim its claimRef names", () => {
    const g = new NodeGraph();
    g.setPod(pod("p", "a", [], { volumes: [{ name: "d", persistentVolumeClaim: { claimName: "data" } }] }));
    g.setVolume({ metadata: { name: "pv1" }, spec: { claimRef: { namespace: "ns", name: "data" } } });
    g.setVolume({ metadata: { name: "pv2" }, spec: { claimRef: { namespace: "ns", name: "other" } } });
    assert.equal(g.relates("persistentvolumeclaim", "ns", "data", "a"), true);
    assert.equal(g.relatesVolume("pv1", "a"), true);
    assert.equal(g.relatesVolume("pv1", "b"), false);
    assert.equal(g.relatesVolume("pv2", "a"), false);
    g.setVolume({ metadata: { name: "pv1" }, spec: {} });
    assert.equal(g.relatesVolume("pv1", "a"), false, "a released volume loses its edge");
  });

  it("notifies listeners of every change", () => {
    const g = new NodeGraph();
    let n = 0;
    const off = g.onChange(() => n++);
    g.setPod(pod("p", "a", []));
    g.removePod("ns", "p");
    off();
    g.setPod(pod("p", "a", []));
    assert.equal(n, 2);
  });
});
