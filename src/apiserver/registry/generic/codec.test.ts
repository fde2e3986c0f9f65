import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { KubeObject } from "../../../apis/meta/v1/types.ts";
import { decode, encode } from "./codec.ts";
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
});
