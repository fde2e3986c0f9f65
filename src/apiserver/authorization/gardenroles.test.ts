import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { ClusterRole } from "../../apis/rbac/v1/types.ts";
import { FakeClock } from "../../utils/clock.ts";
import { ClusterRoleAggregationController } from "./aggregation.ts";
import { GARDEN_ADMIN, PROJECT_MEMBER, PROJECT_SERVICEACCOUNTMANAGER, PROJECT_VIEWER, ensureGardenPolicy, gardenClusterRoles } from "./gardenroles.ts";
import { RBACAuthorizer } from "./rbac.ts";
import { FakeClient } from "./testing/fake-client.ts";

const CR = { group: "rbac.authorization.k8s.io", resource: "clusterroles" };
const RB = { group: "rbac.authorization.k8s.io", resource: "rolebindings" };
const byName = (name: string) => gardenClusterRoles().find((r) => r.metadata.name === name)!;
const bastionVerbs = (r: ClusterRole) => r.rules?.find((x) => x.apiGroups?.includes("operations.gardener.cloud") && x.resources?.includes("bastions"))?.verbs;

describe("garden ClusterRoles (docs/bastion.md#roles)", () => {
  it("grant Bastion verbs as docs/bastion.md#roles lists them", () => {
    assert.deepEqual(bastionVerbs(byName("gardener.cloud:system:project-member-aggregation")), ["create", "delete", "deletecollection", "get", "list", "watch", "patch", "update"]);
    assert.deepEqual(bastionVerbs(byName("gardener.cloud:system:project-viewer-aggregation")), ["get", "list", "watch"]);
    assert.deepEqual(byName("gardener.cloud:system:project-member-aggregation").metadata.labels, { "rbac.gardener.cloud/aggregate-to-project-member": "true" });
    assert.deepEqual(byName("gardener.cloud:system:project-viewer-aggregation").metadata.labels, { "rbac.gardener.cloud/aggregate-to-project-viewer": "true" });
    assert.deepEqual(byName(PROJECT_MEMBER).aggregationRule, { clusterRoleSelectors: [{ matchLabels: { "rbac.gardener.cloud/aggregate-to-project-member": "true" } }] });
    assert.deepEqual(byName(GARDEN_ADMIN).rules?.[0], { verbs: ["*"], apiGroups: ["operations.gardener.cloud"], resources: ["*"] });
    assert.deepEqual(byName("gardener.cloud:viewer").rules?.[0], { verbs: ["get", "list", "watch"], apiGroups: ["operations.gardener.cloud"], resources: ["*"] });
    // Nobody but admins (and the gardenlet through the seed authorizer) writes bastions/status.
    for (const r of gardenClusterRoles().filter((x) => x.metadata.name !== GARDEN_ADMIN)) {
      assert.ok(!r.rules?.some((x) => x.resources?.includes("bastions/status")), r.metadata.name);
    }
  });

  it("are created once and repaired when changed", async () => {
    const client = new FakeClient();
    assert.equal((await ensureGardenPolicy(client)).length, 8);
    assert.deepEqual(await ensureGardenPolicy(client), []);
    const viewer = (await client.get(CR, undefined, "gardener.cloud:viewer")) as ClusterRole;
    await client.update(CR, { ...viewer, rules: [{ verbs: ["*"], apiGroups: ["*"], resources: ["*"] }] });
    // Aggregated roles keep the rules the aggregation controller wrote.
    const member = (await client.get(CR, undefined, PROJECT_MEMBER)) as ClusterRole;
    await client.update(CR, { ...member, rules: [{ verbs: ["get"], apiGroups: [""], resources: ["pods"] }] });
    assert.deepEqual(await ensureGardenPolicy(client), ["gardener.cloud:viewer"]);
    assert.deepEqual(((await client.get(CR, undefined, "gardener.cloud:viewer")) as ClusterRole).rules, byName("gardener.cloud:viewer").rules);
    assert.deepEqual(((await client.get(CR, undefined, PROJECT_MEMBER)) as ClusterRole).rules, [{ verbs: ["get"], apiGroups: [""], resources: ["pods"] }]);
  });

  it("let project members manage Bastions, viewers read them and others nothing", async () => {
    const client = new FakeClient();
    await ensureGardenPolicy(client);
    const aggregation = new ClusterRoleAggregationController(client, { clock: new FakeClock() });
    await aggregation.start();
    for (let i = 0; i < 5; i++) {
      await aggregation.idle();
      await new Promise((r) => setImmediate(r));
    }
    const bind = (name: string, roleName: string, user: string) =>
      client.create(RB, {
        apiVersion: "rbac.authorization.k8s.io/v1",
        kind: "RoleBinding",
        metadata: { name, namespace: "garden-dev" },
        roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: roleName },
        subjects: [{ kind: "User", apiGroup: "rbac.authorization.k8s.io", name: user }],
      });
    await bind("member", PROJECT_MEMBER, "alice");
    await bind("viewer", PROJECT_VIEWER, "victor");
    const rbac = new RBACAuthorizer(client);
    await rbac.start();
    const can = async (user: string, verb: string, subresource = "", namespace = "garden-dev") =>
      (
        await rbac.authorize({
          user: { username: user, groups: ["system:authenticated"] },
          verb,
          resourceRequest: true,
          apiGroup: "operations.gardener.cloud",
          resource: "bastions",
          subresource,
          namespace,
          name: "b",
        })
      ).decision === "allow";
    try {
      for (const verb of ["create", "get", "patch", "update", "delete"]) assert.equal(await can("alice", verb), true, verb);
      assert.equal(await can("alice", "update", "status"), false);
      assert.equal(await can("alice", "get", "", "garden-other"), false);
      assert.equal(await can("victor", "get"), true);
      assert.equal(await can("victor", "create"), false);
      assert.equal(await can("mallory", "get"), false);
    } finally {
      rbac.stop();
      aggregation.stop();
    }
  });

  it("let service account managers manage the namespace's ServiceAccounts and mint tokens; members and viewers only read them (Gardener's roles)", () => {
    const rules = (name: string) => byName(name).rules ?? [];
    const grants = (name: string, resource: string) => rules(name).filter((r) => r.apiGroups?.includes("") && r.resources?.includes(resource)).flatMap((r) => r.verbs ?? []);
    const manager = `${PROJECT_SERVICEACCOUNTMANAGER}-aggregation`;
    assert.deepEqual(byName(PROJECT_SERVICEACCOUNTMANAGER).aggregationRule, { clusterRoleSelectors: [{ matchLabels: { "rbac.gardener.cloud/aggregate-to-project-serviceaccountmanager": "true" } }] });
    assert.deepEqual(byName(manager).metadata.labels, { "rbac.gardener.cloud/aggregate-to-project-serviceaccountmanager": "true" });
    assert.deepEqual(grants(manager, "serviceaccounts"), ["create", "delete", "deletecollection", "get", "list", "watch", "patch", "update"]);
    assert.deepEqual(grants(manager, "serviceaccounts/token"), ["create"]);
    assert.equal(rules(manager).length, 2, "nothing else");
    for (const r of ["gardener.cloud:system:project-member-aggregation", "gardener.cloud:system:project-viewer-aggregation"]) {
      assert.deepEqual(grants(r, "serviceaccounts"), ["get", "list", "watch"], r);
      assert.deepEqual(grants(r, "serviceaccounts/token"), [], r);
    }
  });
});
