import assert from "node:assert/strict";
import { test } from "node:test";
import type { ProjectMember } from "../../apis/gardencore/v1beta1/types.ts";
import { withWebterminalMember } from "./webterminal.ts";

const SA = { namespace: "garden-p", name: "dashboard-webterminal" };
const ALICE: ProjectMember = { apiGroup: "rbac.authorization.k8s.io", kind: "User", name: "alice", role: "admin" };

test("the ServiceAccount joins with admin and serviceaccountmanager; other members stay as they are", () => {
  assert.deepEqual(withWebterminalMember([ALICE], SA), [ALICE, { apiGroup: "", kind: "ServiceAccount", name: "dashboard-webterminal", namespace: "garden-p", role: "admin", roles: ["serviceaccountmanager"] }]);
});

test("a member entry lacking a role gets it, keeping its own; one with both is left alone", () => {
  const viewer: ProjectMember = { apiGroup: "", kind: "ServiceAccount", name: "dashboard-webterminal", namespace: "garden-p", role: "viewer" };
  assert.deepEqual(withWebterminalMember([viewer, ALICE], SA), [{ ...viewer, role: "viewer", roles: ["admin", "serviceaccountmanager"] }, ALICE]);
  const asUser: ProjectMember = { apiGroup: "rbac.authorization.k8s.io", kind: "User", name: "system:serviceaccount:garden-p:dashboard-webterminal", role: "serviceaccountmanager", roles: ["admin"] };
  assert.equal(withWebterminalMember([ALICE, asUser], SA), undefined);
});

test("a ServiceAccount entry of another API group or namespace is someone else", () => {
  const other: ProjectMember = { apiGroup: "rbac.authorization.k8s.io", kind: "ServiceAccount", name: "dashboard-webterminal", namespace: "garden-p", role: "admin", roles: ["serviceaccountmanager"] };
  const elsewhere: ProjectMember = { apiGroup: "", kind: "ServiceAccount", name: "dashboard-webterminal", namespace: "garden-q", role: "admin", roles: ["serviceaccountmanager"] };
  assert.equal(withWebterminalMember([other, elsewhere], SA)?.length, 3);
});
