import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { CustomResourceDefinition, JSONSchemaProps } from "../../../apis/apiextensions/v1/types.ts";
import type { KubeObject } from "../../../apis/meta/v1/types.ts";
import { formatFieldError } from "../../../apimachinery/field/errors.ts";
import { compileSchema } from "../../schema/compile.ts";
import { simulateCreate } from "../core/testing.ts";
import { definitionsFromCRD } from "./customresource.ts";

const v1Schema: JSONSchemaProps = {
  type: "object",
  properties: {
    metadata: { type: "object", properties: { name: { type: "string", maxLength: 10 } } },
    spec: {
      type: "object",
      required: ["color"],
      properties: {
        color: { type: "string", enum: ["red", "blue"] },
        replicas: { type: "integer", default: 1 },
        ports: { type: "array", items: { type: "object", properties: { port: { "x-kubernetes-int-or-string": true }, protocol: { type: "string", default: "TCP" } } } },
      },
    },
    status: { type: "object", properties: { ready: { type: "boolean" }, since: { type: "string", format: "date-time" } } },
  },
};

const crd: CustomResourceDefinition = {
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  metadata: { name: "widgets.example.com" },
  spec: {
    group: "example.com",
    names: { plural: "widgets", singular: "widget", kind: "Widget", listKind: "WidgetList", shortNames: ["wd"], categories: ["all"] },
    scope: "Namespaced",
    versions: [
      {
        name: "v1",
        served: true,
        storage: true,
        schema: { openAPIV3Schema: v1Schema },
        subresources: { status: {} },
        additionalPrinterColumns: [
          { name: "Color", type: "string", jsonPath: ".spec.color" },
          { name: "Replicas", type: "integer", jsonPath: ".spec.replicas", priority: 1 },
          { name: "Ready", type: "boolean", jsonPath: ".status.ready" },
          { name: "Since", type: "date", jsonPath: ".status.since", description: "ready since" },
          { name: "Ports", type: "string", jsonPath: ".spec.ports[*].port" },
        ],
        selectableFields: [{ jsonPath: ".spec.color" }, { jsonPath: ".spec.replicas" }],
      },
      { name: "v1beta1", served: true, storage: false, deprecated: true, schema: { openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true } } },
      { name: "v1alpha1", served: false, storage: false, schema: { openAPIV3Schema: { type: "object" } } },
    ],
  },
};

const widget = (spec: Record<string, unknown>, extra: Record<string, unknown> = {}): KubeObject => ({
  apiVersion: "example.com/v1",
  kind: "Widget",
  metadata: { name: "w1", namespace: "default", creationTimestamp: "2024-01-01T00:00:00Z" },
  spec,
  ...extra,
});

describe("definitionsFromCRD", () => {
  const [v1, v1beta1, ...rest] = definitionsFromCRD(crd);

  it("yields one definition per served version", () => {
    assert.equal(rest.length, 0);
    assert.deepEqual([v1!.version, v1beta1!.version], ["v1", "v1beta1"]);
    assert.deepEqual(
      { group: v1!.group, kind: v1!.kind, listKind: v1!.listKind, plural: v1!.plural, singular: v1!.singular, namespaced: v1!.namespaced },
      { group: "example.com", kind: "Widget", listKind: "WidgetList", plural: "widgets", singular: "widget", namespaced: true },
    );
    assert.deepEqual(v1!.shortNames, ["wd"]);
    assert.deepEqual(v1!.categories, ["all"]);
    assert.equal(v1!.crdName, "widgets.example.com");
    assert.equal(v1!.strategicMergePatch, false);
    assert.equal(v1!.strategy.allowUnconditionalUpdate, false);
    assert.equal(v1!.hasStatus, true);
    assert.equal(v1beta1!.hasStatus, false);
  });

  it("wraps the version schema with apiVersion, kind and ObjectMeta", () => {
    const props = v1!.schema.properties!;
    assert.equal(props.apiVersion!.type, "string");
    assert.equal(props.kind!.type, "string");
    assert.ok(props.metadata!.properties!.labels);
    assert.equal(props.metadata!.properties!.name!.maxLength, 10);
    assert.deepEqual(props.spec, v1Schema.properties!.spec);
  });

  it("prunes, defaults and validates custom resources with the version schema", () => {
    const out = simulateCreate(v1!, widget({ color: "red", ports: [{ port: 80 }, { port: "http", protocol: "UDP" }], extra: true }, { junk: 1 }));
    assert.deepEqual(out.errors, []);
    assert.deepEqual(out.removed.sort(), ["junk", "spec.extra"]);
    assert.deepEqual(out.obj.spec, { color: "red", replicas: 1, ports: [{ port: 80, protocol: "TCP" }, { port: "http", protocol: "UDP" }] });
    const bad = compileSchema(v1!.schema).validate(widget({ color: "green", ports: [{ port: true }] }, { metadata: { name: "a-very-long-name" } }));
    assert.deepEqual(bad.map(formatFieldError), [
      "metadata.name: Too long: may not be longer than 10",
      'spec.color: Unsupported value: "green": supported values: "red", "blue"',
      'spec.ports[0].port: Invalid value: "boolean": spec.ports[0].port in body must be of type integer,string: "boolean"',
    ]);
    const preserved = simulateCreate(v1beta1!, { ...widget({ anything: { goes: [1] } }), apiVersion: "example.com/v1beta1" });
    assert.deepEqual(preserved.removed, []);
    assert.deepEqual(preserved.obj.spec, { anything: { goes: [1] } });
  });

  it("builds the table from additionalPrinterColumns", () => {
    const table = v1!.table!;
    assert.deepEqual(
      table.columns.map((c) => [c.name, c.type, c.priority, c.description]),
      [
        ["Color", "string", 0, ""],
        ["Replicas", "integer", 1, ""],
        ["Ready", "boolean", 0, ""],
        ["Since", "date", 0, "ready since"],
        ["Ports", "string", 0, ""],
      ],
    );
    const obj = widget({ color: "blue", replicas: 3, ports: [{ port: 80 }, { port: 443 }] }, { status: { ready: true, since: "2024-01-01T00:30:00Z" } });
    assert.deepEqual(table.cells(obj, new Date("2024-01-01T01:00:00Z")), ["blue", 3, true, "30m", "80"]);
    assert.deepEqual(table.cells(widget({}), new Date()), [null, null, null, null, null]);
  });

  it("shows only AGE when there are no printer columns", () => {
    const table = v1beta1!.table!;
    assert.deepEqual(table.columns.map((c) => [c.name, c.type]), [["Age", "date"]]);
    assert.deepEqual(table.cells(widget({}), new Date("2024-01-03T00:00:00Z")), ["2d"]);
  });

  it("offers selectable fields as field selectors", () => {
    const sel = v1!.fieldSelectors!;
    assert.deepEqual(Object.keys(sel), ["spec.color", "spec.replicas"]);
    assert.equal(sel["spec.color"]!(widget({ color: "red" })), "red");
    assert.equal(sel["spec.replicas"]!(widget({ replicas: 2 })), "2");
    assert.equal(sel["spec.color"]!(widget({})), undefined);
    assert.deepEqual(v1beta1!.fieldSelectors, {});
  });

  it("warns about deprecated versions", () => {
    assert.equal(v1beta1!.deprecationWarning, "example.com/v1beta1 Widget is deprecated");
    assert.equal(v1!.deprecationWarning, undefined);
  });
});
