// Small constructors for the OpenAPI v3 schemas of built-in kinds, so that kind schemas read
// like the Go types they mirror. Every helper returns a fresh object.
import type { JSONSchemaProps } from "../../apis/apiextensions/v1/types.ts";

type Extra = Omit<JSONSchemaProps, "type">;

export function str(description?: string, extra: Extra = {}): JSONSchemaProps {
  return { type: "string", ...(description ? { description } : {}), ...extra };
}

export function enumStr(values: string[], description?: string): JSONSchemaProps {
  return str(description, { enum: values });
}

export function int32(description?: string, extra: Extra = {}): JSONSchemaProps {
  return { type: "integer", format: "int32", ...(description ? { description } : {}), ...extra };
}

export function int64(description?: string, extra: Extra = {}): JSONSchemaProps {
  return { type: "integer", format: "int64", ...(description ? { description } : {}), ...extra };
}

export function bool(description?: string, extra: Extra = {}): JSONSchemaProps {
  return { type: "boolean", ...(description ? { description } : {}), ...extra };
}

/** metav1.Time: RFC 3339 with second precision. */
export function time(description?: string): JSONSchemaProps {
  return str(description, { format: "date-time" });
}

/** metav1.MicroTime: RFC 3339 with microseconds. */
export function microTime(description?: string): JSONSchemaProps {
  return str(description, { format: "date-time" });
}

/** map[string]string */
export function stringMap(description?: string): JSONSchemaProps {
  return { type: "object", ...(description ? { description } : {}), additionalProperties: { type: "string" } };
}

/** map[string][]byte: base64 values. */
export function bytesMap(description?: string): JSONSchemaProps {
  return { type: "object", ...(description ? { description } : {}), additionalProperties: { type: "string", format: "byte" } };
}

/** map[string]resource.Quantity */
export function quantityMap(description?: string): JSONSchemaProps {
  return { type: "object", ...(description ? { description } : {}), additionalProperties: quantity() };
}

/** resource.Quantity: a number or a string such as "100m" or "1Gi". */
export function quantity(description?: string): JSONSchemaProps {
  return { ...(description ? { description } : {}), "x-kubernetes-int-or-string": true, anyOf: [{ type: "integer" }, { type: "string" }] };
}

export function stringArray(description?: string, extra: Extra = {}): JSONSchemaProps {
  return { type: "array", ...(description ? { description } : {}), items: { type: "string" }, ...extra };
}

export function obj(properties: Record<string, JSONSchemaProps>, description?: string, required?: string[]): JSONSchemaProps {
  return {
    type: "object",
    ...(description ? { description } : {}),
    properties,
    ...(required && required.length ? { required } : {}),
  };
}

export function arr(items: JSONSchemaProps, description?: string, extra: Extra = {}): JSONSchemaProps {
  return { type: "array", ...(description ? { description } : {}), items, ...extra };
}

/**
 * A list merged by `key` in strategic merge patches (patchStrategy:"merge" patchMergeKey:key).
 * It does not claim list-type=map: keys need not be unique (a Node has several InternalIP addresses).
 */
export function mergeList(items: JSONSchemaProps, key: string, description?: string): JSONSchemaProps {
  return arr(items, description, { "x-kubernetes-patch-strategy": "merge", "x-kubernetes-patch-merge-key": key });
}

/** A list kept atomic in patches and server-side apply. */
export function atomicList(items: JSONSchemaProps, description?: string): JSONSchemaProps {
  return arr(items, description, { "x-kubernetes-list-type": "atomic" });
}

/** Any JSON value, kept as is. */
export function anyValue(description?: string): JSONSchemaProps {
  return { ...(description ? { description } : {}), "x-kubernetes-preserve-unknown-fields": true };
}
