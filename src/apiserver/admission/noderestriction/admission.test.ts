import assert from "node:assert/strict";
import { beforeEach, describe, it } from "node:test";
import type { KubeObject } from "../../../apis/meta/v1/types.ts";
import { StatusError } from "../../../apimachinery/errors.ts";
import type { AdmissionAttributes } from "../types.ts";
import { FakeClient } from "../../authorization/testing/fake-client.ts";
import { builtinDefinitions } from "../../registry/builtin.ts";
import { NodeRestriction } from "./admission.ts";
import { forbiddenLabels, isKubeletLabel, modifiedLabels } from "./labels.ts";

const defs = builtinDefinitions();
const def = (plural: string) => defs.find((d) => d.plural === plural)!;
const nodeUser = (name: string) => ({ username: `system:node:${name}`, groups: ["system:nodes", "system:authenticated"] });
const podOn = (name: string, nodeName: string, extra: Partial<KubeObject["metadata"]> = {}): KubeObject => ({
  metadata: { name, namespace: "ns", uid: `uid-${name}`, ...extra },
  spec: { nodeName, containers: [{ name: "c", image: "i" }] },
});

function attrs(plural: string, extra: Partial<AdmissionAttributes>): AdmissionAttributes {
  return { operation: "UPDATE", resource: def(plural), subresource: "", namespace: "ns", name: "", user: nodeUser("a"), dryRun: false, ...extra };
}

const plugin = new NodeRestriction();
let client: FakeClient;

async function outcome(a: AdmissionAttributes): Promise<string> {
  try {
    await plugin.validate(a, client);
    return "ok";
  } catch (err) {
    assert.ok(err instanceof StatusError);
    return `${err.code} ${err.message}`;
  }
}

beforeEach(async () => {
  client = new FakeClient();
  await client.create({ group: "", resource: "pods" }, podOn("pa", "a"));
  await client.create({ group: "", resource: "pods" }, podOn("pb", "b"));
  await client.create({ group: "", resource: "nodes" }, { metadata: { name: "a", uid: "node-a-uid" } });
});

describe("NodeRestriction", () => {
  it("leaves other users alone and refuses nodes without a name", async () => {
    assert.equal(await outcome(attrs("nodes", { name: "b", user: { username: "admin", groups: ["system:masters"] } })), "ok");
    assert.equal(await outcome(attrs("nodes", { name: "b", user: { username: "system:node:", groups: ["system:nodes"] } })), '403 nodes "b" is forbidden: could not determine node from user "system:node:"');
  });

  it("lets a node write only its own Node", async () => {
    const node = (name: string, labels?: Record<string, string>, taints?: unknown[]): KubeObject => ({ metadata: { name, labels }, spec: taints ? { taints } : {} });
    assert.equal(await outcome(attrs("nodes", { name: "b", oldObject: node("b"), object: node("b") })), '403 nodes "b" is forbidden: node "a" is not allowed to modify node "b"');
    assert.equal(await outcome(attrs("nodes", { name: "b", subresource: "status", oldObject: node("b"), object: node("b") })), '403 nodes "b" is forbidden: node "a" is not allowed to modify node "b"');
    assert.equal(await outcome(attrs("nodes", { operation: "CREATE", object: node("b") })), '403 nodes "b" is forbidden: node "a" is not allowed to modify node "b"');
    assert.equal(await outcome(attrs("nodes", { operation: "CREATE", name: "a", object: node("a", { "kubernetes.io/hostname": "a", "topology.kubernetes.io/zone": "z", "worker.gardener.cloud/pool": "w" }) })), "ok");
    assert.equal(
      await outcome(attrs("nodes", { operation: "CREATE", name: "a", object: node("a", { "node-restriction.kubernetes.io/trusted": "1", "node-role.kubernetes.io/control-plane": "" }) })),
      '403 nodes "a" is forbidden: node "a" is not allowed to set the following labels: node-restriction.kubernetes.io/trusted, node-role.kubernetes.io/control-plane',
    );
    const old = node("a", { "kubernetes.io/hostname": "a", "node-role.kubernetes.io/worker": "" }, [{ key: "k", effect: "NoSchedule" }]);
    assert.equal(await outcome(attrs("nodes", { name: "a", oldObject: old, object: node("a", { ...old.metadata.labels, "kubelet.kubernetes.io/x": "y", own: "label" }, [{ key: "k", effect: "NoSchedule" }]) })), "ok");
    assert.equal(await outcome(attrs("nodes", { name: "a", oldObject: old, object: node("a", old.metadata.labels, []) })), '403 nodes "a" is forbidden: node "a" is not allowed to modify taints');
    assert.equal(
      await outcome(attrs("nodes", { name: "a", oldObject: old, object: node("a", { "kubernetes.io/hostname": "a" }, [{ key: "k", effect: "NoSchedule" }]) })),
      '403 nodes "a" is forbidden: is not allowed to modify labels: node-role.kubernetes.io/worker',
    );
  });

  it("lets a node update the status of and delete only pods bound to it (the stored pod decides)", async () => {
    const pa = podOn("pa", "a");
    const pb = podOn("pb", "b");
    assert.equal(await outcome(attrs("pods", { name: "pa", subresource: "status", oldObject: pa, object: pa })), "ok");
    assert.equal(
      await outcome(attrs("pods", { name: "pb", subresource: "status", oldObject: pb, object: podOn("pb", "a") })),
      '403 pods "pb" is forbidden: node "a" can only update pod status for pods with spec.nodeName set to itself',
    );
    assert.equal(
      await outcome(attrs("pods", { name: "pa", subresource: "status", oldObject: pa, object: podOn("pa", "a", { labels: { x: "y" } }) })),
      '403 pods "pa" is forbidden: node "a" cannot update labels through pod status',
    );
    assert.equal(await outcome(attrs("pods", { operation: "DELETE", name: "pa", oldObject: pa })), "ok");
    assert.equal(await outcome(attrs("pods", { operation: "DELETE", name: "pb", oldObject: pb })), '403 pods "pb" is forbidden: node "a" can only delete pods with spec.nodeName set to itself');
    assert.equal(await outcome(attrs("pods", { name: "pa", oldObject: pa, object: pa })), '403 pods "pa" is forbidden: unexpected operation "UPDATE", node "a" can only create and delete mirror pods');
    assert.equal(await outcome(attrs("pods", { name: "pa", subresource: "binding", oldObject: pa, object: pa })), `403 pods "pa" is forbidden: unexpected pod subresource "binding", only 'status' and 'eviction' are allowed`);
  });

  it("lets a node create only mirror pods of its own that reference nothing", async () => {
    const owner = { apiVersion: "v1", kind: "Node", name: "a", uid: "node-a-uid", controller: true };
    const mirror = (extra: Partial<KubeObject["metadata"]> = {}, spec: Record<string, unknown> = {}): KubeObject => ({
      metadata: { name: "m", namespace: "ns", annotations: { "kubernetes.io/config.mirror": "hash" }, ownerReferences: [owner], ...extra },
      spec: { nodeName: "a", containers: [{ name: "c", image: "i" }], ...spec },
    });
    const create = (o: KubeObject) => outcome(attrs("pods", { operation: "CREATE", name: "m", object: o }));
    assert.equal(await create(mirror()), "ok");
    assert.equal(await create(mirror({ annotations: {} })), '403 pods "m" is forbidden: pod does not have "kubernetes.io/config.mirror" annotation, node "a" can only create mirror pods');
    assert.equal(await create(mirror({}, { nodeName: "b" })), '403 pods "m" is forbidden: node "a" can only create pods with spec.nodeName set to itself');
    assert.equal(await create(mirror({ ownerReferences: [] })), '403 pods "m" is forbidden: node "a" can only create pods with an owner reference set to itself');
    assert.equal(await create(mirror({ ownerReferences: [{ ...owner, name: "b" }] })), '403 pods "m" is forbidden: node "a" can only create pods with an owner reference set to itself');
    assert.equal(await create(mirror({ ownerReferences: [{ ...owner, controller: false }] })), '403 pods "m" is forbidden: node "a" can only create pods with a controller owner reference set to itself');
    assert.equal(await create(mirror({ ownerReferences: [{ ...owner, uid: "forged" }] })), '403 pods "m" is forbidden: node a UID mismatch: expected forged got node-a-uid');
    assert.equal(await create(mirror({}, { serviceAccountName: "default" })), '403 pods "m" is forbidden: node "a" can not create pods that reference a service account');
    assert.equal(await create(mirror({}, { volumes: [{ name: "s", secret: { secretName: "x" } }] })), '403 pods "m" is forbidden: node "a" can not create pods that reference secrets');
    assert.equal(await create(mirror({}, { volumes: [{ name: "p", projected: { sources: [{ configMap: { name: "x" } }] } }] })), '403 pods "m" is forbidden: node "a" can not create pods that reference configmaps');
  });

  it("lets a node request tokens only bound to a stored pod bound to it", async () => {
    const token = (ref: unknown) => outcome(attrs("serviceaccounts", { operation: "CREATE", subresource: "token", name: "sa", object: { metadata: { name: "sa" }, spec: { boundObjectRef: ref } } }));
    assert.equal(await token({ apiVersion: "v1", kind: "Pod", name: "pa", uid: "uid-pa" }), "ok");
    assert.equal(await token(undefined), '403 serviceaccounts "sa" is forbidden: node requested token not bound to a pod');
    assert.equal(await token({ apiVersion: "v1", kind: "Secret", name: "pa", uid: "uid-pa" }), '403 serviceaccounts "sa" is forbidden: node requested token not bound to a pod');
    assert.equal(await token({ apiVersion: "v1", kind: "Pod", name: "pa" }), '403 serviceaccounts "sa" is forbidden: node requested token with a pod binding without a uid');
    assert.equal(await token({ apiVersion: "v1", kind: "Pod", name: "pb", uid: "uid-pb" }), '403 serviceaccounts "sa" is forbidden: node requested token bound to a pod scheduled on a different node');
    assert.match(await token({ apiVersion: "v1", kind: "Pod", name: "pa", uid: "other" }), /^403 .*the UID in the bound object reference \(other\) does not match/);
    assert.equal(await token({ apiVersion: "v1", kind: "Pod", name: "gone", uid: "u" }), '404 pods "gone" not found');
  });

  it("lets a node touch only its own Lease in kube-node-lease", async () => {
    const lease = (operation: AdmissionAttributes["operation"], name: string, namespace = "kube-node-lease") =>
      outcome(attrs("leases", { operation, namespace, name: operation === "CREATE" ? "" : name, object: { metadata: { name, namespace } } }));
    assert.equal(await lease("CREATE", "a"), "ok");
    assert.equal(await lease("UPDATE", "a"), "ok");
    assert.equal(await lease("CREATE", "b"), '403 leases.coordination.k8s.io "b" is forbidden: can only access node lease with the same name as the requesting node');
    assert.equal(await lease("DELETE", "b"), '403 leases.coordination.k8s.io "b" is forbidden: can only access node lease with the same name as the requesting node');
    assert.equal(await lease("UPDATE", "a", "ns"), '403 leases.coordination.k8s.io "a" is forbidden: can only access leases in the "kube-node-lease" system namespace');
  });
});

describe("node labels", () => {
  it("knows the kubelet's labels and the forbidden ones", () => {
    assert.equal(isKubeletLabel("kubernetes.io/hostname"), true);
    assert.equal(isKubeletLabel("sub.node.kubernetes.io/x"), true);
    assert.equal(isKubeletLabel("node-role.kubernetes.io/x"), false);
    assert.deepEqual(forbiddenLabels(new Set(["a.node-restriction.kubernetes.io/x", "example.com/x", "k8s.io/x", "kubelet.kubernetes.io/y"])), ["a.node-restriction.kubernetes.io/x", "k8s.io/x"]);
    assert.deepEqual([...modifiedLabels({ a: "1", b: "2" }, { b: "3", c: "4" })].sort(), ["a", "b", "c"]);
    assert.deepEqual([...modifiedLabels({ toString: "x" }, {})], ["toString"]);
  });
});
