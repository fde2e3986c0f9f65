import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { CustomResourceDefinition, JSONSchemaProps } from "../../../../apis/apiextensions/v1/types.ts";
import { simulateCreate, simulateStatusUpdate, simulateUpdate } from "../../core/testing.ts";
import { crdDefinition as def } from "./definition.ts";

const schema: JSONSchemaProps = {
  type: "object",
  properties: {
    spec: { type: "object", properties: { color: { type: "string" }, size: { type: "integer", default: 1 } } },
    status: { type: "object", properties: { phase: { type: "string" } } },
  },
};

function crd(overrides: Partial<CustomResourceDefinition["spec"]> = {}, name = "widgets.example.com"): CustomResourceDefinition {
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name },
    spec: {
      group: "example.com",
      names: { plural: "widgets", kind: "Widget" },
      scope: "Namespaced",
      versions: [{ name: "v1", served: true, storage: true, schema: { openAPIV3Schema: schema } }],
      ...overrides,
    },
  };
}

describe("CustomResourceDefinition", () => {
  it("is cluster-scoped with status", () => {
    assert.equal(def.namespaced, false);
    assert.equal(def.hasStatus, true);
    assert.deepEqual(def.shortNames, ["crd", "crds"]);
  });

  it("defaults names and conversion, records the storage version and keeps the schema verbatim", () => {
    const out = simulateCreate(def, { ...crd(), status: { acceptedNames: { plural: "x", kind: "X" } } });
    assert.deepEqual(out.errors, []);
    const spec = out.obj.spec as CustomResourceDefinition["spec"];
    assert.equal(spec.names.singular, "widget");
    assert.equal(spec.names.listKind, "WidgetList");
    assert.deepEqual(spec.conversion, { strategy: "None" });
    assert.deepEqual(spec.versions[0]!.schema!.openAPIV3Schema, schema);
    assert.deepEqual(out.obj.status, { storedVersions: ["v1"] });
  });

  it("requires the name to be <plural>.<group> and a dotted group", () => {
    const out = simulateCreate(def, crd({ group: "example" }, "widgets.example.com"));
    assert.deepEqual(out.errors, [
      'metadata.name: Invalid value: "widgets.example.com": must be spec.names.plural+"."+spec.group',
      'spec.group: Invalid value: "example": should be a domain with at least one dot',
    ]);
  });

  it("validates names, scope and conversion", () => {
    const out = simulateCreate(
      def,
      crd({ names: { plural: "Widgets", kind: "Wid get", listKind: "Wid get", shortNames: ["w_1"] }, scope: "Global" as "Cluster", conversion: { strategy: "Webhook" } }, "Widgets.example.com"),
    );
    assert.deepEqual(out.errors, [
      'spec.scope: Unsupported value: "Global": supported values: "Cluster", "Namespaced"',
      "spec.names.plural: Invalid value: \"Widgets\": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name', or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
      "spec.names.singular: Invalid value: \"wid get\": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name', or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
      "spec.names.kind: Invalid value: \"Wid get\": may have mixed case, but should otherwise match: a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name', or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
      "spec.names.listKind: Invalid value: \"Wid get\": may have mixed case, but should otherwise match: a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name', or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
      'spec.names.listKind: Invalid value: "Wid get": kind and listKind may not be the same',
      "spec.names.shortNames[0]: Invalid value: \"w_1\": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name', or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
      'spec.conversion.strategy: Unsupported value: "Webhook": supported values: "None"',
    ]);
  });

  it("needs exactly one storage version, a served one and unique names", () => {
    const v = (name: string, served: boolean, storage: boolean) => ({ name, served, storage, schema: { openAPIV3Schema: schema } });
    assert.deepEqual(simulateCreate(def, crd({ versions: [v("v1", false, true), v("v1", false, true)] })).errors, [
      'spec.versions: Invalid value: ["v1","v1"]: must contain unique version names',
      'spec.versions: Invalid value: ["v1","v1"]: must have exactly one version marked as storage version',
      'spec.versions: Invalid value: ["v1","v1"]: must have at least one version marked as served',
    ]);
    assert.deepEqual(simulateCreate(def, crd({ versions: [v("v1beta1", true, false), v("v1", true, true)] })).errors, []);
  });

  it("requires structural schemas", () => {
    const bad: JSONSchemaProps = {
      type: "object",
      properties: {
        metadata: { type: "object", properties: { labels: { type: "object" } } },
        spec: {
          type: "object",
          properties: {
            untyped: { description: "no type" },
            list: { type: "array" },
            both: { type: "object", properties: { a: { type: "string" } }, additionalProperties: { type: "string" } },
            junctor: { type: "object", anyOf: [{ type: "object", required: ["a"] }] },
            port: { "x-kubernetes-int-or-string": true, anyOf: [{ type: "integer" }, { type: "string" }] },
            replicas: { type: "integer", default: "one" },
            name: { type: "string", pattern: "([a-z" },
          },
        },
      },
    };
    const out = simulateCreate(def, crd({ versions: [{ name: "v1", served: true, storage: true, schema: { openAPIV3Schema: bad } }] }));
    const p = "spec.versions[0].schema.openAPIV3Schema";
    assert.deepEqual(out.errors, [
      `${p}.properties[metadata]: Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified`,
      `${p}.properties[spec].properties[untyped].type: Required value: must not be empty for specified object fields`,
      `${p}.properties[spec].properties[list].items: Required value: must be specified`,
      `${p}.properties[spec].properties[both].additionalProperties: Forbidden: additionalProperties and properties are mutual exclusive`,
      `${p}.properties[spec].properties[junctor].anyOf[0].type: Forbidden: must be empty to be structural`,
      `${p}.properties[spec].properties[replicas].default: Invalid value: "string": . in body must be of type integer: "string"`,
      `${p}.properties[spec].properties[name].pattern: Invalid value: "([a-z": must be a valid regular expression, but isn't: Invalid regular expression: /([a-z/u: Unterminated character class`,
    ]);
    assert.deepEqual(simulateCreate(def, crd({ versions: [{ name: "v1", served: true, storage: true }] })).errors, [
      "spec.versions[0].schema.openAPIV3Schema: Required value: schemas are required",
    ]);
    assert.deepEqual(simulateCreate(def, crd({ versions: [{ name: "v1", served: true, storage: true, schema: { openAPIV3Schema: { type: "string" } } }] })).errors, [
      'spec.versions[0].schema.openAPIV3Schema.type: Invalid value: "string": must be object at the root',
    ]);
  });

  it("validates printer columns and selectable fields", () => {
    const out = simulateCreate(
      def,
      crd({
        versions: [
          {
            name: "v1",
            served: true,
            storage: true,
            schema: { openAPIV3Schema: schema },
            additionalPrinterColumns: [
              { name: "Color", type: "string", jsonPath: ".spec.color" },
              { name: "", type: "map" as "string", jsonPath: "spec.color" },
            ],
            selectableFields: [{ jsonPath: ".spec.color" }, { jsonPath: ".spec.missing" }, { jsonPath: ".spec" }, { jsonPath: ".spec.color" }],
          },
        ],
      }),
    );
    const p = "spec.versions[0]";
    assert.deepEqual(out.errors, [
      `${p}.additionalPrinterColumns[1].name: Required value`,
      `${p}.additionalPrinterColumns[1].type: Unsupported value: "map": supported values: "integer", "number", "string", "boolean", "date"`,
      `${p}.additionalPrinterColumns[1].jsonPath: Invalid value: "spec.color": must be a simple json path starting with .`,
      `${p}.selectableFields[1].jsonPath: Invalid value: ".spec.missing": is an invalid path: does not refer to a valid field`,
      `${p}.selectableFields[2].jsonPath: Invalid value: ".spec": must point to a field of type string, boolean or integer. Enum string fields and strings with formats are allowed.`,
      `${p}.selectableFields[3].jsonPath: Duplicate value: ".spec.color"`,
    ]);
  });

  it("keeps scope and group immutable and stored versions listed", () => {
    const old = simulateCreate(def, crd()).obj;
    const changed = { ...old, spec: { ...(old.spec as object), scope: "Cluster", versions: [{ name: "v2", served: true, storage: true, schema: { openAPIV3Schema: schema } }] } };
    const out = simulateUpdate(def, changed, old);
    assert.deepEqual(out.errors, [
      'spec.scope: Invalid value: "Cluster": field is immutable',
      'status.storedVersions[0]: Invalid value: "v1": must appear in spec.versions',
    ]);
    assert.deepEqual(out.obj.status, { storedVersions: ["v1", "v2"] });
  });

  it("accepts status written by the controller", () => {
    const old = simulateCreate(def, crd()).obj;
    const status = {
      acceptedNames: { plural: "widgets", kind: "Widget", singular: "widget", listKind: "WidgetList" },
      conditions: [{ type: "Established", status: "True", lastTransitionTime: "2024-01-01T00:00:00Z", reason: "InitialNamesAccepted", message: "the initial names have been accepted" }],
      storedVersions: ["v1"],
    };
    const out = simulateStatusUpdate(def, { ...old, status }, old);
    assert.deepEqual(out.errors, []);
    assert.deepEqual(out.obj.status, status);
    assert.deepEqual(simulateStatusUpdate(def, { ...old, status: { storedVersions: ["v0"] } }, old).errors, [
      'status.storedVersions[0]: Invalid value: "v0": must appear in spec.versions',
    ]);
  });

  it("prints CREATED AT", () => {
    const obj = { ...crd(), metadata: { name: "widgets.example.com", creationTimestamp: "2024-01-01T00:00:00Z" } };
    assert.deepEqual(def.table!.columns.map((c) => [c.name, c.type]), [["Created At", "date"]]);
    assert.deepEqual(def.table!.cells(obj, new Date()), ["2024-01-01T00:00:00Z"]);
  });
});
