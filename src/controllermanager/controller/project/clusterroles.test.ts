import { test } from "node:test";
import assert from "node:assert/strict";
import type { Project } from "../../../apis/gardencore/v1beta1/types.ts";
import { PREFIX_PROJECT, PREFIX_PROJECT_MEMBER, PREFIX_PROJECT_UAM, PREFIX_PROJECT_VIEWER, desiredClusterRoles } from "./clusterroles.ts";

const RBAC = "rbac.authorization.k8s.io";
const project: Project = {
  metadata: { name: "p", uid: "u1" },
  spec: {
    namespace: "garden-p",
    owner: { apiGroup: RBAC, kind: "User", name: "olga" },
    members: [
      { kind: "User", name: "alice", role: "admin", roles: ["serviceaccountmanager"] },
      { kind: "User", name: "vera", role: "viewer" },
      { kind: "Group", name: "ops", role: "uam", roles: ["owner"] },
      { kind: "ServiceAccount", name: "robot", namespace: "garden-p", role: "viewer", roles: ["admin"] },
      { kind: "User", name: "sam", role: "serviceaccountmanager" },
    ],
  },
};

test("four per-project ClusterRoles, each bound by a ClusterRoleBinding of its own name, controlled by the Project", () => {
  const pairs = desiredClusterRoles(project);
  assert.deepEqual(pairs.map((p) => p.role.metadata.name), [`${PREFIX_PROJECT}p`, `${PREFIX_PROJECT_UAM}p`, `${PREFIX_PROJECT_MEMBER}p`, `${PREFIX_PROJECT_VIEWER}p`]);
  for (const { role, binding } of pairs) {
    assert.equal(binding.metadata.name, role.metadata.name);
    assert.deepEqual(binding.roleRef, { apiGroup: RBAC, kind: "ClusterRole", name: role.metadata.name });
    for (const o of [role, binding]) {
      assert.deepEqual(o.metadata.ownerReferences, [{ apiVersion: "core.gardener.cloud/v1beta1", kind: "Project", name: "p", uid: "u1", controller: true, blockOwnerDeletion: false }]);
      assert.equal(o.metadata.namespace, undefined, "cluster-scoped");
    }
  }
});

test("the member role may get, patch, update and delete its own Project and get its namespace, without manage-members; admins and owners hold it", () => {
  const member = desiredClusterRoles(project).find((p) => p.role.metadata.name === `${PREFIX_PROJECT_MEMBER}p`)!;
  assert.deepEqual(member.role.rules, [
    { apiGroups: [""], resources: ["namespaces"], resourceNames: ["garden-p"], verbs: ["get"] },
    { apiGroups: ["core.gardener.cloud"], resources: ["projects"], resourceNames: ["p"], verbs: ["get", "patch", "update", "delete"] },
  ]);
  assert.deepEqual(member.binding.subjects, [
    { kind: "User", apiGroup: RBAC, name: "olga" },
    { kind: "User", apiGroup: RBAC, name: "alice" },
    { kind: "Group", apiGroup: RBAC, name: "ops" },
    { kind: "ServiceAccount", apiGroup: "", name: "robot", namespace: "garden-p" },
  ]);
});

test("manage-members: the owner's role and uam's; viewers only get", () => {
  const [owner, uam, , viewer] = desiredClusterRoles(project);
  assert.deepEqual(owner!.role.rules?.[1]?.verbs, ["get", "patch", "manage-members", "update", "delete"]);
  assert.deepEqual(owner!.binding.subjects, [{ kind: "User", apiGroup: RBAC, name: "olga" }]);
  assert.deepEqual(uam!.role.rules, [{ apiGroups: ["core.gardener.cloud"], resources: ["projects"], resourceNames: ["p"], verbs: ["get", "manage-members", "patch", "update"] }]);
  assert.deepEqual(uam!.binding.subjects, [{ kind: "Group", apiGroup: RBAC, name: "ops" }]);
  assert.deepEqual(viewer!.role.rules?.map((r) => r.verbs), [["get"], ["get"]]);
  assert.deepEqual(viewer!.binding.subjects, [
    { kind: "User", apiGroup: RBAC, name: "vera" },
    { kind: "ServiceAccount", apiGroup: "", name: "robot", namespace: "garden-p" },
  ]);
});

test("a project without owner or members binds nobody", () => {
  for (const { binding } of desiredClusterRoles({ metadata: { name: "q" }, spec: { namespace: "garden-q" } })) assert.deepEqual(binding.subjects, []);
});
