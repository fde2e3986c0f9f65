import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { FieldSet } from "./fieldset.ts";
import { fieldPE, indexPE, keyPE, parsePE, pathString, valuePE } from "./pathelement.ts";

void describe("FieldSet and fieldsV1", () => {
  void it("serializes as kube-apiserver: '.' for a member with children, elements sorted fields < keys < values < indexes", () => {
    const s = FieldSet.of(
      ["f:spec", "f:ports"],
      ["f:spec", "f:ports", keyPE([["port", 80], ["protocol", "TCP"]]), "f:name"],
      ["f:spec", "f:ports", keyPE([["protocol", "TCP"], ["port", 8]])],
      ["f:spec", "f:tags", valuePE("b")],
      ["f:spec", "f:tags", valuePE("a")],
      ["f:metadata", "f:labels", "f:x"],
    );
    const v1 = s.toFieldsV1();
    assert.equal(
      JSON.stringify(v1),
      '{"f:metadata":{"f:labels":{"f:x":{}}},"f:spec":{"f:ports":{".":{},"k:{\\"port\\":8,\\"protocol\\":\\"TCP\\"}":{},"k:{\\"port\\":80,\\"protocol\\":\\"TCP\\"}":{"f:name":{}}},"f:tags":{"v:\\"a\\"":{},"v:\\"b\\"":{}}}}',
    );
    assert.deepEqual(FieldSet.fromFieldsV1(v1).toFieldsV1(), v1, "round trip");
    assert.equal(FieldSet.fromFieldsV1(v1).has(["f:spec", "f:ports"]), true, "'.' makes the parent a member");
    assert.equal(FieldSet.fromFieldsV1(v1).has(["f:spec"]), false);
  });

  void it("canonicalizes client-sent elements (key order, JSON spacing) and refuses malformed ones", () => {
    assert.equal(parsePE('k:{ "protocol": "TCP", "port": 80 }'), 'k:{"port":80,"protocol":"TCP"}');
    assert.equal(parsePE('v: "x"'), 'v:"x"');
    assert.equal(valuePE("<a&b>"), 'v:"\\u003ca\\u0026b\\u003e"', "escaped as Go's encoding/json does");
    for (const bad of ["x", "q:1", "k:[1]", "k:{", "v:", "i:abc"]) assert.throws(() => parsePE(bad), Error, bad);
    assert.throws(() => FieldSet.fromFieldsV1({ "f:a": "nope" }));
    assert.throws(() => FieldSet.fromFieldsV1([]));
    let deep: Record<string, unknown> = {};
    for (let i = 0; i < 300; i++) deep = { "f:a": deep };
    assert.throws(() => FieldSet.fromFieldsV1(deep), /nested too deeply/);
  });

  void it("set algebra: union, intersection, difference (exact paths) and recursive difference (subtrees)", () => {
    const a = FieldSet.of(["f:a"], ["f:a", "f:b"], ["f:c"]);
    const b = FieldSet.of(["f:a"], ["f:d"]);
    assert.deepEqual(a.union(b).paths(), [["f:a"], ["f:c"], ["f:d"], ["f:a", "f:b"]]);
    assert.deepEqual(a.intersection(b).paths(), [["f:a"]]);
    assert.deepEqual(a.difference(b).paths(), [["f:c"], ["f:a", "f:b"]]);
    assert.deepEqual(a.recursiveDifference(b).paths(), [["f:c"]]);
    assert.deepEqual(a.withoutTop((pe) => pe === "f:a").paths(), [["f:c"]]);
  });

  void it("prints paths as conflict messages do", () => {
    assert.equal(pathString([fieldPE("spec"), fieldPE("ports"), keyPE([["port", 443], ["protocol", "TCP"]]), fieldPE("name")]), '.spec.ports[port=443,protocol="TCP"].name');
    assert.equal(pathString([fieldPE("metadata"), fieldPE("finalizers"), valuePE("x")]), '.metadata.finalizers[="x"]');
    assert.equal(pathString([fieldPE("a"), indexPE(3)]), ".a[3]");
  });
});
