import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { forbiddenError, forbiddenMessage } from "./forbidden.ts";

const user = { username: "u", groups: [] };

describe("forbidden texts", () => {
  it("renders namespaced, cluster-scoped and subresource requests as kube does", () => {
    assert.equal(
      forbiddenMessage({ user, verb: "list", resourceRequest: true, apiGroup: "operations.gardener.cloud", resource: "bastions", namespace: "ns" }),
      'User "u" cannot list resource "bastions" in API group "operations.gardener.cloud" in the namespace "ns"',
    );
    assert.equal(
      forbiddenMessage({ user, verb: "update", resourceRequest: true, apiGroup: "", resource: "namespaces", subresource: "finalize" }),
      'User "u" cannot update resource "namespaces/finalize" in API group "" at the cluster scope',
    );
    assert.equal(forbiddenMessage({ user, verb: "get", resourceRequest: false, path: "/healthz" }), 'User "u" cannot get path "/healthz"');
  });

  it("builds 403 Status errors with the qualified resource, the name and the reason", () => {
    const e = forbiddenError({ user, verb: "get", resourceRequest: true, apiGroup: "core.gardener.cloud", resource: "shoots", namespace: "garden-a", name: "s1" }, "no way");
    assert.equal(e.code, 403);
    assert.equal(e.message, 'shoots.core.gardener.cloud "s1" is forbidden: User "u" cannot get resource "shoots" in API group "core.gardener.cloud" in the namespace "garden-a": no way');
    assert.deepEqual(e.toStatus().details, { group: "core.gardener.cloud", kind: "shoots", name: "s1" });
    const list = forbiddenError({ user, verb: "list", resourceRequest: true, apiGroup: "", resource: "secrets", namespace: "x" });
    assert.equal(list.message, 'secrets is forbidden: User "u" cannot list resource "secrets" in API group "" in the namespace "x"');
    const p = forbiddenError({ user, verb: "get", resourceRequest: false, path: "/metrics" });
    assert.equal(p.message, 'forbidden: User "u" cannot get path "/metrics"');
  });
});
