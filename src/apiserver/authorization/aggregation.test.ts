import { afterEach, beforeEach, describe, it } from "node:test";
import assert from "node:assert/strict";
import type { ClusterRole } from "../../apis/rbac/v1/types.ts";
import { FakeClock } from "../../utils/clock.ts";
import { ClusterRoleAggregationController, aggregateRules } from "./aggregation.ts";
import { ensureBootstrapPolicy } from "./bootstrap.ts";
import { RBACAuthorizer } from "./rbac.ts";
import { FakeClient } from "./testing/fake-client.ts";

const CR = { group: "rbac.authorization.k8s.io", resource: "clusterroles" };
const settle = async (c: ClusterRoleAggregationController) => {
  for (let i = 0; i < 5; i++) {
    await c.idle();
    await new Promise((r) => setImmediate(r));
  }
};
const rulesOf = async (client: FakeClient, name: string) => ((await client.get(CR, undefined, name)) as ClusterRole).rules ?? [];

describe("ClusterRoleAggregationController", () => {
  let client: FakeClient;
  let ctrl: ClusterRoleAggregationController;
  beforeEach(async () => {
    client = new FakeClient();
    await ensureBootstrapPolicy(client);
    ctrl = new ClusterRoleAggregationController(client, { clock: new FakeClock() });
    await ctrl.start();
    await settle(ctrl);
  });
  afterEach(() => ctrl.stop());

  it("fills view, edit and admin from the labelled base roles (view ⊂ edit ⊂ admin)", async () => {
    const view = await rulesOf(client, "view");
    const edit = await rulesOf(client, "edit");
    const admin = await rulesOf(client, "admin");
    assert.ok(view.some((r) => r.resources?.includes("configmaps") && r.verbs.includes("list")));
    assert.ok(!view.some((r) => r.resources?.includes("secrets")), "view must not read secrets");
    assert.ok(edit.some((r) => r.resources?.includes("secrets") && r.verbs.includes("update")));
    const key = (r: object) => JSON.stringify(r);
    for (const r of view) assert.ok(edit.some((e) => key(e) === key(r)), `edit lacks view rule ${key(r)}`);
    for (const r of edit) assert.ok(admin.some((e) => key(e) === key(r)), `admin lacks edit rule ${key(r)}`);
    assert.ok(admin.some((r) => r.resources?.includes("rolebindings")));
    assert.equal(new Set(admin.map(key)).size, admin.length, "rules are de-duplicated");
  });

  it("follows roles that appear, change and disappear", async () => {
    await client.create(CR, {
      metadata: { name: "bastion-view", labels: { "rbac.authorization.k8s.io/aggregate-to-view": "true" } },
      rules: [{ verbs: ["get"], apiGroups: ["operations.gardener.cloud"], resources: ["bastions"] }],
    });
    await settle(ctrl);
    const has = async (role: string) => (await rulesOf(client, role)).some((r) => r.resources?.includes("bastions"));
    assert.ok((await has("view")) && (await has("edit")) && (await has("admin")));
    await client.delete(CR, undefined, "bastion-view");
    await settle(ctrl);
    assert.ok(!(await has("view")) && !(await has("edit")) && !(await has("admin")));
  });

  it("does not write when nothing changed", async () => {
    const before = client.calls.patch ?? 0;
    await client.create(CR, { metadata: { name: "unrelated" }, rules: [] });
    await settle(ctrl);
    assert.equal(client.calls.patch ?? 0, before);
  });
});

describe("aggregateRules", () => {
  it("orders by selector then by role name, excludes the role itself, de-duplicates", () => {
    const role = (name: string, labels: Record<string, string>, resources: string[]): ClusterRole => ({
      metadata: { name, labels },
      rules: resources.map((r) => ({ verbs: ["get"], apiGroups: [""], resources: [r] })),
    });
    const roles = [role("z", { a: "1" }, ["zz", "shared"]), role("b", { a: "1" }, ["bb", "shared"]), role("c", { b: "1" }, ["cc"]), role("self", { a: "1" }, ["me"])];
    const rules = aggregateRules("self", [{ matchLabels: { b: "1" } }, { matchExpressions: [{ key: "a", operator: "Exists" }] }], roles);
    assert.deepEqual(rules.map((r) => r.resources![0]), ["cc", "bb", "shared", "zz"]);
  });
});

describe("bootstrap policy with RBAC", () => {
  it("lets authenticated users discover and self-review, anonymous only public info, masters everything", async () => {
    const client = new FakeClient();
    const created = await ensureBootstrapPolicy(client);
    assert.ok(created.clusterRoles.includes("cluster-admin"));
    assert.deepEqual(await ensureBootstrapPolicy(client), { clusterRoles: [], clusterRoleBindings: [] });
    const rbac = new RBACAuthorizer(client);
    await rbac.start();
    const user = { username: "u", groups: ["system:authenticated"] };
    const anon = { username: "system:anonymous", groups: ["system:unauthenticated"] };
    const root = { username: "system:admin", groups: ["system:masters", "system:authenticated"] };
    const can = async (u: typeof user, a: object) => (await rbac.authorize({ user: u, verb: "get", resourceRequest: false, ...a })).decision === "allow";
    assert.ok(await can(user, { path: "/apis/core.gardener.cloud" }));
    assert.ok(await can(user, { verb: "create", resourceRequest: true, apiGroup: "authorization.k8s.io", resource: "selfsubjectaccessreviews" }));
    assert.ok(await can(user, { verb: "create", resourceRequest: true, apiGroup: "authentication.k8s.io", resource: "selfsubjectreviews" }));
    assert.ok(!(await can(user, { verb: "list", resourceRequest: true, apiGroup: "", resource: "secrets", namespace: "x" })));
    assert.ok(await can(anon, { path: "/healthz" }));
    assert.ok(await can(anon, { path: "/version" }));
    assert.ok(!(await can(anon, { path: "/apis" })));
    const r = await rbac.authorize({ user: root, verb: "delete", resourceRequest: true, apiGroup: "x", resource: "y", namespace: "z" });
    assert.equal(r.reason, 'RBAC: allowed by ClusterRoleBinding "cluster-admin" of ClusterRole "cluster-admin" to Group "system:masters"');
    rbac.stop();
  });
});
