// Structural-schema checks on a CRD version's openAPIV3Schema (a pragmatic subset of
// apiextensions-apiserver's structural schema validation): every specified field has a type,
// arrays have items, properties and additionalProperties exclude each other, value-validation
// junctors (allOf/anyOf/oneOf/not) do not declare types or defaults, patterns compile, and
// defaults validate against their schema. Paths use kube's notation: `properties[spec].type`.
import type { JSONSchemaProps } from "../../../../apis/apiextensions/v1/types.ts";
import { type FieldError, forbidden, invalid, notSupported, required } from "../../../../apimachinery/field/errors.ts";
import { compileSchema } from "../../../schema/compile.ts";

const TYPES = ["array", "boolean", "integer", "number", "object", "string"];
const METADATA_FIELDS = new Set(["name", "generateName"]);

type Place = "root" | "property" | "items" | "additionalProperties" | "junctor";

function checkNode(s: JSONSchemaProps, path: string, place: Place, errs: FieldError[]): void {
  checkType(s, path, place, errs);
  checkShape(s, path, errs);
  if (s.default !== undefined && place !== "junctor") {
    for (const e of compileSchema(s, { resource: false }).validate(s.default)) {
      errs.push({ ...e, field: e.field ? `${path}.default.${e.field}` : `${path}.default` });
    }
  }
  if (place === "root") checkRootMetadata(s, path, errs);
  checkChildren(s, path, errs);
}

/** `type`: set (to one of TYPES, object at the root) except in junctors, where it and `default` must be empty. */
function checkType(s: JSONSchemaProps, path: string, place: Place, errs: FieldError[]): void {
  if (place === "junctor") {
    if (s.type !== undefined) errs.push(forbidden(`${path}.type`, "must be empty to be structural"));
    if (s.default !== undefined) errs.push(forbidden(`${path}.default`, "must be empty to be structural"));
  } else if (s.type === undefined) {
    if (place === "root") errs.push(required(`${path}.type`, "must not be empty at the root"));
    else if (s["x-kubernetes-int-or-string"] !== true && s["x-kubernetes-preserve-unknown-fields"] !== true) {
      errs.push(required(`${path}.type`, place === "items" ? "must not be empty for specified array items" : "must not be empty for specified object fields"));
    }
  } else if (!TYPES.includes(s.type)) {
    errs.push(notSupported(`${path}.type`, s.type, TYPES));
  } else if (place === "root" && s.type !== "object") {
    errs.push(invalid(`${path}.type`, s.type, "must be object at the root"));
  }
}

/** Arrays have items, properties exclude additionalProperties, patterns compile, map lists have keys. */
function checkShape(s: JSONSchemaProps, path: string, errs: FieldError[]): void {
  if (s.type === "array" && !s.items) errs.push(required(`${path}.items`, "must be specified"));
  if (s.properties && s.additionalProperties !== undefined) {
    errs.push(forbidden(`${path}.additionalProperties`, "additionalProperties and properties are mutual exclusive"));
  }
  if (s.additionalProperties === false) errs.push(forbidden(`${path}.additionalProperties`, "cannot be set to false"));
  if (s.pattern !== undefined) {
    try {
      new RegExp(s.pattern, "u");
    } catch (err) {
      errs.push(invalid(`${path}.pattern`, s.pattern, `must be a valid regular expression, but isn't: ${(err as Error).message}`));
    }
  }
  if (s["x-kubernetes-list-type"] === "map" && !s["x-kubernetes-list-map-keys"]?.length) {
    errs.push(required(`${path}.x-kubernetes-list-map-keys`, "must not be empty if x-kubernetes-list-type is map"));
  }
}

function checkChildren(s: JSONSchemaProps, path: string, errs: FieldError[]): void {
  for (const [name, prop] of Object.entries(s.properties ?? {})) checkNode(prop, `${path}.properties[${name}]`, "property", errs);
  if (s.items) checkNode(s.items, `${path}.items`, "items", errs);
  if (typeof s.additionalProperties === "object") checkNode(s.additionalProperties, `${path}.additionalProperties`, "additionalProperties", errs);
  // Int-or-string may spell out its two types as anyOf, as Kubernetes' own IntOrString does.
  if (s["x-kubernetes-int-or-string"] === true) return;
  for (const junctor of ["allOf", "anyOf", "oneOf"] as const) {
    s[junctor]?.forEach((sub, i) => checkNode(sub, `${path}.${junctor}[${i}]`, "junctor", errs));
  }
  if (s.not) checkNode(s.not, `${path}.not`, "junctor", errs);
}

/** At the root, metadata may only restrict name and generateName. */
function checkRootMetadata(s: JSONSchemaProps, path: string, errs: FieldError[]): void {
  const meta = s.properties?.metadata;
  if (!meta) return;
  const extra = Object.keys(meta.properties ?? {}).some((k) => !METADATA_FIELDS.has(k));
  if (extra || (meta.type !== undefined && meta.type !== "object") || meta.default !== undefined || meta.additionalProperties !== undefined) {
    errs.push(forbidden(`${path}.properties[metadata]`, "must not specify anything other than name and generateName, but metadata is implicitly specified"));
  }
}

export function validateStructuralSchema(schema: JSONSchemaProps, path: string): FieldError[] {
  const errs: FieldError[] = [];
  checkNode(schema, path, "root", errs);
  return errs;
}
