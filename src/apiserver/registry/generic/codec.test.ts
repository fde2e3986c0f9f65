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
    withdraw(true);
    const again = decodeShared(def, { ...kv, modRevision: 6 });
    assert.notEqual(again, obj, "only the create's own change gets the object");
    assert.equal(obj.metadata.resourceVersion, "5");
  });

  void it("a create's change that comes after the answer still shares the object; a failed create withdraws it", () => {
    const made = (uid: string): KubeObject => ({ apiVersion: "demo.io/v1", kind: "Widget", metadata: { name: "w", uid } });
    const late = made("u2");
    const lateValue = encode(def, late);
    offerDecoded(def, lateValue, late)(true);
    assert.equal(decodeShared(def, { key: "k", value: lateValue, createRevision: 7, modRevision: 7 }), late);
    const failed = made("u3");
    const failedValue = encode(def, failed);
    offerDecoded(def, failedValue, failed)(false);
    assert.notEqual(decodeShared(def, { key: "k", value: failedValue, createRevision: 8, modRevision: 8 }), failed);
    // Only the last few hundred answered creates keep their offer.
    const first = made("u-first");
    const firstValue = encode(def, first);
    offerDecoded(def, firstValue, first)(true);
    for (let i = 0; i < 300; i++) {
      const o = made(`u-${i}`);
      offerDecoded(def, encode(def, o), o)(true);
    }
    assert.notEqual(decodeShared(def, { key: "k", value: firstValue, createRevision: 9, modRevision: 9 }), first);
  });
});
