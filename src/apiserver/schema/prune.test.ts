import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { JSONSchemaProps } from "../../apis/apiextensions/v1/types.ts";
import { compileSchema } from "./compile.ts";
import { kindSchema } from "./objectmeta.ts";

const schema: JSONSchemaProps = kindSchema({
  properties: {
    spec: {
      type: "object",
      properties: {
        known: { type: "string" },
        items: { type: "array", items: { type: "object", properties: { a: { type: "string" } } } },
        labels: { type: "object", additionalProperties: { type: "object", properties: { v: { type: "string" } } } },
        free: { type: "object", "x-kubernetes-preserve-unknown-fields": true, properties: { typed: { type: "object", properties: { x: { type: "string" } } } } },
        anything: { type: "object", additionalProperties: true },
        embedded: {
          type: "object",
          "x-kubernetes-embedded-resource": true,
          "x-kubernetes-preserve-unknown-fields": true,
        },
      },
    },
  },
});

describe("compileSchema().prune", () => {
  it("removes unknown fields and reports their paths", () => {
    const obj = {
      apiVersion: "example.com/v1",
      kind: "Widget",
      metadata: { name: "w", bogus: 1, ownerReferences: [{ apiVersion: "v1", kind: "K", name: "n", uid: "u", extra: true }] },
      spec: {
        known: "k",
        unknown: 1,
        items: [{ a: "1", b: "2" }, { c: 3 }],
        labels: { x: { v: "1", w: "2" } },
        free: { whatever: { deep: true }, typed: { x: "1", y: "2" } },
        anything: { q: 1 },
        embedded: { apiVersion: "v1", kind: "Pod", metadata: { name: "p", junk: 1 }, spec: { kept: true } },
      },
      status: { dropped: true },
    };
    const removed = compileSchema(schema).prune(obj);
    assert.deepEqual(removed.sort(), [
      "metadata.bogus",
      "metadata.ownerReferences[0].extra",
      "spec.embedded.metadata.junk",
      "spec.free.typed.y",
      "spec.items[0].b",
      "spec.items[1].c",
      "spec.labels.x.w",
      "spec.unknown",
      "status",
    ]);
    assert.deepEqual(obj, {
      apiVersion: "example.com/v1",
      kind: "Widget",
      metadata: { name: "w", ownerReferences: [{ apiVersion: "v1", kind: "K", name: "n", uid: "u" }] },
      spec: {
        known: "k",
        items: [{ a: "1" }, {}],
        labels: { x: { v: "1" } },
        free: { whatever: { deep: true }, typed: { x: "1" } },
        anything: { q: 1 },
        embedded: { apiVersion: "v1", kind: "Pod", metadata: { name: "p" }, spec: { kept: true } },
      },
    });
  });

  it("keeps apiVersion and kind at the root and prunes metadata even with a schema that does not list them", () => {
    const bare = compileSchema({ type: "object", properties: { spec: { type: "object", "x-kubernetes-preserve-unknown-fields": true } } });
    const obj = { apiVersion: "v1", kind: "K", metadata: { name: "n", nope: 1 }, spec: { a: 1 }, other: 2 };
    assert.deepEqual(bare.prune(obj).sort(), ["metadata.nope", "other"]);
    assert.deepEqual(obj, { apiVersion: "v1", kind: "K", metadata: { name: "n" }, spec: { a: 1 } });
  });

  it("does not treat the root as a resource when compiled as a plain schema", () => {
    const plain = compileSchema({ type: "object", properties: { a: { type: "string" } } }, { resource: false });
    const obj = { a: "x", kind: "K" };
    assert.deepEqual(plain.prune(obj), ["kind"]);
  });

  it("leaves values of the wrong type for validation to report", () => {
    const obj = { spec: { known: { nested: 1 }, items: "not-a-list" } };
    compileSchema(schema).prune(obj);
    assert.deepEqual(obj, { spec: { known: {}, items: "not-a-list" } });
  });
});
