import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { JSONPathError, cellForJSONValue, parseJSONPath, printValue } from "./jsonpath.ts";

const obj = {
  metadata: { name: "n", labels: { app: "web", "app.kubernetes.io/name": "x" }, creationTimestamp: "2024-01-01T00:00:00Z" },
  spec: { replicas: 3, ratio: 1.5, enabled: true, hosts: ["a", "b", "c"], nested: { list: [{ v: 1 }, { v: 2 }] } },
  status: {
    conditions: [
      { type: "Progressing", status: "True" },
      { type: "Ready", status: "False", lastTransitionTime: "2024-01-01T01:00:00Z" },
    ],
  },
};

const find = (expr: string): unknown[] => parseJSONPath(expr).find(obj);

describe("parseJSONPath", () => {
  it("selects fields, indices, wildcards and slices", () => {
    assert.deepEqual(find(".spec.replicas"), [3]);
    assert.deepEqual(find("{.spec.replicas}"), [3]);
    assert.deepEqual(find("$.spec.replicas"), [3]);
    assert.deepEqual(find("spec.replicas"), [3]);
    assert.deepEqual(find(".metadata.labels.app"), ["web"]);
    assert.deepEqual(find(".metadata.labels.app\\.kubernetes\\.io/name"), ["x"]);
    assert.deepEqual(find(".metadata.labels['app.kubernetes.io/name']"), ["x"]);
    assert.deepEqual(find(".spec.hosts[0]"), ["a"]);
    assert.deepEqual(find(".spec.hosts[-1]"), ["c"]);
    assert.deepEqual(find(".spec.hosts[*]"), ["a", "b", "c"]);
    assert.deepEqual(find(".spec.hosts[0:2]"), ["a", "b"]);
    assert.deepEqual(find(".spec.nested.list[*].v"), [1, 2]);
    assert.deepEqual(find("..v"), [1, 2]);
  });

  it("filters list elements", () => {
    assert.deepEqual(find('.status.conditions[?(@.type=="Ready")].status'), ["False"]);
    assert.deepEqual(find(".status.conditions[?(@.type != 'Ready')].type"), ["Progressing"]);
    assert.deepEqual(find(".status.conditions[?(@.lastTransitionTime)].type"), ["Ready"]);
    assert.deepEqual(find(".spec.nested.list[?(@.v > 1)].v"), [2]);
  });

  it("yields nothing for missing keys and out-of-range indices", () => {
    assert.deepEqual(find(".spec.missing.deeper"), []);
    assert.deepEqual(find(".spec.hosts[7]"), []);
    assert.deepEqual(find('.status.conditions[?(@.type=="Nope")].status'), []);
  });

  it("rejects malformed expressions", () => {
    assert.throws(() => parseJSONPath(""), JSONPathError);
    assert.throws(() => parseJSONPath(".spec.hosts[x]"), /invalid array index/);
    assert.throws(() => parseJSONPath(".spec[?(@.a=="), /invalid literal/);
    assert.throws(() => parseJSONPath(".spec['open"), /unterminated/);
  });
});

describe("cellForJSONValue", () => {
  const now = new Date("2024-01-01T03:02:00Z");
  it("formats cells per column type as kube's CRD table convertor", () => {
    assert.equal(cellForJSONValue("string", "x", now), "x");
    assert.equal(cellForJSONValue("string", 3, now), "3");
    assert.equal(cellForJSONValue("string", { b: 1, a: ["x", "y"] }, now), "map[a:[x y] b:1]");
    assert.equal(cellForJSONValue("integer", 3.7, now), 3);
    assert.equal(cellForJSONValue("integer", "3", now), null);
    assert.equal(cellForJSONValue("number", 2, now), 2);
    assert.equal(cellForJSONValue("boolean", true, now), true);
    assert.equal(cellForJSONValue("boolean", "true", now), null);
    assert.equal(cellForJSONValue("date", "2024-01-01T00:00:00Z", now), "3h2m");
    assert.equal(cellForJSONValue("date", "yesterday", now), "<invalid>");
    assert.equal(cellForJSONValue("date", 5, now), null);
    assert.equal(cellForJSONValue("string", null, now), null);
  });

  it("prints values like Go's %v", () => {
    assert.equal(printValue([1, "a", true]), "[1 a true]");
    assert.equal(printValue(null), "<nil>");
  });
});
