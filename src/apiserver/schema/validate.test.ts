import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { JSONSchemaProps } from "../../apis/apiextensions/v1/types.ts";
import { formatFieldError } from "../../apimachinery/field/errors.ts";
import { compileSchema } from "./compile.ts";
import { kindSchema } from "./objectmeta.ts";

// A CRD-like schema: nested arrays and maps, int-or-string, enums, patterns, defaults in items.
const widgetSchema: JSONSchemaProps = kindSchema({
  properties: {
    spec: {
      type: "object",
      required: ["mode"],
      properties: {
        mode: { type: "string", enum: ["a", "b"] },
        replicas: { type: "integer", minimum: 1, maximum: 10 },
        ratio: { type: "number", minimum: 0, exclusiveMinimum: true },
        port: { "x-kubernetes-int-or-string": true },
        name: { type: "string", maxLength: 5, minLength: 2, pattern: "^[a-z]+$" },
        created: { type: "string", format: "date-time" },
        payload: { type: "string", format: "byte" },
        cidrs: { type: "array", maxItems: 2, items: { type: "string", format: "cidr" } },
        labels: { type: "object", additionalProperties: { type: "string" } },
        nullableField: { type: "string", nullable: true },
        ingress: {
          type: "array",
          items: {
            type: "object",
            properties: {
              ipBlock: { type: "object", properties: { cidr: { type: "string", format: "cidr" } }, required: ["cidr"] },
              ports: { type: "array", items: { type: "object", properties: { port: { type: "integer" }, protocol: { type: "string", default: "TCP" } } } },
            },
          },
        },
        tags: { type: "array", items: { type: "string" }, "x-kubernetes-list-type": "set" },
        conditions: {
          type: "array",
          "x-kubernetes-list-type": "map",
          "x-kubernetes-list-map-keys": ["type"],
          items: { type: "object", properties: { type: { type: "string" }, status: { type: "string" } } },
        },
        choice: { type: "object", properties: { x: { type: "string" }, y: { type: "string" } }, oneOf: [{ required: ["x"] }, { required: ["y"] }] },
        template: { type: "object", "x-kubernetes-embedded-resource": true, "x-kubernetes-preserve-unknown-fields": false, properties: { spec: { type: "object", "x-kubernetes-preserve-unknown-fields": true } } },
      },
    },
  },
});

function messages(obj: unknown): string[] {
  return compileSchema(widgetSchema).validate(obj).map(formatFieldError);
}

const base = () => ({ apiVersion: "example.com/v1", kind: "Widget", metadata: { name: "w" }, spec: { mode: "a" } as Record<string, unknown> });

describe("compileSchema().validate", () => {
  it("accepts a valid object", () => {
    const o = base();
    Object.assign(o.spec, {
      replicas: 3,
      ratio: 0.5,
      port: "http",
      name: "abc",
      created: "2024-01-01T00:00:00Z",
      payload: Buffer.from("hi").toString("base64"),
      cidrs: ["10.0.0.0/8", "fd00::/64"],
      labels: { a: "b" },
      nullableField: null,
      ingress: [{ ipBlock: { cidr: "1.2.3.4/32" }, ports: [{ port: 22 }] }],
      tags: ["x", "y"],
      conditions: [{ type: "Ready", status: "True" }, { type: "Other", status: "False" }],
      choice: { x: "1" },
      template: { apiVersion: "v1", kind: "Pod", metadata: { name: "p" }, spec: { anything: [1] } },
    });
    assert.deepEqual(messages(o), []);
  });

  it("reports type errors with kube wording and stops below them", () => {
    const o = base();
    Object.assign(o.spec, { replicas: "3", labels: { a: 1 }, port: true });
    assert.deepEqual(messages(o).sort(), [
      'spec.labels.a: Invalid value: "integer": spec.labels.a in body must be of type string: "integer"',
      'spec.port: Invalid value: "boolean": spec.port in body must be of type integer,string: "boolean"',
      'spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"',
    ]);
  });

  it("reports enums, required fields and ranges", () => {
    const o = { ...base(), spec: { mode: "x", replicas: 0, ratio: 0 } };
    assert.deepEqual(messages(o), [
      'spec.mode: Unsupported value: "x": supported values: "a", "b"',
      "spec.replicas: Invalid value: 0: spec.replicas in body should be greater than or equal to 1",
      "spec.ratio: Invalid value: 0: spec.ratio in body should be greater than 0",
    ]);
    assert.deepEqual(messages({ ...base(), spec: {} }), ["spec.mode: Required value"]);
    assert.deepEqual(messages({ ...base(), spec: { mode: "a", replicas: 11 } }), [
      "spec.replicas: Invalid value: 11: spec.replicas in body should be less than or equal to 10",
    ]);
  });

  it("checks strings: length, pattern and formats, without echoing base64 payloads", () => {
    const o = base();
    Object.assign(o.spec, { name: "ABCDEFG", created: "yesterday", payload: "not base64!" });
    assert.deepEqual(messages(o), [
      "spec.name: Too long: may not be longer than 5",
      `spec.name: Invalid value: "ABCDEFG": spec.name in body should match '^[a-z]+$'`,
      'spec.created: Invalid value: "yesterday": spec.created in body must be of type date-time: "yesterday"',
      'spec.payload: Invalid value: "<value omitted>": spec.payload in body must be of type byte',
    ]);
    assert.deepEqual(messages({ ...base(), spec: { mode: "a", name: "a" } }), [
      'spec.name: Invalid value: "a": spec.name in body should be at least 2 chars long',
    ]);
  });

  it("uses index paths inside arrays", () => {
    const o = base();
    Object.assign(o.spec, {
      cidrs: ["10.0.0.0/8", "x", "y"],
      ingress: [{ ipBlock: { cidr: "1.2.3.4/32" } }, { ipBlock: { cidr: "nope" } }, { ipBlock: {} }],
    });
    assert.deepEqual(messages(o), [
      "spec.cidrs: Too many: 3: must have at most 2 items",
      'spec.cidrs[1]: Invalid value: "x": spec.cidrs[1] in body must be of type cidr: "x"',
      'spec.cidrs[2]: Invalid value: "y": spec.cidrs[2] in body must be of type cidr: "y"',
      'spec.ingress[1].ipBlock.cidr: Invalid value: "nope": spec.ingress[1].ipBlock.cidr in body must be of type cidr: "nope"',
      "spec.ingress[2].ipBlock.cidr: Required value",
    ]);
  });

  it("rejects nulls unless nullable", () => {
    const o = base();
    Object.assign(o.spec, { nullableField: null, replicas: null });
    assert.deepEqual(messages(o), ['spec.replicas: Invalid value: "null": spec.replicas in body must be of type integer: "null"']);
  });

  it("checks list-type set and map uniqueness", () => {
    const o = base();
    Object.assign(o.spec, { tags: ["a", "b", "a"], conditions: [{ type: "Ready" }, { type: "Ready", status: "x" }] });
    assert.deepEqual(messages(o), ['spec.tags[2]: Duplicate value: "a"', 'spec.conditions[1]: Duplicate value: {"type":"Ready"}']);
  });

  it("evaluates oneOf as a value validation", () => {
    const o = base();
    Object.assign(o.spec, { choice: { x: "1", y: "2" } });
    assert.deepEqual(messages(o), [
      'spec.choice: Invalid value: {"x":"1","y":"2"}: spec.choice in body must validate one and only one schema (oneOf)',
    ]);
  });

  it("requires apiVersion and kind in embedded resources and types metadata", () => {
    const o = base();
    Object.assign(o.spec, { template: { metadata: { labels: { a: 1 } } } });
    assert.deepEqual(messages(o), [
      "spec.template.apiVersion: Required value: must not be empty",
      "spec.template.kind: Required value: must not be empty",
      'spec.template.metadata.labels.a: Invalid value: "integer": spec.template.metadata.labels.a in body must be of type string: "integer"',
    ]);
  });

  it("validates root apiVersion, kind and metadata even when the schema omits them", () => {
    const schema: JSONSchemaProps = { type: "object", properties: { spec: { type: "object" } } };
    const errs = compileSchema(schema).validate({ apiVersion: 1, kind: "K", metadata: { generation: "x" } }).map(formatFieldError);
    assert.deepEqual(errs, [
      'apiVersion: Invalid value: "integer": apiVersion in body must be of type string: "integer"',
      'metadata.generation: Invalid value: "string": metadata.generation in body must be of type integer: "string"',
    ]);
  });

  it("caches compilation per schema object", () => {
    assert.equal(compileSchema(widgetSchema), compileSchema(widgetSchema));
    assert.notEqual(compileSchema(widgetSchema), compileSchema(widgetSchema, { resource: false }));
  });

  it("reports multipleOf, min/max properties and additionalProperties: false", () => {
    const schema: JSONSchemaProps = {
      type: "object",
      properties: {
        n: { type: "integer", multipleOf: 5 },
        m: { type: "object", minProperties: 1, maxProperties: 2, additionalProperties: { type: "string" } },
        closed: { type: "object", properties: { a: { type: "string" } }, additionalProperties: false },
      },
    };
    const errs = compileSchema(schema, { resource: false })
      .validate({ n: 7, m: { a: "1", b: "2", c: "3" }, closed: { a: "x", b: "y" } })
      .map(formatFieldError);
    assert.deepEqual(errs, [
      "n: Invalid value: 7: n in body should be a multiple of 5",
      "m: Too many: 3: must have at most 2 items",
      'closed.b: Invalid value: "y": closed.b in body is a forbidden property',
    ]);
    assert.deepEqual(
      compileSchema(schema, { resource: false }).validate({ m: {} }).map(formatFieldError),
      ["m: Invalid value: 0: m in body should have at least 1 properties"],
    );
  });
});
