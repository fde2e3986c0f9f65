// A schema compiled once into a tree of SchemaNodes: property maps, compiled patterns and enum
// keys are computed up front so validation, pruning and defaulting only walk the tree.
import type { JSONSchemaProps } from "../../apis/apiextensions/v1/types.ts";
import { objectMetaSchema } from "./objectmeta.ts";
import { isRecord } from "../../utils/guards.ts";

export type JSONType = "null" | "boolean" | "integer" | "number" | "string" | "array" | "object";

export interface SchemaNode {
  schema: JSONSchemaProps;
  /** Allowed JSON types; undefined when the schema does not restrict the type. */
  types: string[] | undefined;
  nullable: boolean;
  preserveUnknown: boolean;
  embedded: boolean;
  properties: Map<string, SchemaNode> | undefined;
  /** A schema for unknown keys, true (anything allowed), false (forbidden) or undefined (not specified). */
  additional: SchemaNode | boolean | undefined;
  items: SchemaNode | undefined;
  allOf: SchemaNode[] | undefined;
  anyOf: SchemaNode[] | undefined;
  oneOf: SchemaNode[] | undefined;
  not: SchemaNode | undefined;
  /** undefined when there is no pattern; an Error when the pattern does not compile. */
  pattern: RegExp | Error | undefined;
  enumKeys: Set<string> | undefined;
  hasDefault: boolean;
  /** list-type=set or list-type=map (with its keys). */
  listType: "set" | "map" | undefined;
  listMapKeys: string[];
}

const nodeCache = new WeakMap<JSONSchemaProps, SchemaNode>();

/** Compiles (or returns the cached compilation of) one schema object and everything below it. */
export function compileNode(schema: JSONSchemaProps): SchemaNode {
  const cached = nodeCache.get(schema);
  if (cached) return cached;
  const intOrString = schema["x-kubernetes-int-or-string"] === true;
  const node: SchemaNode = {
    schema,
    types: intOrString ? ["integer", "string"] : schema.type ? [schema.type] : undefined,
    nullable: schema.nullable === true,
    preserveUnknown: schema["x-kubernetes-preserve-unknown-fields"] === true,
    embedded: schema["x-kubernetes-embedded-resource"] === true,
    properties: undefined,
    additional: undefined,
    items: undefined,
    allOf: undefined,
    anyOf: undefined,
    oneOf: undefined,
    not: undefined,
    pattern: schema.pattern === undefined ? undefined : compilePattern(schema.pattern),
    enumKeys: schema.enum ? new Set(schema.enum.map(canonicalJSON)) : undefined,
    hasDefault: schema.default !== undefined,
    listType: schema["x-kubernetes-list-type"] === "set" || schema["x-kubernetes-list-type"] === "map" ? schema["x-kubernetes-list-type"] : undefined,
    listMapKeys: schema["x-kubernetes-list-map-keys"] ?? [],
  };
  // Cache before descending so a schema object reused at several places compiles once.
  nodeCache.set(schema, node);
  if (schema.properties) {
    node.properties = new Map(Object.entries(schema.properties).map(([k, v]) => [k, compileNode(v)]));
  }
  if (typeof schema.additionalProperties === "boolean") node.additional = schema.additionalProperties;
  else if (schema.additionalProperties) node.additional = compileNode(schema.additionalProperties);
  if (schema.items) node.items = compileNode(schema.items);
  if (schema.allOf) node.allOf = schema.allOf.map(compileNode);
  if (schema.anyOf) node.anyOf = schema.anyOf.map(compileNode);
  if (schema.oneOf) node.oneOf = schema.oneOf.map(compileNode);
  if (schema.not) node.not = compileNode(schema.not);
  return node;
}

/** The compiled ObjectMeta schema: `metadata` of every resource is validated and pruned with it. */
export function objectMetaNode(): SchemaNode {
  return compileNode(objectMetaSchema);
}

/** OpenAPI patterns are ECMA-262 regular expressions (Kubernetes uses RE2, a near subset). */
function compilePattern(pattern: string): RegExp | Error {
  try {
    return new RegExp(pattern, "u");
  } catch {
    try {
      return new RegExp(pattern);
    } catch (err) {
      return err instanceof Error ? err : new Error(String(err));
    }
  }
}

export function jsonTypeOf(v: unknown): JSONType {
  if (v === null || v === undefined) return "null";
  if (Array.isArray(v)) return "array";
  switch (typeof v) {
    case "string":
      return "string";
    case "boolean":
      return "boolean";
    case "number":
      return Number.isInteger(v) ? "integer" : "number";
    default:
      return "object";
  }
}

/** JSON with sorted object keys: equal values give equal strings. */
export function canonicalJSON(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJSON).join(",")}]`;
  if (isRecord(v)) {
    const keys = Object.keys(v).filter((k) => v[k] !== undefined).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJSON(v[k])}`).join(",")}}`;
  }
  return JSON.stringify(v ?? null);
}

export function childPath(path: string, key: string): string {
  return path ? `${path}.${key}` : key;
}

export function indexPath(path: string, i: number): string {
  return `${path}[${i}]`;
}
