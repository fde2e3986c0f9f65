import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { JSONSchemaProps } from "../../apis/apiextensions/v1/types.ts";
import { compileSchema } from "./compile.ts";
import { kindSchema } from "./objectmeta.ts";

const schema: JSONSchemaProps = kindSchema({
  properties: {
    spec: {
      type: "object",
      default: {},
      properties: {
        mode: { type: "string", default: "a" },
        nested: { type: "object", default: { list: [] }, properties: { list: { type: "array", items: { type: "string" } }, flag: { type: "boolean", default: true } } },
        ports: {
          type: "array",
          items: { type: "object", properties: { port: { type: "integer" }, protocol: { type: "string", default: "TCP" } } },
        },
        byName: { type: "object", additionalProperties: { type: "object", properties: { weight: { type: "integer", default: 1 } } } },
        optional: { type: "string" },
        keepNull: { type: "string", nullable: true },
        nullDefault: { type: "string", default: "d" },
        nullItems: { type: "array", items: { type: "string", default: "x" } },
      },
    },
    status: { type: "object", properties: { phase: { type: "string", default: "Pending" } } },
  },
});

describe("compileSchema().applyDefaults", () => {
  it("applies defaults where the parent exists, in items and additionalProperties", () => {
    const obj: Record<string, unknown> = {
      apiVersion: "v1",
      kind: "K",
      metadata: { name: "n" },
      spec: { ports: [{ port: 80 }, { port: 53, protocol: "UDP" }], byName: { a: {}, b: { weight: 5 } } },
    };
    compileSchema(schema).applyDefaults(obj);
    assert.deepEqual(obj.spec, {
      mode: "a",
      nested: { list: [], flag: true },
      ports: [
        { port: 80, protocol: "TCP" },
        { port: 53, protocol: "UDP" },
      ],
      byName: { a: { weight: 1 }, b: { weight: 5 } },
      nullDefault: "d",
    });
    // status is absent: its fields are not defaulted.
    assert.equal(obj.status, undefined);
  });

  it("defaults a missing parent when the parent itself has a default, then its children", () => {
    const obj: Record<string, unknown> = { metadata: {} };
    compileSchema(schema).applyDefaults(obj);
    assert.deepEqual(obj.spec, { mode: "a", nested: { list: [], flag: true }, nullDefault: "d" });
  });

  it("deep-copies default values", () => {
    const a: Record<string, unknown> = {};
    const b: Record<string, unknown> = {};
    compileSchema(schema).applyDefaults(a);
    compileSchema(schema).applyDefaults(b);
    ((a.spec as { nested: { list: string[] } }).nested.list).push("x");
    assert.deepEqual((b.spec as { nested: { list: string[] } }).nested.list, []);
    assert.deepEqual((schema.properties!.spec!.properties!.nested!.default as { list: string[] }).list, []);
  });

  it("drops non-nullable nulls without a default and defaults those with one", () => {
    const obj: Record<string, unknown> = { spec: { optional: null, keepNull: null, nullDefault: null, nullItems: [null, "y"] } };
    compileSchema(schema).applyDefaults(obj);
    const spec = obj.spec as Record<string, unknown>;
    assert.equal("optional" in spec, false);
    assert.equal(spec.keepNull, null);
    assert.equal(spec.nullDefault, "d");
    assert.deepEqual(spec.nullItems, ["x", "y"]);
  });
});
