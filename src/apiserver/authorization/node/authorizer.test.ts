import assert from "node:assert/strict";
import { afterEach, beforeEach, describe, it } from "node:test";
import type { KubeObject } from "../../../apis/meta/v1/types.ts";
import { FakeClock } from "../../../utils/clock.ts";
import { FakeClient } from "../testing/fake-client.ts";
import type { AuthorizationAttributes } from "../types.ts";
import { NodeAuthorizer, selectsField } from "./authorizer.ts";

const PODS = { group: "", resource: "pods" };
const nodeUser = (name: string) => ({ username: `system:node:${name}`, groups: ["system:nodes", "system:authenticated"] });
const pod = (name: string, nodeName: string, secret: string): KubeObject => ({
  metadata: { name, namespace: "ns" },
  spec: { nodeName, serviceAccountName: `sa-${name}`, containers: [{ name: "c", envFrom: [{ configMapRef: { name: `cm-${name}` } }] }], volumes: [{ name: "s", secret: { secretName: secret } }] },
});

function req(verb: string, resource: string, extra: Partial<AuthorizationAttributes> = {}): AuthorizationAttributes {
  return { user: nodeUser("a"), verb, resourceRequest: true, apiGroup: "", apiVersion: "v1", resource, namespace: "ns", ...extra };
}

let client: FakeClient;
let authz: NodeAuthorizer;

beforeEach(async () => {
  client = new FakeClient();
  await client.create(PODS, pod("pa", "a", "secret-a"));
  await client.create(PODS, pod("pb", "b", "secret-b"));
  authz = new NodeAuthorizer(client, { clock: new FakeClock() });
  await authz.start();
});
afterEach(() => authz.stop());

async function decide(a: AuthorizationAttributes): Promise<[string, string]> {
  const r = await authz.authorize(a);
  return [r.decision, r.reason];
}
const NO_RELATION = ["noOpinion", "no relationship found between node 'a' and this object"];

describe("node authorizer", () => {
  it("has no opinion on users that are not nodes, and refuses nodes without a name", async () => {
    assert.deepEqual(await decide(req("get", "secrets", { name: "secret-a", user: { username: "system:node:a", groups: ["system:authenticated"] } })), ["noOpinion", ""]);
    assert.deepEqual(await decide(req("get", "secrets", { name: "secret-a", user: { username: "alice", groups: ["system:nodes"] } })), ["noOpinion", ""]);
    assert.deepEqual(await decide(req("get", "nodes", { name: "a", user: { username: "system:node:", groups: ["system:nodes"] } })), ["noOpinion", 'unknown node for user "system:node:"']);
  });

  it("allows reading the secrets and configmaps of its own pods only, one object at a time", async () => {
    assert.deepEqual(await decide(req("get", "secrets", { name: "secret-a" })), ["allow", ""]);
    assert.deepEqual(await decide(req("watch", "secrets", { name: "secret-a" })), ["allow", ""]);
    assert.deepEqual(await decide(req("get", "configmaps", { name: "cm-pa" })), ["allow", ""]);
    assert.deepEqual(await decide(req("get", "secrets", { name: "secret-b" })), NO_RELATION);
    assert.deepEqual(await decide(req("get", "configmaps", { name: "cm-pb" })), NO_RELATION);
    assert.deepEqual(await decide(req("get", "secrets", { name: "unreferenced" })), NO_RELATION);
    assert.deepEqual(await decide(req("list", "secrets")), ["noOpinion", "No Object name found"]);
    assert.deepEqual(await decide(req("list", "secrets", { namespace: undefined })), ["noOpinion", "can only read namespaced object of this type"]);
    for (const verb of ["create", "update", "patch", "delete"]) {
      assert.deepEqual(await decide(req(verb, "secrets", { name: "secret-a" })), ["noOpinion", "can only read resources of this type"], verb);
    }
  });

  it("follows pods as they come and go", async () => {
    await client.create(PODS, pod("pa2", "a", "secret-new"));
    assert.deepEqual(await decide(req("get", "secrets", { name: "secret-new" })), ["allow", ""]);
    await client.delete(PODS, "ns", "pa2");
    assert.deepEqual(await decide(req("get", "secrets", { name: "secret-new" })), NO_RELATION);
  });

  it("allows tokens only for its pods' service accounts", async () => {
    assert.deepEqual(await decide(req("create", "serviceaccounts", { name: "sa-pa", subresource: "token" })), ["allow", ""]);
    assert.deepEqual(await decide(req("create", "serviceaccounts", { name: "sa-pb", subresource: "token" })), NO_RELATION);
    assert.deepEqual(await decide(req("get", "serviceaccounts", { name: "sa-pa" })), ["noOpinion", "can only create tokens for individual service accounts"]);
    assert.deepEqual(await decide(req("create", "serviceaccounts", { name: "sa-pa" })), ["noOpinion", "can only create token subresource of serviceaccount"]);
  });

  it("confines leases to its own in kube-node-lease (create: NodeRestriction checks the name)", async () => {
    const lease = (verb: string, extra: Partial<AuthorizationAttributes> = {}) => req(verb, "leases", { apiGroup: "coordination.k8s.io", namespace: "kube-node-lease", ...extra });
    for (const verb of ["get", "update", "patch", "delete"]) assert.deepEqual(await decide(lease(verb, { name: "a" })), ["allow", ""], verb);
    assert.deepEqual(await decide(lease("create")), ["allow", ""]);
    assert.deepEqual(await decide(lease("get", { name: "b" })), ["noOpinion", "can only access node lease with the same name as the requesting node"]);
    assert.deepEqual(await decide(lease("get", { name: "a", namespace: "ns" })), ["noOpinion", 'can only access leases in the "kube-node-lease" system namespace']);
    assert.deepEqual(await decide(lease("list")), ["noOpinion", "can only get, create, update, patch, or delete a node lease"]);
  });

  it("reads only its own Node, and leaves writes of Nodes to NodeRestriction", async () => {
    const node = (verb: string, extra: Partial<AuthorizationAttributes> = {}) => req(verb, "nodes", { namespace: undefined, ...extra });
    assert.deepEqual(await decide(node("get", { name: "a" })), ["allow", ""]);
    assert.deepEqual(await decide(node("watch", { name: "a" })), ["allow", ""]);
    assert.deepEqual(await decide(node("get", { name: "b" })), ["noOpinion", "node 'a' cannot read 'b', only its own Node object"]);
    assert.deepEqual(await decide(node("list")), ["noOpinion", "node 'a' cannot read all nodes, only its own Node object"]);
    for (const verb of ["create", "update", "patch"]) assert.deepEqual(await decide(node(verb, { name: "b" })), ["allow", ""]);
    assert.deepEqual(await decide(node("patch", { name: "b", subresource: "status" })), ["allow", ""]);
    assert.deepEqual(await decide(node("delete", { name: "a" })), ["noOpinion", ""]);
  });

  it("reads its own pods (by name or spec.nodeName selector) and leaves writes to NodeRestriction", async () => {
    assert.deepEqual(await decide(req("get", "pods", { name: "pa" })), ["allow", ""]);
    assert.deepEqual(await decide(req("get", "pods", { name: "pb" })), NO_RELATION);
    assert.deepEqual(await decide(req("list", "pods", { namespace: undefined, fieldSelector: "spec.nodeName=a" })), ["allow", ""]);
    assert.deepEqual(await decide(req("watch", "pods", { namespace: undefined, fieldSelector: "spec.nodeName=b" })), ["noOpinion", "can only list/watch pods with spec.nodeName field selector"]);
    assert.deepEqual(await decide(req("list", "pods", { namespace: undefined })), ["noOpinion", "can only list/watch pods with spec.nodeName field selector"]);
    for (const [verb, sub] of [["create", ""], ["delete", ""], ["patch", "status"], ["update", "status"], ["create", "eviction"]] as const) {
      assert.deepEqual(await decide(req(verb, "pods", { name: "pb", subresource: sub })), ["allow", ""], `${verb} ${sub}`);
    }
    assert.deepEqual(await decide(req("update", "pods", { name: "pa" })), ["noOpinion", ""]);
    assert.deepEqual(await decide(req("create", "pods", { name: "pa", subresource: "exec" })), ["noOpinion", ""]);
  });

  it("grants the static node rules and nothing beyond them", async () => {
    assert.deepEqual(await decide(req("create", "events")), ["allow", ""]);
    assert.deepEqual(await decide(req("patch", "events", { apiGroup: "events.k8s.io" })), ["allow", ""]);
    assert.deepEqual(await decide(req("list", "services")), ["allow", ""]);
    assert.deepEqual(await decide(req("create", "tokenreviews", { apiGroup: "authentication.k8s.io", namespace: undefined })), ["allow", ""]);
    assert.deepEqual(await decide(req("create", "certificatesigningrequests", { apiGroup: "certificates.k8s.io", namespace: undefined })), ["allow", ""]);
    assert.deepEqual(await decide(req("delete", "events")), ["noOpinion", ""]);
    assert.deepEqual(await decide(req("create", "certificatesigningrequests", { apiGroup: "certificates.k8s.io", subresource: "nodeclient", namespace: undefined })), ["noOpinion", ""]);
    assert.deepEqual(await decide(req("get", "namespaces", { namespace: undefined, name: "ns" })), ["noOpinion", ""]);
    assert.deepEqual(await decide(req("create", "clusterrolebindings", { apiGroup: "rbac.authorization.k8s.io", namespace: undefined })), ["noOpinion", ""]);
    assert.deepEqual(await decide(req("get", "volumeattachments", { apiGroup: "storage.k8s.io", namespace: undefined, name: "va" })), NO_RELATION);
    assert.deepEqual(await decide({ user: nodeUser("a"), verb: "get", resourceRequest: false, path: "/healthz" }), ["noOpinion", ""]);
  });

  it("decides nothing from the graph before it is synced, and says so", async () => {
    const cold = new NodeAuthorizer(client, { clock: new FakeClock() });
    assert.deepEqual(await cold.authorize(req("get", "secrets", { name: "secret-a" })), { decision: "noOpinion", reason: "node authorizer is not ready yet" });
  });

  it("reports that a node's rules cannot be listed", async () => {
    assert.equal((await authz.rulesFor(nodeUser("a"))).incomplete, true);
    assert.equal((await authz.rulesFor({ username: "alice", groups: [] })).incomplete, false);
  });
});

describe("selectsField", () => {
  it("accepts only an equality on the field", () => {
    assert.equal(selectsField("spec.nodeName=a", "spec.nodeName", "a"), true);
    assert.equal(selectsField("metadata.namespace=x,spec.nodeName==a", "spec.nodeName", "a"), true);
    assert.equal(selectsField("spec.nodeName!=a", "spec.nodeName", "a"), false);
    assert.equal(selectsField("spec.nodeName=ab", "spec.nodeName", "a"), false);
    assert.equal(selectsField("spec.nodeName", "spec.nodeName", "a"), false);
    assert.equal(selectsField(undefined, "spec.nodeName", "a"), false);
  });
});
