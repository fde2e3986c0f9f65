import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { type AuditAttributes, evaluate, parsePolicy, PolicyError } from "./policy.ts";

const alice = { username: "alice", groups: ["devs", "system:authenticated"] };
const bob = { username: "bob", groups: ["ops"] };
const res = (o: Partial<AuditAttributes> = {}): AuditAttributes => ({
  user: alice,
  verb: "get",
  resourceRequest: true,
  path: "/api/v1/namespaces/ns/pods/p",
  apiGroup: "",
  resource: "pods",
  subresource: "",
  namespace: "ns",
  name: "p",
  ...o,
});
const nonRes = (path: string, o: Partial<AuditAttributes> = {}): AuditAttributes => ({ user: alice, verb: "get", resourceRequest: false, path, ...o });

const policy = parsePolicy(`
apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
  - level: None
    users: [system:kube-proxy]
  - level: RequestResponse
    resources:
      - group: operations.gardener.cloud
        resources: [bastions]
  - level: Request
    verbs: [patch]
    resources:
      - group: ""
        resources: ["*/status"]
  - level: Metadata
    resources:
      - group: ""
        resources: [secrets, configmaps]
        resourceNames: [important]
    omitStages: [ResponseComplete]
  - level: Metadata
    userGroups: [ops]
    namespaces: [""]
  - level: Metadata
    nonResourceURLs: ["/healthz*", /version]
  - level: Request
    users: [alice]
    verbs: [delete]
    namespaces: [ns]
`);

void describe("audit policy", () => {
  void it("the first matching rule decides; no match is None", () => {
    assert.equal(evaluate(policy, res({ user: { username: "system:kube-proxy", groups: [] }, apiGroup: "operations.gardener.cloud", resource: "bastions" })).level, "None");
    assert.equal(evaluate(policy, res({ apiGroup: "operations.gardener.cloud", resource: "bastions" })).level, "RequestResponse");
    assert.equal(evaluate(policy, res()).level, "None", "pods get by alice matches no rule");
  });

  void it("groups must match exactly; a subresource needs its own pattern", () => {
    assert.equal(evaluate(policy, res({ apiGroup: "core.gardener.cloud", resource: "bastions" })).level, "None");
    assert.equal(evaluate(policy, res({ apiGroup: "operations.gardener.cloud", resource: "bastions", subresource: "status" })).level, "None");
    assert.equal(evaluate(policy, res({ verb: "patch", subresource: "status" })).level, "Request", "*/status");
    assert.equal(evaluate(policy, res({ verb: "update", subresource: "status" })).level, "None", "verbs");
  });

  void it("resourceNames restrict a rule to those objects; stages are the union of policy and rule", () => {
    const hit = evaluate(policy, res({ resource: "secrets", name: "important" }));
    assert.equal(hit.level, "Metadata");
    assert.deepEqual(hit.omitStages.sort(), ["RequestReceived", "ResponseComplete"]);
    assert.equal(evaluate(policy, res({ resource: "secrets", name: "other" })).level, "None");
    assert.equal(evaluate(policy, res({ resource: "configmaps", name: "important" })).level, "Metadata");
  });

  void it('namespace "" matches cluster-scoped requests only; userGroups need one common group', () => {
    assert.equal(evaluate(policy, res({ user: bob, resource: "nodes", namespace: "" })).level, "Metadata");
    assert.equal(evaluate(policy, res({ user: bob, resource: "pods", namespace: "ns" })).level, "None");
    assert.equal(evaluate(policy, res({ resource: "nodes", namespace: "" })).level, "None", "alice is not in ops");
    assert.equal(evaluate(policy, res({ verb: "delete" })).level, "Request");
    assert.equal(evaluate(policy, res({ verb: "delete", namespace: "other" })).level, "None");
  });

  void it("nonResourceURLs match exactly or by a trailing * prefix, and never resource requests", () => {
    assert.equal(evaluate(policy, nonRes("/healthz")).level, "Metadata");
    assert.equal(evaluate(policy, nonRes("/healthz/etcd")).level, "Metadata");
    assert.equal(evaluate(policy, nonRes("/version")).level, "Metadata");
    assert.equal(evaluate(policy, nonRes("/version/x")).level, "None");
    assert.equal(evaluate(policy, nonRes("/metrics")).level, "None");
    assert.equal(evaluate(policy, res({ user: bob, resource: "pods", namespace: "" , path: "/healthz" })).level, "Metadata", "via the ops rule, not the URL rule");
  });

  void it("omitManagedFields: the rule's setting wins over the policy's", () => {
    const p = parsePolicy(`{apiVersion: audit.k8s.io/v1, kind: Policy, omitManagedFields: true, rules: [{level: Metadata, verbs: [get], omitManagedFields: false}, {level: Metadata}]}`);
    assert.equal(evaluate(p, res()).omitManagedFields, false);
    assert.equal(evaluate(p, res({ verb: "list" })).omitManagedFields, true);
  });

  void it("rejects malformed policies with a clear message", () => {
    const bad: [string, RegExp][] = [
      ["apiVersion: v1\nkind: Policy\nrules: []", /apiVersion "audit.k8s.io\/v1"/],
      ["apiVersion: audit.k8s.io/v1\nkind: Policy", /rules: must be a list/],
      ["apiVersion: audit.k8s.io/v1\nkind: Policy\nrules: [{level: Verbose}]", /rules\[0\]\.level/],
      ["apiVersion: audit.k8s.io/v1\nkind: Policy\nrules: [{level: None, omitStages: [Done]}]", /unknown stage "Done"/],
      ["apiVersion: audit.k8s.io/v1\nkind: Policy\nrules: [{level: None, users: alice}]", /users: must be a list of strings/],
      ["apiVersion: audit.k8s.io/v1\nkind: Policy\nrules: [{level: None, nonResourceURLs: [/x], resources: [{group: ''}]}]", /both regular resources and non-resource URLs/],
      ["{", /not valid YAML/],
      ["x".repeat(1024 * 1024 + 1), /larger than/],
    ];
    for (const [text, msg] of bad) assert.throws(() => parsePolicy(text), (e: unknown) => e instanceof PolicyError && msg.test(e.message), text.slice(0, 60));
  });

  void it("the landscape's garden policy records every change to a Bastion and nothing else", () => {
    const garden = parsePolicy(readFileSync(new URL("../../../manifests/audit/garden-policy.yaml", import.meta.url), "utf8"));
    const bastion = (verb: string, subresource = "") => evaluate(garden, res({ verb, apiGroup: "operations.gardener.cloud", resource: "bastions", subresource, namespace: "garden-local" }));
    for (const verb of ["create", "patch", "update", "delete"]) {
      assert.equal(bastion(verb).level, "RequestResponse", verb);
      assert.deepEqual(bastion(verb).omitStages, ["RequestReceived"]);
    }
    assert.equal(bastion("get").level, "None");
    assert.equal(bastion("watch").level, "None");
    assert.equal(bastion("patch", "status").level, "None", "the gardenlet's status reports are not access");
    assert.equal(evaluate(garden, res({ verb: "create", resource: "secrets" })).level, "None");
  });
});
