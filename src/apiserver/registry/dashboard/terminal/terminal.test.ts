import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { KubeObject } from "../../../../apis/meta/v1/types.ts";
import { simulateCreate, simulateUpdate } from "../../core/testing.ts";
import { terminalDefinition } from "./definition.ts";

const NOW = new Date("2026-01-02T00:10:00Z");
const spec = (extra: Record<string, unknown> = {}) => ({
  identifier: "123",
  host: { credentials: { shootRef: { namespace: "garden-p", name: "s" } }, namespace: "term-123", pod: { container: { image: "busybox" } } },
  target: { credentials: { serviceAccountRef: { namespace: "garden-p", name: "sa" } }, kubeconfigContextNamespace: "default", namespace: "term-123", bindingKind: "ClusterRoleBinding", roleName: "cluster-admin" },
  ...extra,
});
const terminal = (s: unknown, meta: Record<string, unknown> = {}): KubeObject => ({
  apiVersion: "dashboard.gardener.cloud/v1alpha1",
  kind: "Terminal",
  metadata: { name: "term-shoot-abc", namespace: "garden-p", ...meta },
  spec: s,
});

describe("Terminal (docs/terminals.md#the-terminal-kind)", () => {
  it("is namespaced with a status subresource and accepts upstream's fields unchanged", () => {
    assert.equal(terminalDefinition.namespaced, true);
    assert.equal(terminalDefinition.hasStatus, true);
    const out = simulateCreate(terminalDefinition, terminal(spec({ target: { ...spec().target, apiServer: { server: "https://x", caData: "Zm9v" }, authorization: { roleBindings: [{ nameSuffix: "", roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "view" }, bindingKind: "RoleBinding" }] } } })));
    assert.deepEqual(out.errors, []);
    assert.deepEqual(out.removed, []);
  });

  it("requires what the CRD requires and keeps bindingKind to its enum", () => {
    const out = simulateCreate(terminalDefinition, terminal({ host: { credentials: { shootRef: { name: "s" } }, pod: { container: {} } }, target: { credentials: {}, bindingKind: "Binding", authorization: { roleBindings: [{ roleRef: {} }] } } }));
    assert.deepEqual(out.errors.sort(), [
      "spec.host.credentials.shootRef.namespace: Required value",
      "spec.host.pod.container.image: Required value",
      "spec.identifier: Required value",
      "spec.target.authorization.roleBindings[0].bindingKind: Required value",
      "spec.target.authorization.roleBindings[0].nameSuffix: Required value",
      "spec.target.authorization.roleBindings[0].roleRef.kind: Required value",
      "spec.target.authorization.roleBindings[0].roleRef.name: Required value",
      'spec.target.bindingKind: Unsupported value: "Binding": supported values: "ClusterRoleBinding", "RoleBinding", ""',
      "spec.target.kubeconfigContextNamespace: Required value",
    ]);
  });

  it("drops a client's status on create and keeps the stored status on update", () => {
    const created = simulateCreate(terminalDefinition, { ...terminal(spec()), status: { podName: "term-123" } });
    assert.equal(created.obj.status, undefined);
    const old = { ...created.obj, status: { podName: "term-123", attachServiceAccountName: "term-attach-123" } };
    const updated = simulateUpdate(terminalDefinition, { ...terminal(spec()), status: { podName: "other" } }, old);
    assert.deepEqual(updated.obj.status, { podName: "term-123", attachServiceAccountName: "term-attach-123" });
  });

  it("prints CREATED-BY, READY, HEARTBEAT and AGE", () => {
    const table = terminalDefinition.table!;
    assert.deepEqual(table.columns.map((c) => c.name), ["Created By", "Ready", "Heartbeat", "Age"]);
    const meta = { creationTimestamp: "2026-01-02T00:00:00Z", annotations: { "gardener.cloud/created-by": "alice", "dashboard.gardener.cloud/last-heartbeat-at": "2026-01-02T00:08:00Z" } };
    assert.deepEqual(table.cells(terminal(spec(), meta), NOW), ["alice", "False", "2m ago", "10m"]);
    const ready = { ...terminal(spec(), meta), status: { podName: "term-123", attachServiceAccountName: "term-attach-123" } };
    assert.equal(table.cells(ready, NOW)[1], "True");
    assert.equal(table.cells(terminal(spec()), NOW)[2], "<none>");
  });
});
