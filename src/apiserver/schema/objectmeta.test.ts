import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { kindSchema, objectMetaSchema } from "./objectmeta.ts";

describe("kindSchema", () => {
  it("wraps a kind's fields with apiVersion, kind and ObjectMeta", () => {
    const s = kindSchema({ description: "A thing.", properties: { spec: { type: "object" } }, required: ["spec"] });
    assert.equal(s.type, "object");
    assert.equal(s.description, "A thing.");
    assert.deepEqual(Object.keys(s.properties!), ["apiVersion", "kind", "metadata", "spec"]);
    assert.equal(s.properties!.metadata, objectMetaSchema);
    assert.deepEqual(s.required, ["spec"]);
    assert.equal(kindSchema({ properties: {} }).required, undefined);
  });

  it("publishes ObjectMeta's strategic merge patch keys", () => {
    const p = objectMetaSchema.properties!;
    assert.equal(p.finalizers!["x-kubernetes-patch-strategy"], "merge");
    assert.equal(p.ownerReferences!["x-kubernetes-patch-strategy"], "merge");
    assert.equal(p.ownerReferences!["x-kubernetes-patch-merge-key"], "uid");
    assert.equal(p.creationTimestamp!.format, "date-time");
    assert.deepEqual(p.labels!.additionalProperties, { type: "string" });
  });
});
