import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { KubeObject } from "../../../apis/meta/v1/types.ts";
import { decode, decodeShared, encode, offerDecoded } from "./codec.ts";
import { widgetDefinition } from "./testing/fixtures.ts";

void describe("codec", () => {
  const def = widgetDefinition();

  void it("stores an object without its resourceVersion and leaves the object as it was", () => {
    const obj: KubeObject = { apiVersion: "demo.io/v1", kind: "Widget", metadata: { name: "w", resourceVersion: "7", uid: "u" }, spec: { a: 1 } };
    const before = structuredClone(obj);
    const value = encode(def, obj);
    assert.equal(value, '{"apiVersion":"demo.io/v1","kind":"Widget","metadata":{"name":"w","uid":"u"},"spec":{"a":1}}');
    assert.deepEqual(obj, before);
    assert.deepEqual(Object.keys(obj.metadata), ["name", "resourceVersion", "uid"], "the key keeps its place");
    assert.deepEqual(decode(def, { key: "k", value, createRevision: 3, modRevision: 9 }), { ...before, metadata: { name: "w", uid: "u", resourceVersion: "9" } });
  });

  void it("stores the definition's apiVersion and kind whatever the object says", () => {
    const obj = { apiVersion: "demo.io/v0", metadata: { name: "w" } } as KubeObject;
    assert.deepEqual(JSON.parse(encode(def, obj)), { apiVersion: "demo.io/v1", kind: "Widget", metadata: { name: "w" } });
    assert.equal(obj.apiVersion, "demo.io/v0");
    assert.equal(obj.kind, undefined);
  });

  void it("watchers of a create in flight share the created object instead of decoding its value", () => {
    const obj: KubeObject = { apiVersion: "demo.io/v1", kind: "Widget", metadata: { name: "w", uid: "u1" }, spec: { a: 1 } };
    const value = encode(def, obj);
    const withdraw = offerDecoded(def, value, obj);
    const kv = { key: "k", value, createRevision: 5, modRevision: 5 };
    const shared = decodeShared(def, kv);
    assert.equal(shared, obj);
    assert.equal(obj.metadata.resourceVersion, "5");
    assert.deepEqual(shared, decode(def, kv), "the same as decoding");
    const other = decodeShared({ ...def, version: "v2" }, kv);
    assert.notEqual(other, obj, "another version decodes for itself");
    withdraw();
    const later = decodeShared(def, { ...kv });
    assert.notEqual(later, obj, "after the create settled, values are decoded again");
    assert.deepEqual(later, obj);
  });
});
