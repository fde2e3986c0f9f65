import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Webhook } from "../../../apis/admissionregistration/v1/types.ts";
import type { ResourceDefinition } from "../../registry/types.ts";
import type { AdmissionAttributes } from "../types.ts";
import { isExempt, namespaceSelectorMatches, namespaceToLookUp, objectSelectorMatches, ruleMatches } from "./matching.ts";

const def = (group: string, plural: string, namespaced = true) => ({ group, version: "v1", plural, kind: "X", namespaced }) as ResourceDefinition;
const attrs = (over: Partial<AdmissionAttributes> = {}): AdmissionAttributes => ({
  operation: "CREATE",
  resource: def("", "pods"),
  subresource: "",
  namespace: "ns",
  name: "p",
  user: { username: "u", groups: [] },
  dryRun: false,
  object: { apiVersion: "v1", kind: "Pod", metadata: { name: "p", labels: { app: "a" } } },
  ...over,
});
const rule = (resources: string[], extra = {}) => ({ operations: ["*"], apiGroups: [""], apiVersions: ["v1"], resources, ...extra });
const hook = (extra: Partial<Webhook> = {}): Webhook => ({ name: "a.b.c", clientConfig: { url: "https://x" }, ...extra });

describe("webhook rules", () => {
  it("match resources, subresources and wildcards as upstream", () => {
    const status = attrs({ subresource: "status" });
    const cases: [string[], AdmissionAttributes, boolean][] = [
      [["pods"], attrs(), true],
      [["pods"], status, false],
      [["pods/status"], status, true],
      [["pods/*"], status, true],
      [["pods/*"], attrs(), true], // upstream: "*" as subresource also matches none
      [["*"], attrs(), true],
      [["*"], status, false],
      [["*/status"], status, true],
      [["*/*"], status, true],
      [["services"], attrs(), false],
    ];
    for (const [resources, a, want] of cases) assert.equal(ruleMatches(rule(resources), a), want, `${resources.join(",")} ${a.subresource}`);
  });

  it("match operations, groups, versions and scope", () => {
    assert.equal(ruleMatches(rule(["pods"], { operations: ["UPDATE"] }), attrs()), false);
    assert.equal(ruleMatches(rule(["pods"], { operations: ["CREATE", "UPDATE"] }), attrs()), true);
    assert.equal(ruleMatches(rule(["pods"], { apiGroups: ["apps"] }), attrs()), false);
    assert.equal(ruleMatches(rule(["pods"], { apiVersions: ["v2"] }), attrs()), false);
    assert.equal(ruleMatches(rule(["pods"], { scope: "Cluster" }), attrs()), false);
    assert.equal(ruleMatches(rule(["pods"], { scope: "Namespaced" }), attrs()), true);
    const ns = attrs({ resource: def("", "namespaces", false), namespace: "ns" });
    assert.equal(ruleMatches(rule(["namespaces"], { scope: "Cluster" }), ns), true);
    assert.equal(ruleMatches(rule(["namespaces"], { scope: "Namespaced" }), ns), false);
  });

  it("exempt the webhook configurations themselves", () => {
    assert.equal(isExempt(attrs({ resource: def("admissionregistration.k8s.io", "validatingwebhookconfigurations", false) })), true);
    assert.equal(isExempt(attrs()), false);
  });
});

describe("webhook selectors", () => {
  it("objectSelector matches the new or the old object", () => {
    const h = hook({ objectSelector: { matchLabels: { app: "b" } } });
    assert.equal(objectSelectorMatches(h, attrs()), false);
    assert.equal(objectSelectorMatches(h, attrs({ oldObject: { apiVersion: "v1", kind: "Pod", metadata: { name: "p", labels: { app: "b" } } } })), true);
    assert.equal(objectSelectorMatches(hook({ objectSelector: {} }), attrs()), true);
  });

  it("namespaceSelector reads a namespace only when needed and uses a Namespace's own labels", () => {
    const h = hook({ namespaceSelector: { matchLabels: { env: "prod" } } });
    assert.equal(namespaceToLookUp(hook({ namespaceSelector: {} }), attrs()), undefined);
    assert.equal(namespaceToLookUp(h, attrs()), "ns");
    assert.equal(namespaceSelectorMatches(h, attrs(), { env: "prod" }), true);
    assert.equal(namespaceSelectorMatches(h, attrs(), { env: "dev" }), false);
    const nsAttrs = attrs({ resource: def("", "namespaces", false), object: { apiVersion: "v1", kind: "Namespace", metadata: { name: "ns", labels: { env: "prod" } } } });
    assert.equal(namespaceToLookUp(h, nsAttrs), undefined);
    assert.equal(namespaceSelectorMatches(h, nsAttrs, undefined), true);
    const cluster = attrs({ resource: def("", "nodes", false), namespace: undefined });
    assert.equal(namespaceSelectorMatches(h, cluster, undefined), true);
  });
});
