// How structured-merge-diff sees a value, from the OpenAPI schema of its field: a scalar, a map
// (granular or atomic, with named struct fields and/or free keys) or a list (atomic, a set, or an
// associative list by keys). Lists take x-kubernetes-list-type / x-kubernetes-list-map-keys, or
// else the strategic-merge-patch tags (merge with a merge key: by that key; merge alone: a set),
// as kube-openapi converts Kubernetes' schemas; anything else is atomic. Maps take
// x-kubernetes-map-type. Without a schema (x-kubernetes-preserve-unknown-fields), objects are
// granular maps and arrays atomic lists. A value that does not match its schema is a scalar
// (a leaf compared as a whole); validation reports it.
import type { JSONSchemaProps } from "../../apis/apiextensions/v1/types.ts";
import { objectMetaSchema } from "../schema/objectmeta.ts";
import { isRecord } from "../../utils/guards.ts";

export type Shape =
  | { kind: "scalar" }
  | { kind: "map"; atomic: boolean; fields: Record<string, JSONSchemaProps>; elem: JSONSchemaProps | undefined }
  | { kind: "list"; relation: "atomic" | "set" | "map"; keys: string[]; item: JSONSchemaProps | undefined };

const SCALAR: Shape = { kind: "scalar" };

function pick<K extends keyof JSONSchemaProps>(s: JSONSchemaProps, key: K): JSONSchemaProps[K] {
  let v = s[key];
  for (const sub of s.allOf ?? []) v ??= sub[key];
  return v;
}

function fieldsOf(s: JSONSchemaProps): Record<string, JSONSchemaProps> {
  if (!s.allOf?.length) return s.properties ?? {};
  const out: Record<string, JSONSchemaProps> = {};
  for (const sub of s.allOf) Object.assign(out, sub.properties ?? {});
  return Object.assign(out, s.properties ?? {});
}

const DEDUCED_MAP: Shape = { kind: "map", atomic: false, fields: {}, elem: undefined };
const DEDUCED_LIST: Shape = { kind: "list", relation: "atomic", keys: [], item: undefined };

function deduced(value: unknown): Shape {
  if (isRecord(value)) return DEDUCED_MAP;
  if (Array.isArray(value)) return DEDUCED_LIST;
  return SCALAR;
}

/** What a schema says regardless of the value: its type and the shape of a value of that type. */
type Typed =
  | { type: "object"; shape: Shape; deduceWhenPresent: boolean }
  | { type: "array"; shape: Shape }
  | { type: "deduce" }
  | { type: "scalar" };

/** Per schema object (schemas are not changed once compiled; a CRD update brings new ones). */
const typed = new WeakMap<JSONSchemaProps, Typed>();

function typeOf(schema: JSONSchemaProps): Typed {
  let t = typed.get(schema);
  if (!t) typed.set(schema, (t = computeType(schema)));
  return t;
}

function computeType(schema: JSONSchemaProps): Typed {
  if (pick(schema, "x-kubernetes-int-or-string")) return { type: "scalar" };
  const props = fieldsOf(schema);
  const additional = pick(schema, "additionalProperties");
  const items = pick(schema, "items");
  const type = pick(schema, "type") ?? (Object.keys(props).length || additional ? "object" : items ? "array" : undefined);
  if (type === "object") {
    const preserve = pick(schema, "x-kubernetes-preserve-unknown-fields") === true;
    const elem = typeof additional === "object" ? additional : undefined;
    const deduceWhenPresent = !elem && !preserve && additional !== true && Object.keys(props).length === 0;
    return { type, deduceWhenPresent, shape: { kind: "map", atomic: pick(schema, "x-kubernetes-map-type") === "atomic", fields: props, elem } };
  }
  if (type === "array") return { type, shape: { kind: "list", ...listRelation(schema), item: items } };
  if (type === undefined && pick(schema, "x-kubernetes-preserve-unknown-fields")) return { type: "deduce" };
  return { type: "scalar" };
}

/** The shape of `value` (which may be undefined or null) under `schema` (undefined: no schema). Shared: never changed by callers. */
export function shapeOf(schema: JSONSchemaProps | undefined, value: unknown): Shape {
  if (!schema) return deduced(value);
  const t = typeOf(schema);
  const present = value !== undefined && value !== null;
  switch (t.type) {
    case "object":
      if (present && !isRecord(value)) return SCALAR;
      return t.deduceWhenPresent && present ? deduced(value) : t.shape;
    case "array":
      return present && !Array.isArray(value) ? SCALAR : t.shape;
    case "deduce":
      return deduced(value);
    default:
      return SCALAR;
  }
}

function listRelation(s: JSONSchemaProps): { relation: "atomic" | "set" | "map"; keys: string[] } {
  const listType = pick(s, "x-kubernetes-list-type");
  if (listType === "set") return { relation: "set", keys: [] };
  if (listType === "map") return { relation: "map", keys: pick(s, "x-kubernetes-list-map-keys") ?? [] };
  if (listType === "atomic") return { relation: "atomic", keys: [] };
  const strategy = (pick(s, "x-kubernetes-patch-strategy") ?? "").split(",").map((p) => p.trim());
  if (strategy.includes("merge")) {
    const key = pick(s, "x-kubernetes-patch-merge-key");
    return key ? { relation: "map", keys: [key] } : { relation: "set", keys: [] };
  }
  return { relation: "atomic", keys: [] };
}

/** The schema of a map member: its named field, else the map's element schema. */
export function memberSchema(shape: Extract<Shape, { kind: "map" }>, key: string): JSONSchemaProps | undefined {
  return Object.hasOwn(shape.fields, key) ? shape.fields[key] : shape.elem;
}

export function isNamedField(shape: Shape, key: string): boolean {
  return shape.kind === "map" && Object.hasOwn(shape.fields, key);
}

const roots = new WeakMap<JSONSchemaProps, JSONSchemaProps>();

/** A resource's schema with ObjectMeta's (list types of finalizers and ownerReferences) under metadata. */
export function resourceSchema(schema: JSONSchemaProps): JSONSchemaProps {
  let root = roots.get(schema);
  if (!root) {
    root = { ...schema, type: "object", properties: { ...fieldsOf(schema), metadata: objectMetaSchema } };
    roots.set(schema, root);
  }
  return root;
}
