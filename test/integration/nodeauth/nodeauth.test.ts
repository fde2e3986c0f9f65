// The Node authorizer and NodeRestriction against a real in-process API server with default flags,
// for two nodes whose client certificates come from the server's CA (docs/node-authorization.md):
// each node reads only what its pods use, writes only its own Node, Lease and pods, gets tokens
// only for its pods, and access follows pods as they are deleted and re-created elsewhere.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type Api, type NodeAuthServer, eventOn, expectForbidden, expectOk, startNodeAuthServer } from "./support.ts";

const NS = "work";
const core = (resource: string, name = "") => `/api/v1/namespaces/${NS}/${resource}${name ? `/${name}` : ""}`;
const lease = (name = "") => `/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases${name ? `/${name}` : ""}`;
const NO_RELATION = /no relationship found between node 'a' and this object$/;

function pod(name: string, nodeName: string, serviceAccountName: string, extra: Record<string, unknown> = {}) {
  return { apiVersion: "v1", kind: "Pod", metadata: { name }, spec: { nodeName, serviceAccountName, containers: [{ name: "c", image: "busybox", ...extra }] } };
}

void describe("node authorization", { timeout: 120_000 }, () => {
  let t: NodeAuthServer;
  let a: Api;
  let b: Api;
  const uid = async (name: string) => (await t.admin.get(core("pods", name))).json<{ metadata: { uid: string } }>().metadata.uid;
  const tokenFor = (c: Api, sa: string, boundPod?: { name: string; uid: string }) =>
    c.post(core("serviceaccounts", `${sa}/token`), { apiVersion: "authentication.k8s.io/v1", kind: "TokenRequest", spec: boundPod ? { boundObjectRef: { apiVersion: "v1", kind: "Pod", ...boundPod } } : {} });

  before(async () => {
    t = await startNodeAuthServer();
    a = await t.node("a");
    b = await t.node("b");
    expectOk(await t.admin.post("/api/v1/namespaces", { metadata: { name: NS } }), "namespace");
    for (const name of ["s-a", "s-b", "s-none"]) expectOk(await t.admin.post(core("secrets"), { metadata: { name }, data: { k: "dg==" } }), name);
    expectOk(await t.admin.post(core("configmaps"), { metadata: { name: "cm-a" }, data: { k: "v" } }), "cm-a");
    for (const name of ["sa-a", "sa-b"]) expectOk(await t.admin.post(core("serviceaccounts"), { metadata: { name } }), name);
    const volume = { volumeMounts: [{ name: "s", mountPath: "/s" }], env: [{ name: "K", valueFrom: { configMapKeyRef: { name: "cm-a", key: "k" } } }] };
    const pa = pod("pa", "a", "sa-a", volume);
    expectOk(await t.admin.post(core("pods"), { ...pa, spec: { ...pa.spec, volumes: [{ name: "s", secret: { secretName: "s-a" } }] } }), "pa");
    expectOk(await t.admin.post(core("pods"), pod("pb", "b", "sa-b", { envFrom: [{ secretRef: { name: "s-b" } }] })), "pb");
    expectOk(await t.admin.post(core("pods"), pod("pb2", "b", "sa-a")), "pb2");
    // The pods were created before these reads: the graph has them once the watch delivered them.
    const seen = await t.watchFor("pods", eventOn("ADDED", "pb2"));
    await seen.event;
    for (const [c, name] of [[a, "a"], [b, "b"]] as const) {
      expectOk(await c.post("/api/v1/nodes", { metadata: { name, labels: { "kubernetes.io/hostname": name } } }), `node ${name} registers itself`);
    }
  });
  after(async () => {
    await t?.stop();
  });

  void it("reads the secrets and configmaps its pods use, nothing else, and cannot list them", async () => {
    expectOk(await a.get(core("secrets", "s-a")), "own pod's secret");
    expectOk(await a.get(core("configmaps", "cm-a")), "own pod's configmap");
    expectOk(await b.get(core("secrets", "s-b")), "b's secret for b");
    expectForbidden(await a.get(core("secrets", "s-b")), NO_RELATION, "b's secret");
    expectForbidden(await a.get(core("secrets", "s-none")), NO_RELATION, "unreferenced secret");
    expectForbidden(await a.get(core("secrets")), 'secrets is forbidden: User "system:node:a" cannot list resource "secrets" in API group "" in the namespace "work": No Object name found');
    expectForbidden(await a.get("/api/v1/secrets"), /cannot list resource "secrets" in API group "" at the cluster scope/);
    expectForbidden(await a.put(core("secrets", "s-a"), { metadata: { name: "s-a" }, data: {} }), /can only read resources of this type$/);
  });

  void it("writes only its own Node: not another's, not its status, no restricted labels or taints", async () => {
    expectForbidden(await a.post("/api/v1/nodes", { metadata: { name: "b2" } }), 'nodes "b2" is forbidden: node "a" is not allowed to modify node "b2"');
    expectForbidden(await a.patch("/api/v1/nodes/b", { metadata: { labels: { evil: "1" } } }), 'nodes "b" is forbidden: node "a" is not allowed to modify node "b"');
    expectForbidden(await a.patch("/api/v1/nodes/b/status", { status: { conditions: [] } }), 'nodes "b" is forbidden: node "a" is not allowed to modify node "b"');
    expectForbidden(await a.get("/api/v1/nodes/b"), /node 'a' cannot read 'b', only its own Node object$/);
    expectForbidden(await a.get("/api/v1/nodes"), /node 'a' cannot read all nodes, only its own Node object$/);
    expectOk(await a.get("/api/v1/nodes?fieldSelector=metadata.name%3Da"), "list of its own node by name");
    expectOk(await a.patch("/api/v1/nodes/a", { metadata: { labels: { "topology.kubernetes.io/zone": "z1", "example.com/team": "x" } } }), "kubelet and own labels");
    expectForbidden(await a.patch("/api/v1/nodes/a", { metadata: { labels: { "node-restriction.kubernetes.io/trusted": "yes" } } }), 'nodes "a" is forbidden: is not allowed to modify labels: node-restriction.kubernetes.io/trusted');
    expectForbidden(await a.patch("/api/v1/nodes/a", { spec: { taints: [{ key: "k", effect: "NoSchedule" }] } }), 'nodes "a" is forbidden: node "a" is not allowed to modify taints');
    expectOk(await a.patch("/api/v1/nodes/a/status", { status: { addresses: [{ type: "Hostname", address: "a" }] } }), "own node status");
    expectForbidden(await a.del("/api/v1/nodes/a"), /cannot delete resource "nodes"/);
  });

  void it("reads and writes status of its own pods, deletes only those, and creates no ordinary pods", async () => {
    expectOk(await a.get(core("pods", "pa")), "own pod");
    expectForbidden(await a.get(core("pods", "pb")), NO_RELATION);
    const listed = await a.get("/api/v1/pods?fieldSelector=spec.nodeName%3Da");
    expectOk(listed, "pods on a");
    assert.deepEqual(listed.json<{ items: { metadata: { name: string } }[] }>().items.map((p) => p.metadata.name), ["pa"]);
    expectForbidden(await a.get("/api/v1/pods"), /can only list\/watch pods with spec.nodeName field selector$/);
    expectOk(await a.patch(core("pods", "pa/status"), { status: { phase: "Running" } }), "own pod status");
    expectForbidden(await a.patch(core("pods", "pb/status"), { status: { phase: "Failed" } }), 'pods "pb" is forbidden: node "a" can only update pod status for pods with spec.nodeName set to itself');
    expectForbidden(await a.patch(core("pods", "pa"), { metadata: { labels: { x: "y" } } }), /cannot patch resource "pods"/);
    expectForbidden(await a.del(core("pods", "pb")), 'pods "pb" is forbidden: node "a" can only delete pods with spec.nodeName set to itself');
    expectForbidden(await a.post(core("pods"), pod("sneaky", "a", "sa-a")), 'pods "sneaky" is forbidden: pod does not have "kubernetes.io/config.mirror" annotation, node "a" can only create mirror pods');
    assert.equal((await t.admin.get(core("pods", "pb"))).status, 200, "b's pod is still there");
  });

  void it("keeps its own Lease in kube-node-lease and no other", async () => {
    const body = (name: string, rv?: string) => ({ metadata: { name, ...(rv ? { resourceVersion: rv } : {}) }, spec: { holderIdentity: name, leaseDurationSeconds: 40 } });
    const created = await a.post(lease(), body("a"));
    expectOk(created, "own lease");
    expectOk(await a.put(lease("a"), body("a", created.json<{ metadata: { resourceVersion: string } }>().metadata.resourceVersion)), "renew own lease");
    expectForbidden(await a.post(lease(), body("b")), 'leases.coordination.k8s.io "b" is forbidden: can only access node lease with the same name as the requesting node');
    expectForbidden(await a.get(lease("b")), /can only access node lease with the same name as the requesting node$/);
    expectForbidden(await a.post(`/apis/coordination.k8s.io/v1/namespaces/${NS}/leases`, body("a")), /can only access leases in the "kube-node-lease" system namespace$/);
  });

  void it("gets tokens only for its pods' service accounts, bound to its own pods", async () => {
    const pa = { name: "pa", uid: await uid("pa") };
    const issued = await tokenFor(a, "sa-a", pa);
    expectOk(issued, "token for its pod");
    assert.ok(issued.json<{ status: { token: string } }>().status.token.length > 20);
    expectForbidden(await tokenFor(a, "sa-b", { name: "pb", uid: await uid("pb") }), NO_RELATION, "b's service account");
    expectForbidden(await tokenFor(a, "sa-a"), 'serviceaccounts "sa-a" is forbidden: node requested token not bound to a pod');
    expectForbidden(await tokenFor(a, "sa-a", { name: "pb2", uid: await uid("pb2") }), 'serviceaccounts "sa-a" is forbidden: node requested token bound to a pod scheduled on a different node');
    expectForbidden(await tokenFor(a, "sa-a", { name: "pa", uid: "forged" }), /the UID in the bound object reference \(forged\) does not match/);
  });

  void it("loses access when its pod is deleted, and the node the pod is re-created on gains it", async () => {
    const deleted = await t.watchFor("pods", eventOn("DELETED", "pa"));
    expectOk(await a.del(core("pods", "pa"), { gracePeriodSeconds: 0 }), "a deletes its own pod");
    await deleted.event;
    expectForbidden(await a.get(core("secrets", "s-a")), NO_RELATION, "after the pod is gone");
    expectForbidden(await a.get(core("configmaps", "cm-a")), NO_RELATION);
    expectForbidden(await b.get(core("secrets", "s-a")), /no relationship found between node 'b' and this object$/);

    const rebound = await t.watchFor("pods", eventOn("ADDED", "pa", "b"));
    const again = pod("pa", "b", "sa-a");
    expectOk(await t.admin.post(core("pods"), { ...again, spec: { ...again.spec, volumes: [{ name: "s", secret: { secretName: "s-a" } }] } }), "pa on b");
    await rebound.event;
    expectOk(await b.get(core("secrets", "s-a")), "b reads the secret of its new pod");
    expectForbidden(await a.get(core("secrets", "s-a")), NO_RELATION, "a does not");
    expectForbidden(await tokenFor(a, "sa-a", { name: "pa", uid: await uid("pa") }), NO_RELATION, "nor a token for it");
    expectOk(await tokenFor(b, "sa-a", { name: "pa", uid: await uid("pa") }), "b gets the token");
  });
});
