import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { KubeObject } from "../../../apis/meta/v1/types.ts";
import { simulateCreate, simulateUpdate } from "../core/testing.ts";
import { clusterRoleDefinition } from "./clusterrole/definition.ts";
import { clusterRoleBindingDefinition } from "./clusterrolebinding/definition.ts";
import { roleDefinition } from "./role/definition.ts";
import { roleBindingDefinition } from "./rolebinding/definition.ts";

const G = "rbac.authorization.k8s.io";
const obj = (kind: string, name: string, extra: Record<string, unknown>, namespace?: string): KubeObject => ({
  apiVersion: `${G}/v1`,
  kind,
  metadata: { name, ...(namespace ? { namespace } : {}), creationTimestamp: "2024-01-01T00:00:00Z" },
  ...extra,
});

describe("Role and ClusterRole", () => {
  it("accept colon names and resource and non-resource rules", () => {
    const cr = obj("ClusterRole", "system:controller:bastion", {
      rules: [
        { apiGroups: ["operations.gardener.cloud"], resources: ["bastions", "bastions/status"], verbs: ["get", "list", "watch"] },
        { nonResourceURLs: ["/healthz"], verbs: ["get"] },
      ],
    });
    assert.deepEqual(simulateCreate(clusterRoleDefinition, cr).errors, []);
    for (const d of [roleDefinition, clusterRoleDefinition, roleBindingDefinition, clusterRoleBindingDefinition]) {
      assert.deepEqual(d.nameValidator!("system:masters", false), [], d.kind);
      assert.deepEqual(d.nameValidator!("a/b", false), ["may not contain '/'"], d.kind);
    }
  });

  it("report rule errors with kube's messages", () => {
    const role = obj(
      "Role",
      "bad/name",
      {
        rules: [
          { verbs: [] , apiGroups: [""], resources: ["pods"] },
          { verbs: ["get"] },
          { verbs: ["get"], nonResourceURLs: ["/metrics"], resources: ["pods"] },
          { apiGroups: [""], resources: ["pods"] },
        ],
      },
      "default",
    );
    assert.deepEqual(simulateCreate(roleDefinition, role).errors, [
      "rules[3].verbs: Required value",
      `metadata.name: Invalid value: "bad/name": may not contain '/'`,
      "rules[0].verbs: Required value: verbs must contain at least one value",
      "rules[1].apiGroups: Required value: resource rules must supply at least one api group",
      "rules[1].resources: Required value: resource rules must supply at least one resource",
      'rules[2].nonResourceURLs: Invalid value: ["/metrics"]: namespaced rules cannot apply to non-resource URLs',
      'rules[2].nonResourceURLs: Invalid value: ["/metrics"]: rules cannot apply to both regular resources and non-resource URLs',
    ]);
  });

  it("validate aggregation rules", () => {
    const empty = obj("ClusterRole", "agg", { aggregationRule: {} });
    assert.deepEqual(simulateCreate(clusterRoleDefinition, empty).errors, [
      "aggregationRule.clusterRoleSelectors: Required value: at least one clusterRoleSelector required if aggregationRule is non-nil",
    ]);
    const bad = obj("ClusterRole", "agg", { aggregationRule: { clusterRoleSelectors: [{ matchExpressions: [{ key: "a", operator: "In" }] }] } });
    assert.deepEqual(simulateCreate(clusterRoleDefinition, bad).errors, [
      "aggregationRule.clusterRoleSelectors[0].matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
    ]);
    const ok = obj("ClusterRole", "agg", { aggregationRule: { clusterRoleSelectors: [{ matchLabels: { "rbac.example.com/aggregate-to-view": "true" } }] } });
    assert.deepEqual(simulateCreate(clusterRoleDefinition, ok).errors, []);
  });

  it("print CREATED AT", () => {
    assert.deepEqual(roleDefinition.table!.columns.map((c) => c.name), ["Created At"]);
    assert.deepEqual(roleDefinition.table!.cells(obj("Role", "r", {}), new Date()), ["2024-01-01T00:00:00Z"]);
  });

  it("declare no patch strategies beyond metadata's", () => {
    const text = JSON.stringify([roleDefinition, clusterRoleDefinition, roleBindingDefinition, clusterRoleBindingDefinition].map((d) => ({ ...d.schema.properties, metadata: undefined })));
    assert.equal(text.includes("x-kubernetes-patch-strategy"), false);
  });
});

describe("RoleBinding and ClusterRoleBinding", () => {
  const binding = (extra: Record<string, unknown> = {}) =>
    obj(
      "RoleBinding",
      "rb",
      {
        roleRef: { kind: "ClusterRole", name: "view" },
        subjects: [
          { kind: "User", name: "alice" },
          { kind: "Group", name: "devs" },
          { kind: "ServiceAccount", name: "robot", namespace: "garden" },
        ],
        ...extra,
      },
      "garden",
    );

  it("default roleRef.apiGroup and the apiGroup of users and groups", () => {
    const out = simulateCreate(roleBindingDefinition, binding());
    assert.deepEqual(out.errors, []);
    assert.deepEqual(out.obj.roleRef, { kind: "ClusterRole", name: "view", apiGroup: G });
    assert.deepEqual(out.obj.subjects, [
      { kind: "User", name: "alice", apiGroup: G },
      { kind: "Group", name: "devs", apiGroup: G },
      { kind: "ServiceAccount", name: "robot", namespace: "garden" },
    ]);
  });

  it("validate roleRef and subjects", () => {
    const out = simulateCreate(
      roleBindingDefinition,
      binding({
        roleRef: { apiGroup: "example.com", kind: "Secret", name: "" },
        subjects: [{ kind: "Robot", name: "r" }, { kind: "User", apiGroup: "example.com", name: "bob" }, { kind: "ServiceAccount", apiGroup: "v1", name: "Bad_Name" }, { kind: "User" }],
      }),
    );
    assert.deepEqual(out.errors, [
      "subjects[3].name: Required value",
      'roleRef.apiGroup: Unsupported value: "example.com": supported values: "rbac.authorization.k8s.io"',
      'roleRef.kind: Unsupported value: "Secret": supported values: "Role", "ClusterRole"',
      "roleRef.name: Required value",
      'subjects[0].kind: Unsupported value: "Robot": supported values: "ServiceAccount", "User", "Group"',
      'subjects[1].apiGroup: Unsupported value: "example.com": supported values: "rbac.authorization.k8s.io"',
      `subjects[2].name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
      'subjects[2].apiGroup: Unsupported value: "v1": supported values: ""',
    ]);
    const { roleRef: _r, ...noRef } = binding();
    assert.deepEqual(simulateCreate(roleBindingDefinition, noRef).errors, ["roleRef: Required value"]);
  });

  it("restrict ClusterRoleBindings to ClusterRoles and namespaced service accounts", () => {
    const crb = obj("ClusterRoleBinding", "system:masters-binding", {
      roleRef: { apiGroup: G, kind: "Role", name: "x" },
      subjects: [{ kind: "ServiceAccount", name: "robot" }],
    });
    assert.deepEqual(simulateCreate(clusterRoleBindingDefinition, crb).errors, [
      'roleRef.kind: Unsupported value: "Role": supported values: "ClusterRole"',
      "subjects[0].namespace: Required value",
    ]);
  });

  it("keep roleRef immutable", () => {
    const old = simulateCreate(roleBindingDefinition, binding()).obj;
    const changed = { ...old, roleRef: { apiGroup: G, kind: "ClusterRole", name: "edit" } };
    assert.deepEqual(simulateUpdate(roleBindingDefinition, changed, old).errors, [
      'roleRef: Invalid value: {"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"edit"}: cannot change roleRef',
    ]);
    // Defaulting happens before the comparison: omitting apiGroup is no change.
    const same = { ...old, roleRef: { kind: "ClusterRole", name: "view" }, subjects: [] };
    assert.deepEqual(simulateUpdate(roleBindingDefinition, same, old).errors, []);
    const crbOld = simulateCreate(clusterRoleBindingDefinition, obj("ClusterRoleBinding", "c", { roleRef: { kind: "ClusterRole", name: "a" } })).obj;
    const crbNew = { ...crbOld, roleRef: { apiGroup: G, kind: "ClusterRole", name: "b" } };
    assert.match(simulateUpdate(clusterRoleBindingDefinition, crbNew, crbOld).errors[0]!, /^roleRef: Invalid value: .*: cannot change roleRef$/);
  });

  it("print ROLE and AGE, and USERS, GROUPS, SERVICEACCOUNTS with -o wide", () => {
    const table = roleBindingDefinition.table!;
    assert.deepEqual(
      table.columns.map((c) => [c.name, c.priority]),
      [
        ["Role", 0],
        ["Age", 0],
        ["Users", 1],
        ["Groups", 1],
        ["ServiceAccounts", 1],
      ],
    );
    const b = binding({ subjects: [{ kind: "User", name: "a" }, { kind: "User", name: "b" }, { kind: "ServiceAccount", name: "s", namespace: "ns" }] });
    assert.deepEqual(table.cells(b, new Date("2024-01-01T00:01:00Z")), ["ClusterRole/view", "60s", "a, b", "", "ns/s"]);
  });
});
