import { test } from "node:test";
import assert from "node:assert/strict";
import type { Project } from "../../../apis/gardencore/v1beta1/types.ts";
import { PROJECT_MEMBER, PROJECT_SERVICEACCOUNTMANAGER, PROJECT_VIEWER, desiredRoleBindings } from "./rolebindings.ts";

const RBAC = "rbac.authorization.k8s.io";

test("owner and admin/owner members bind project-member; viewers bind project-viewer", () => {
  const project: Project = {
    metadata: { name: "p", uid: "u1" },
    spec: {
      namespace: "garden-p",
      owner: { apiGroup: RBAC, kind: "User", name: "alice" },
      members: [
        { kind: "User", name: "alice", role: "admin" },
        { kind: "User", name: "bob", role: "viewer" },
        { kind: "Group", name: "ops", roles: ["uam", "owner"] },
        { kind: "ServiceAccount", name: "robot", namespace: "garden-p", role: "admin", roles: ["viewer"] },
        { kind: "User", name: "eve", role: "uam" },
        { kind: "User", name: "ext", role: "extension:foo" },
      ],
    },
  };
  const [member, viewer] = desiredRoleBindings(project);
  assert.equal(member!.metadata.name, PROJECT_MEMBER);
  assert.equal(member!.metadata.namespace, "garden-p");
  assert.deepEqual(member!.roleRef, { apiGroup: RBAC, kind: "ClusterRole", name: PROJECT_MEMBER });
  assert.deepEqual(member!.subjects, [
    { kind: "User", apiGroup: RBAC, name: "alice" },
    { kind: "Group", apiGroup: RBAC, name: "ops" },
    { kind: "ServiceAccount", apiGroup: "", name: "robot", namespace: "garden-p" },
  ]);
  assert.equal(viewer!.metadata.name, PROJECT_VIEWER);
  assert.deepEqual(viewer!.roleRef.name, PROJECT_VIEWER);
  assert.deepEqual(viewer!.subjects, [
    { kind: "User", apiGroup: RBAC, name: "bob" },
    { kind: "ServiceAccount", apiGroup: "", name: "robot", namespace: "garden-p" },
  ]);
  assert.deepEqual(member!.metadata.ownerReferences, [
    { apiVersion: "core.gardener.cloud/v1beta1", kind: "Project", name: "p", uid: "u1", controller: true, blockOwnerDeletion: true },
  ]);
});

test("a project without members binds only its owner; no viewers", () => {
  const [member, viewer] = desiredRoleBindings({ metadata: { name: "q" }, spec: { namespace: "garden-q", owner: { kind: "User", name: "o" } } });
  assert.deepEqual(member!.subjects, [{ kind: "User", apiGroup: RBAC, name: "o" }]);
  assert.deepEqual(viewer!.subjects, []);
});

test("the owner and members holding serviceaccountmanager or owner bind project-serviceaccountmanager; admin alone does not", () => {
  const project: Project = {
    metadata: { name: "p", uid: "u1" },
    spec: {
      namespace: "garden-p",
      owner: { apiGroup: RBAC, kind: "User", name: "olga" },
      members: [
        { kind: "User", name: "alice", role: "admin", roles: ["serviceaccountmanager"] },
        { kind: "User", name: "bob", role: "admin" },
        { kind: "User", name: "sam", role: "serviceaccountmanager" },
        { kind: "Group", name: "ops", role: "owner" },
        { kind: "User", name: "vic", role: "viewer", roles: ["uam"] },
        { kind: "User", name: "olga", role: "serviceaccountmanager" },
      ],
    },
  };
  const bindings = desiredRoleBindings(project);
  assert.deepEqual(bindings.map((b) => b.metadata.name), [PROJECT_MEMBER, PROJECT_VIEWER, PROJECT_SERVICEACCOUNTMANAGER]);
  const sam = bindings[2]!;
  assert.deepEqual(sam.roleRef, { apiGroup: RBAC, kind: "ClusterRole", name: PROJECT_SERVICEACCOUNTMANAGER });
  assert.deepEqual(sam.subjects, [
    { kind: "User", apiGroup: RBAC, name: "olga" },
    { kind: "User", apiGroup: RBAC, name: "alice" },
    { kind: "User", apiGroup: RBAC, name: "sam" },
    { kind: "Group", apiGroup: RBAC, name: "ops" },
  ]);
  // sam holds only serviceaccountmanager: not a project member
  assert.ok(!bindings[0]!.subjects?.some((s) => s.name === "sam"));
  assert.deepEqual(desiredRoleBindings({ metadata: { name: "q" }, spec: { namespace: "garden-q" } })[2]!.subjects, []);
});
