import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { isStatusError } from "../../apimachinery/errors.ts";
import { bodyFormatOf, contentTypeOf, negotiateOutput, parseAccept, patchTypeOf } from "./negotiation.ts";

const KUBECTL_TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json";
const DISCOVERY_129 = "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json";
const DISCOVERY_130 =
  "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json";

function code(fn: () => unknown): number | undefined {
  try {
    fn();
  } catch (err) {
    return isStatusError(err) ? err.code : -1;
  }
  return undefined;
}

void describe("negotiateOutput", () => {
  void it("serves JSON without an Accept header or for */*", () => {
    assert.deepEqual(negotiateOutput(undefined), { kind: "json" });
    assert.deepEqual(negotiateOutput("*/*"), { kind: "json" });
    assert.deepEqual(negotiateOutput("application/json, */*"), { kind: "json" });
  });

  void it("serves the Table kubectl asks for only where tables are offered", () => {
    assert.deepEqual(negotiateOutput(KUBECTL_TABLE, { table: true }), { kind: "table", version: "v1" });
    assert.deepEqual(negotiateOutput(KUBECTL_TABLE, {}), { kind: "json" });
    assert.deepEqual(negotiateOutput("application/json;as=Table;v=v1beta1;g=meta.k8s.io", { table: true }), { kind: "table", version: "v1beta1" });
  });

  void it("serves aggregated discovery only on an exact g/v/as match", () => {
    assert.deepEqual(negotiateOutput(DISCOVERY_129, { discovery: true }), { kind: "discovery", version: "v2beta1" });
    assert.deepEqual(negotiateOutput(DISCOVERY_130, { discovery: true }), { kind: "discovery", version: "v2" });
    assert.deepEqual(negotiateOutput("application/json;g=apidiscovery.k8s.io;v=v3;as=APIGroupDiscoveryList,application/json", { discovery: true }), { kind: "json" });
    assert.deepEqual(negotiateOutput("application/json;g=other.io;v=v2;as=APIGroupDiscoveryList,application/json", { discovery: true }), { kind: "json" });
    assert.deepEqual(negotiateOutput("application/json;v=v2;as=APIGroupDiscoveryList;g=apidiscovery.k8s.io", { discovery: true }), { kind: "discovery", version: "v2" });
  });

  void it("answers 406 only when nothing listed is acceptable", () => {
    assert.equal(code(() => negotiateOutput("application/vnd.kubernetes.protobuf")), 406);
    assert.equal(code(() => negotiateOutput("application/json;as=Table;v=v1;g=meta.k8s.io")), 406);
    assert.deepEqual(negotiateOutput("application/vnd.kubernetes.protobuf,application/json"), { kind: "json" });
  });

  void it("honours q values", () => {
    assert.deepEqual(parseAccept("a/b;q=0.5, c/d").map((m) => m.type), ["c/d", "a/b"]);
    assert.deepEqual(negotiateOutput("application/yaml;q=0.9,application/json", { yaml: true }), { kind: "json" });
    assert.deepEqual(negotiateOutput("application/yaml", { yaml: true }), { kind: "yaml" });
  });

  void it("names the content type of each format", () => {
    assert.equal(contentTypeOf({ kind: "discovery", version: "v2" }), "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList");
    assert.equal(contentTypeOf({ kind: "json" }), "application/json");
  });
});

void describe("request bodies", () => {
  void it("decodes JSON by default, YAML and protobuf on request; others are 415", () => {
    assert.equal(bodyFormatOf(undefined), "json");
    assert.equal(bodyFormatOf("application/json; charset=utf-8"), "json");
    assert.equal(bodyFormatOf("application/yaml"), "yaml");
    assert.equal(bodyFormatOf("application/vnd.kubernetes.protobuf"), "protobuf");
    assert.equal(code(() => bodyFormatOf("application/cbor")), 415);
  });

  void it("maps patch content types and refuses SMP where it is not implemented", () => {
    assert.equal(patchTypeOf("application/json-patch+json", false), "json");
    assert.equal(patchTypeOf("application/merge-patch+json", false), "merge");
    assert.equal(patchTypeOf("application/strategic-merge-patch+json", true), "strategic");
    assert.equal(patchTypeOf("application/apply-patch+yaml; charset=utf-8", false), "apply");
    assert.equal(code(() => patchTypeOf("application/strategic-merge-patch+json", false)), 415);
    assert.equal(code(() => patchTypeOf("application/json", true)), 415);
    assert.equal(code(() => patchTypeOf(undefined, true)), 415);
  });
});
