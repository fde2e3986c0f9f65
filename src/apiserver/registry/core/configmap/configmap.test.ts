import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { KubeObject } from "../../../../apis/meta/v1/types.ts";
import { simulateCreate, simulateUpdate } from "../testing.ts";
import { configMapDefinition as def } from "./definition.ts";

const cm = (extra: Record<string, unknown> = {}): KubeObject => ({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c", namespace: "default" }, ...extra });

describe("ConfigMap", () => {
  it("accepts data and binaryData and prunes unknown fields", () => {
    const out = simulateCreate(def, cm({ data: { "a.conf": "x" }, binaryData: { bin: Buffer.from([0, 1]).toString("base64") }, spec: {} }));
    assert.deepEqual(out.errors, []);
    assert.deepEqual(out.removed, ["spec"]);
  });

  it("rejects bad keys, keys in both maps, non-string data and oversize content", () => {
    const out = simulateCreate(def, cm({ data: { dup: "1", ".": "x", n: 5 }, binaryData: { dup: "AA==" } }));
    assert.deepEqual(out.errors, [
      'data.n: Invalid value: "integer": data.n in body must be of type string: "integer"',
      'data[dup]: Invalid value: "dup": duplicate of key present in binaryData',
      `data[.]: Invalid value: ".": must not be '.'`,
      'binaryData[dup]: Invalid value: "dup": duplicate of key present in data',
    ]);
    const big = simulateCreate(def, cm({ data: { a: "x".repeat(1024 * 1024), b: "y" } }));
    assert.deepEqual(big.errors, [": Too long: must have at most 1048576 bytes"]);
  });

  it("freezes data and binaryData of immutable config maps", () => {
    const old = simulateCreate(def, cm({ data: { a: "1" }, immutable: true })).obj;
    assert.deepEqual(simulateUpdate(def, { ...old, data: { a: "1" } }, old).errors, []);
    assert.deepEqual(simulateUpdate(def, { ...old, data: { a: "2" }, binaryData: { b: "AA==" } }, old).errors, [
      "data: Forbidden: field is immutable when `immutable` is set",
      "binaryData: Forbidden: field is immutable when `immutable` is set",
    ]);
    const { immutable: _i, ...rest } = old;
    assert.deepEqual(simulateUpdate(def, rest, old).errors, ["immutable: Forbidden: field is immutable when `immutable` is set"]);
  });

  it("prints DATA (data and binaryData entries) and AGE", () => {
    const obj = cm({ data: { a: "1", b: "2" }, binaryData: { c: "AA==" } });
    obj.metadata.creationTimestamp = "2024-01-01T00:00:00Z";
    assert.deepEqual(def.table!.columns.map((c) => c.name), ["Data", "Age"]);
    assert.deepEqual(def.table!.cells(obj, new Date("2024-01-01T00:00:42Z")), [3, "42s"]);
  });
});
