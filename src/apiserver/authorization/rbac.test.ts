import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import type { KubeObject } from "../../apis/meta/v1/types.ts";
import type { UserInfo } from "../authentication/types.ts";
import { FakeClock } from "../../utils/clock.ts";
import { MastersAuthorizer } from "./masters.ts";
import { RBACAuthorizer } from "./rbac.ts";
import { userKeys } from "./rbac-cache.ts";
import { FakeClient } from "./testing/fake-client.ts";
import { type AuthorizationAttributes, UnionAuthorizer } from "./types.ts";

const G = "rbac.authorization.k8s.io";
const gr = (resource: string) => ({ group: G, resource });
const alice: UserInfo = { username: "alice", groups: ["system:authenticated"] };
const devs: UserInfo = { username: "bob", groups: ["devs", "system:authenticated"] };
const robot: UserInfo = { username: "system:serviceaccount:ns1:robot", groups: ["system:serviceaccounts", "system:serviceaccounts:ns1"] };

const res = (user: UserInfo, verb: string, resource: string, extra: Partial<AuthorizationAttributes> = {}): AuthorizationAttributes => ({
  user,
  verb,
  resourceRequest: true,
  apiGroup: "",
  resource,
  ...extra,
});
const path = (user: UserInfo, verb: string, p: string): AuthorizationAttributes => ({ user, verb, resourceRequest: false, path: p });

describe("RBACAuthorizer", () => {
  const client = new FakeClient();
  const clock = new FakeClock();
  const rbac = new RBACAuthorizer(client, { clock });
  const allowed = async (a: AuthorizationAttributes) => (await rbac.authorize(a)).decision === "allow";

  before(async () => {
    await client.create(gr("clusterroles"), {
      metadata: { name: "bastion-reader" },
      rules: [{ verbs: ["get", "list"], apiGroups: ["operations.gardener.cloud"], resources: ["bastions"] }],
    });
    await client.create(gr("clusterroles"), {
      metadata: { name: "status-writer" },
      rules: [{ verbs: ["update"], apiGroups: ["*"], resources: ["*/status"] }],
    });
    await client.create(gr("clusterroles"), {
      metadata: { name: "health" },
      rules: [{ verbs: ["get"], nonResourceURLs: ["/healthz", "/healthz/*", "/version"] }],
    });
    await client.create(gr("roles"), {
      metadata: { name: "one-secret", namespace: "ns1" },
      rules: [{ verbs: ["get", "update"], apiGroups: [""], resources: ["secrets"], resourceNames: ["ssh-keypair"] }],
    });
    await client.create(gr("clusterrolebindings"), {
      metadata: { name: "alice-reads-bastions" },
      roleRef: { apiGroup: G, kind: "ClusterRole", name: "bastion-reader" },
      subjects: [{ kind: "User", apiGroup: G, name: "alice" }],
    });
    await client.create(gr("clusterrolebindings"), {
      metadata: { name: "public-health" },
      roleRef: { apiGroup: G, kind: "ClusterRole", name: "health" },
      subjects: [{ kind: "Group", apiGroup: G, name: "system:authenticated" }],
    });
    // A RoleBinding to a ClusterRole grants its rules only in the binding's namespace.
    await client.create(gr("rolebindings"), {
      metadata: { name: "devs-bastions", namespace: "ns1" },
      roleRef: { apiGroup: G, kind: "ClusterRole", name: "bastion-reader" },
      subjects: [{ kind: "Group", apiGroup: G, name: "devs" }],
    });
    // A ServiceAccount subject without namespace means the binding's namespace.
    await client.create(gr("rolebindings"), {
      metadata: { name: "robot-secret", namespace: "ns1" },
      roleRef: { apiGroup: G, kind: "Role", name: "one-secret" },
      subjects: [{ kind: "ServiceAccount", name: "robot" }],
    });
    await rbac.start();
  });
  after(() => rbac.stop());

  it("allows through a ClusterRoleBinding everywhere, with kube's reason", async () => {
    const r = await rbac.authorize(res(alice, "list", "bastions", { apiGroup: "operations.gardener.cloud", namespace: "any" }));
    assert.deepEqual(r, { decision: "allow", reason: 'RBAC: allowed by ClusterRoleBinding "alice-reads-bastions" of ClusterRole "bastion-reader" to User "alice"' });
    assert.ok(await allowed(res(alice, "get", "bastions", { apiGroup: "operations.gardener.cloud" })));
    assert.equal(await allowed(res(alice, "delete", "bastions", { apiGroup: "operations.gardener.cloud", namespace: "x" })), false);
    assert.equal(await allowed(res(alice, "get", "bastions", { apiGroup: "core.gardener.cloud" })), false);
  });

  it("limits a RoleBinding to a ClusterRole to its namespace", async () => {
    const r = await rbac.authorize(res(devs, "get", "bastions", { apiGroup: "operations.gardener.cloud", namespace: "ns1" }));
    assert.equal(r.reason, 'RBAC: allowed by RoleBinding "devs-bastions/ns1" of ClusterRole "bastion-reader" to Group "devs"');
    assert.equal(await allowed(res(devs, "get", "bastions", { apiGroup: "operations.gardener.cloud", namespace: "ns2" })), false);
    assert.equal(await allowed(res(devs, "list", "bastions", { apiGroup: "operations.gardener.cloud" })), false);
  });

  it("matches resourceNames only for requests naming one of them", async () => {
    assert.ok(await allowed(res(robot, "get", "secrets", { namespace: "ns1", name: "ssh-keypair" })));
    assert.equal(await allowed(res(robot, "get", "secrets", { namespace: "ns1", name: "other" })), false);
    assert.equal(await allowed(res(robot, "list", "secrets", { namespace: "ns1" })), false);
    const r = await rbac.authorize(res(robot, "update", "secrets", { namespace: "ns1", name: "ssh-keypair" }));
    assert.equal(r.reason, 'RBAC: allowed by RoleBinding "robot-secret/ns1" of Role "one-secret" to ServiceAccount "robot/ns1"');
    // Another namespace's robot with the same name is someone else.
    const other = { ...robot, username: "system:serviceaccount:ns2:robot" };
    assert.equal(await allowed(res(other, "get", "secrets", { namespace: "ns1", name: "ssh-keypair" })), false);
  });

  it("treats subresources separately: */status grants status only", async () => {
    const u = { username: "ctrl", groups: [] };
    await client.create(gr("clusterrolebindings"), {
      metadata: { name: "ctrl-status" },
      roleRef: { apiGroup: G, kind: "ClusterRole", name: "status-writer" },
      subjects: [{ kind: "User", name: "ctrl" }],
    });
    assert.ok(await allowed(res(u, "update", "shoots", { apiGroup: "core.gardener.cloud", subresource: "status", namespace: "a" })));
    assert.equal(await allowed(res(u, "update", "shoots", { apiGroup: "core.gardener.cloud", namespace: "a" })), false);
    assert.equal(await allowed(res(u, "update", "shoots", { apiGroup: "core.gardener.cloud", subresource: "finalize", namespace: "a" })), false);
    // bastions grants bastions only, not bastions/status.
    assert.equal(await allowed(res(alice, "get", "bastions", { apiGroup: "operations.gardener.cloud", subresource: "status" })), false);
  });

  it("matches non-resource URLs exactly or by a * prefix", async () => {
    assert.ok(await allowed(path(alice, "get", "/healthz")));
    assert.ok(await allowed(path(alice, "get", "/healthz/etcd")));
    assert.ok(await allowed(path(alice, "get", "/version")));
    assert.equal(await allowed(path(alice, "get", "/version/x")), false);
    assert.equal(await allowed(path(alice, "post", "/healthz")), false);
    assert.equal(await allowed(path({ username: "anon", groups: ["system:unauthenticated"] }, "get", "/healthz")), false);
  });

  it("follows changes from the watch and reports missing roles as the reason", async () => {
    const u = { username: "late", groups: [] };
    const attrs = res(u, "get", "bastions", { apiGroup: "operations.gardener.cloud", namespace: "ns9" });
    assert.equal(await allowed(attrs), false);
    await client.create(gr("rolebindings"), {
      metadata: { name: "late", namespace: "ns9" },
      roleRef: { apiGroup: G, kind: "ClusterRole", name: "bastion-reader" },
      subjects: [{ kind: "User", name: "late" }],
    });
    assert.ok(await allowed(attrs));
    await client.delete(gr("rolebindings"), "ns9", "late");
    assert.equal(await allowed(attrs), false);
    await client.create(gr("rolebindings"), {
      metadata: { name: "dangling", namespace: "ns9" },
      roleRef: { apiGroup: G, kind: "Role", name: "missing" },
      subjects: [{ kind: "User", name: "late" }],
    });
    assert.deepEqual(await rbac.authorize(attrs), { decision: "noOpinion", reason: 'RBAC: role.rbac.authorization.k8s.io "missing" not found' });
  });

  it("relists after a broken watch and sees changes made meanwhile", async () => {
    const u = { username: "relist", groups: [] };
    const attrs = res(u, "get", "bastions", { apiGroup: "operations.gardener.cloud" });
    client.breakWatches(gr("clusterrolebindings"));
    await client.create(gr("clusterrolebindings"), {
      metadata: { name: "relist" },
      roleRef: { apiGroup: G, kind: "ClusterRole", name: "bastion-reader" },
      subjects: [{ kind: "User", name: "relist" }],
    });
    assert.equal(await allowed(attrs), false);
    clock.step(500);
    await new Promise((r) => setImmediate(r));
    assert.ok(await allowed(attrs));
    assert.equal(client.watchCount(gr("clusterrolebindings")), 1);
  });

  it("lists the rules of a user for a namespace", async () => {
    const r = await rbac.rulesFor(devs, "ns1");
    assert.deepEqual(r.resourceRules, [{ verbs: ["get", "list"], apiGroups: ["operations.gardener.cloud"], resources: ["bastions"] }]);
    assert.deepEqual(r.nonResourceRules, [{ verbs: ["get"], nonResourceURLs: ["/healthz", "/healthz/*", "/version"] }]);
    assert.equal(r.incomplete, false);
    const none = await rbac.rulesFor(devs, "ns2");
    assert.equal(none.resourceRules.length, 0);
  });

  it("system:masters is allowed by the MastersAuthorizer in a union", async () => {
    const union = new UnionAuthorizer([new MastersAuthorizer(), rbac]);
    const root = { username: "system:admin", groups: ["system:masters"] };
    assert.equal((await union.authorize(res(root, "delete", "namespaces", { name: "x" }))).decision, "allow");
    assert.equal((await union.authorize(res(alice, "delete", "namespaces", { name: "x" }))).decision, "noOpinion");
    const rules = await union.rulesFor(root, "ns1");
    assert.deepEqual(rules.resourceRules[0], { verbs: ["*"], apiGroups: ["*"], resources: ["*"] });
  });
});

describe("RBACAuthorizer at scale", () => {
  it("decides with many bindings from an index: only a user's own bindings are candidates", async () => {
    const client = new FakeClient();
    const rbac = new RBACAuthorizer(client);
    await client.create(gr("clusterroles"), { metadata: { name: "r" }, rules: [{ verbs: ["get"], apiGroups: [""], resources: ["pods"] }] });
    for (let i = 0; i < 5000; i++) {
      const obj: KubeObject = {
        metadata: { name: `b${i}`, namespace: `ns${i % 50}` },
        roleRef: { apiGroup: G, kind: "ClusterRole", name: "r" },
        subjects: [{ kind: "User", name: `user${i}` }],
      };
      await client.create(gr("rolebindings"), obj);
    }
    await rbac.start();
    for (let i = 0; i < 5000; i += 7) {
      const user = { username: `user${i}`, groups: ["system:authenticated"] };
      assert.equal((await rbac.authorize(res(user, "get", "pods", { namespace: `ns${i % 50}` }))).decision, "allow");
      assert.notEqual((await rbac.authorize(res(user, "get", "pods", { namespace: `ns${(i + 1) % 50}` }))).decision, "allow");
      // The scale property itself, without a clock: of the 100 bindings in the namespace, one is looked at.
      assert.equal(rbac.cache.roleBindingsIn(`ns${i % 50}`)?.candidates(userKeys(user)).length, 1);
    }
    rbac.stop();
  });
});
