import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Terminal } from "../../apis/dashboard/v1alpha1/types.ts";
import { fnvHash, mutateTerminal, terminalLabels } from "./terminal.ts";

const base = (): Terminal => ({
  metadata: { name: "t", namespace: "garden-p", annotations: { "gardener.cloud/created-by": "mallory", "dashboard.gardener.cloud/operation": "keepalive" } },
  spec: {
    identifier: "client-chosen",
    host: { credentials: { shootRef: { namespace: "garden-p", name: "s" } }, temporaryNamespace: true, pod: { container: { image: "x" } } },
    target: { credentials: { shootRef: { namespace: "garden-p", name: "s" } }, namespace: "default", kubeconfigContextNamespace: "default" },
  },
});

describe("terminal helpers (docs/terminals.md#mutating-webhook)", () => {
  it("hashes like Go's FNV-1a 64", () => {
    assert.equal(fnvHash(""), "14695981039346656037");
    assert.equal(fnvHash("a"), "12638187200555641996");
  });

  it("CREATE: the authenticated user, a new identifier, temporary namespaces and the heartbeat overwrite the client's values", () => {
    const t = base();
    const now = Date.UTC(2026, 0, 2, 3, 4, 5, 678);
    mutateTerminal(t, "CREATE", "alice", now, () => "42");
    assert.equal(t.metadata.annotations?.["gardener.cloud/created-by"], "alice");
    assert.equal(t.spec.identifier, "42");
    assert.equal(t.spec.host.namespace, "term-42");
    assert.equal(t.spec.target.namespace, "default", "not temporary: kept");
    assert.equal(t.metadata.annotations?.["dashboard.gardener.cloud/last-heartbeat-at"], "2026-01-02T03:04:05Z");
    assert.equal(t.metadata.annotations?.["dashboard.gardener.cloud/operation"], undefined);
  });

  it("UPDATE: only a keepalive changes anything, never the creator or identifier", () => {
    const t = base();
    mutateTerminal(t, "UPDATE", "alice", Date.UTC(2026, 0, 2), () => "42");
    assert.equal(t.metadata.annotations?.["gardener.cloud/created-by"], "mallory");
    assert.equal(t.spec.identifier, "client-chosen");
    assert.equal(t.metadata.annotations?.["dashboard.gardener.cloud/last-heartbeat-at"], "2026-01-02T00:00:00Z");
    const plain = base();
    delete plain.metadata.annotations!["dashboard.gardener.cloud/operation"];
    mutateTerminal(plain, "UPDATE", "alice", Date.UTC(2026, 0, 2));
    assert.equal(plain.metadata.annotations?.["dashboard.gardener.cloud/last-heartbeat-at"], undefined);
  });

  it("labels need identifier, target namespace and creator", () => {
    const t = base();
    assert.deepEqual(terminalLabels(t), {
      component: "terminal-controller-manager",
      "terminal.dashboard.gardener.cloud/identifier": "client-chosen",
      "terminal.dashboard.gardener.cloud/target-ns-hash": fnvHash("default"),
      "terminal.dashboard.gardener.cloud/created-by-hash": fnvHash("mallory"),
    });
    delete t.spec.target.namespace;
    assert.equal(terminalLabels(t), "target namespace not set");
  });
});
