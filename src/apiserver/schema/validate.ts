// OpenAPI v3 (structural schema) validation with Kubernetes' field paths and messages, as
// apiextensions-apiserver reports kube-openapi's validation errors:
//   spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"
//   spec.mode: Unsupported value: "x": supported values: "a", "b"
//   spec.name: Required value
import type { FieldError } from "../../apimachinery/field/errors.ts";
import { duplicate, invalid, notSupported, required, typeInvalid } from "../../apimachinery/field/errors.ts";
import { checkFormat } from "./formats.ts";
import { type SchemaNode, canonicalJSON, childPath, indexPath, jsonTypeOf, objectMetaNode } from "./node.ts";
import { isRecord } from "../../utils/guards.ts";

/** How an object node relates to Kubernetes resources: the top-level object, an embedded resource, or neither. */
export type ResourceKind = "root" | "embedded" | undefined;

const bodyName = (path: string): string => path || ".";

function typeMatches(types: string[], actual: string): boolean {
  return types.includes(actual) || (actual === "integer" && types.includes("number"));
}

function typeError(path: string, types: string[], actual: string): FieldError {
  return typeInvalid(path, actual, `${bodyName(path)} in body must be of type ${types.join(",")}: "${actual}"`);
}

function enumText(v: unknown): string {
  return typeof v === "string" ? v : JSON.stringify(v);
}

export function validateNode(node: SchemaNode, value: unknown, path: string, errs: FieldError[], resource: ResourceKind): void {
  if (value === null || value === undefined) {
    if (!node.nullable && node.types) errs.push(typeError(path, node.types, "null"));
    return;
  }
  const actual = jsonTypeOf(value);
  if (node.types && !typeMatches(node.types, actual)) {
    errs.push(typeError(path, node.types, actual));
    return;
  }
  if (node.enumKeys && !node.enumKeys.has(canonicalJSON(value))) {
    errs.push(notSupported(path, value, (node.schema.enum ?? []).map(enumText)));
  }
  switch (actual) {
    case "string":
      validateString(node, value as string, path, errs);
      break;
    case "integer":
    case "number":
      validateNumber(node, value as number, path, errs);
      break;
    case "array":
      validateArray(node, value as unknown[], path, errs);
      break;
    case "object":
      validateObject(node, value as Record<string, unknown>, path, errs, resource);
      break;
  }
  validateJunctors(node, value, path, errs);
}

function validateString(node: SchemaNode, s: string, path: string, errs: FieldError[]): void {
  const n = bodyName(path);
  const { minLength, maxLength, format } = node.schema;
  if (maxLength !== undefined || minLength !== undefined) {
    const len = [...s].length;
    // Like Kubernetes' TooLong errors, the (possibly huge) value is not repeated.
    if (maxLength !== undefined && len > maxLength) errs.push({ type: "FieldValueTooLong", field: path, detail: `may not be longer than ${maxLength}` });
    if (minLength !== undefined && len < minLength) errs.push(invalid(path, s, `${n} in body should be at least ${minLength} chars long`));
  }
  if (node.pattern instanceof Error) errs.push(invalid(path, s, `${n} in body has an invalid pattern: ${node.pattern.message}`));
  else if (node.pattern && !node.pattern.test(s)) errs.push(invalid(path, s, `${n} in body should match '${node.schema.pattern}'`));
  if (format && !checkFormat(format, s)) {
    // Base64 payloads (Secret data) are not echoed back.
    if (format === "byte") errs.push(invalid(path, "<value omitted>", `${n} in body must be of type byte`));
    else errs.push(invalid(path, s, `${n} in body must be of type ${format}: ${JSON.stringify(s)}`));
  }
}

function validateNumber(node: SchemaNode, v: number, path: string, errs: FieldError[]): void {
  const n = bodyName(path);
  const { minimum, maximum, exclusiveMinimum, exclusiveMaximum, multipleOf } = node.schema;
  if (minimum !== undefined) {
    if (exclusiveMinimum && v <= minimum) errs.push(invalid(path, v, `${n} in body should be greater than ${minimum}`));
    else if (!exclusiveMinimum && v < minimum) errs.push(invalid(path, v, `${n} in body should be greater than or equal to ${minimum}`));
  }
  if (maximum !== undefined) {
    if (exclusiveMaximum && v >= maximum) errs.push(invalid(path, v, `${n} in body should be less than ${maximum}`));
    else if (!exclusiveMaximum && v > maximum) errs.push(invalid(path, v, `${n} in body should be less than or equal to ${maximum}`));
  }
  if (multipleOf !== undefined && multipleOf > 0) {
    const q = v / multipleOf;
    if (Math.abs(q - Math.round(q)) > 1e-9) errs.push(invalid(path, v, `${n} in body should be a multiple of ${multipleOf}`));
  }
}

function validateArray(node: SchemaNode, a: unknown[], path: string, errs: FieldError[]): void {
  const n = bodyName(path);
  const { minItems, maxItems, uniqueItems } = node.schema;
  if (minItems !== undefined && a.length < minItems) errs.push(invalid(path, a.length, `${n} in body should have at least ${minItems} items`));
  if (maxItems !== undefined && a.length > maxItems) {
    errs.push({ type: "FieldValueTooMany", field: path, value: a.length, detail: `must have at most ${maxItems} items` });
  }
  if (node.listType === "set") {
    const seen = new Set<string>();
    a.forEach((item, i) => {
      const key = canonicalJSON(item);
      if (seen.has(key)) errs.push(duplicate(indexPath(path, i), item));
      seen.add(key);
    });
  } else if (node.listType === "map" && node.listMapKeys.length) {
    const seen = new Set<string>();
    a.forEach((item, i) => {
      if (!isRecord(item)) return;
      const keyValues: Record<string, unknown> = {};
      for (const k of node.listMapKeys) keyValues[k] = item[k] ?? node.items?.properties?.get(k)?.schema.default ?? null;
      const key = canonicalJSON(keyValues);
      if (seen.has(key)) errs.push(duplicate(indexPath(path, i), keyValues));
      seen.add(key);
    });
  } else if (uniqueItems && new Set(a.map(canonicalJSON)).size !== a.length) {
    errs.push(invalid(path, a, `${n} in body shouldn't contain duplicates`));
  }
  if (node.items) {
    const items = node.items;
    const res: ResourceKind = items.embedded ? "embedded" : undefined;
    a.forEach((item, i) => validateNode(items, item, indexPath(path, i), errs, res));
  }
}

function validateObject(node: SchemaNode, o: Record<string, unknown>, path: string, errs: FieldError[], resource: ResourceKind): void {
  objectConstraints(node, o, path, errs, resource);
  for (const k of Object.keys(o)) {
    const v = o[k];
    if (v !== undefined) validateProperty(node, k, v, path, errs, resource);
  }
}

/** required (and an embedded resource's apiVersion and kind), minProperties, maxProperties. */
function objectConstraints(node: SchemaNode, o: Record<string, unknown>, path: string, errs: FieldError[], resource: ResourceKind): void {
  const { minProperties, maxProperties } = node.schema;
  for (const r of node.schema.required ?? []) {
    if (o[r] === undefined) errs.push(required(childPath(path, r)));
  }
  if (resource === "embedded" && !node.preserveUnknown) {
    // Embedded resources need apiVersion and kind (metadata is optional).
    for (const k of ["apiVersion", "kind"]) {
      if (o[k] === undefined && !node.schema.required?.includes(k)) errs.push(required(childPath(path, k), "must not be empty"));
    }
  }
  if (maxProperties === undefined && minProperties === undefined) return;
  const count = Object.keys(o).length;
  if (maxProperties !== undefined && count > maxProperties) {
    errs.push({ type: "FieldValueTooMany", field: path, value: count, detail: `must have at most ${maxProperties} items` });
  }
  if (minProperties !== undefined && count < minProperties) errs.push(invalid(path, count, `${bodyName(path)} in body should have at least ${minProperties} properties`));
}

/** One property: by its schema, else additionalProperties; a resource's apiVersion, kind and metadata without a schema of their own are checked as kube's. */
function validateProperty(node: SchemaNode, k: string, v: unknown, path: string, errs: FieldError[], resource: ResourceKind): void {
  const p = childPath(path, k);
  const prop = node.properties?.get(k);
  if (resource && !prop) {
    if (k === "apiVersion" || k === "kind") {
      if (typeof v !== "string") errs.push(typeError(p, ["string"], jsonTypeOf(v)));
      return;
    }
    if (k === "metadata") {
      validateNode(objectMetaNode(), v, p, errs, undefined);
      return;
    }
  }
  if (prop) {
    validateNode(prop, v, p, errs, prop.embedded ? "embedded" : undefined);
  } else if (typeof node.additional === "object") {
    validateNode(node.additional, v, p, errs, node.additional.embedded ? "embedded" : undefined);
  } else if (node.additional === false && !node.preserveUnknown) {
    errs.push(invalid(p, v, `${p} in body is a forbidden property`));
  }
}

function passes(node: SchemaNode, value: unknown, path: string): boolean {
  const errs: FieldError[] = [];
  validateNode(node, value, path, errs, undefined);
  return errs.length === 0;
}

function validateJunctors(node: SchemaNode, value: unknown, path: string, errs: FieldError[]): void {
  const n = bodyName(path);
  for (const sub of node.allOf ?? []) validateNode(sub, value, path, errs, undefined);
  if (node.anyOf && !node.anyOf.some((sub) => passes(sub, value, path))) {
    errs.push(invalid(path, value, `${n} in body must validate at least one schema (anyOf)`));
  }
  if (node.oneOf && node.oneOf.filter((sub) => passes(sub, value, path)).length !== 1) {
    errs.push(invalid(path, value, `${n} in body must validate one and only one schema (oneOf)`));
  }
  if (node.not && passes(node.not, value, path)) {
    errs.push(invalid(path, value, `${n} in body must not validate the schema (not)`));
  }
}
