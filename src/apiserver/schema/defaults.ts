// Structural defaulting, as apiextensions-apiserver does it: first null values of non-nullable
// fields without a default are dropped, then `default` values are deep-copied into objects that
// exist but lack the field (or hold null for a non-nullable field), including inside array items
// and additionalProperties values. Defaults are applied top-down, so a defaulted object gets the
// defaults of its own fields too.
import { type SchemaNode } from "./node.ts";
import { isRecord } from "../../utils/guards.ts";

const isNonNullableNull = (v: unknown, s: SchemaNode | undefined): s is SchemaNode => v === null && s !== undefined && !s.nullable;

function fieldSchema(node: SchemaNode, key: string): SchemaNode | undefined {
  const prop = node.properties?.get(key);
  if (prop) return prop;
  return typeof node.additional === "object" ? node.additional : undefined;
}

export function pruneNonNullableNulls(node: SchemaNode | undefined, value: unknown): void {
  if (!node) return;
  if (Array.isArray(value)) {
    for (const item of value) pruneNonNullableNulls(node.items, item);
  } else if (isRecord(value)) {
    for (const k of Object.keys(value)) {
      const v = value[k];
      const sub = fieldSchema(node, k);
      if (isNonNullableNull(v, sub) && !sub.hasDefault) delete value[k];
      else pruneNonNullableNulls(sub, v);
    }
  }
}

export function defaultNode(node: SchemaNode | undefined, value: unknown): void {
  if (!node) return;
  if (Array.isArray(value)) {
    const items = node.items;
    if (!items) return;
    for (let i = 0; i < value.length; i++) {
      if (isNonNullableNull(value[i], items) && items.hasDefault) value[i] = structuredClone(items.schema.default);
      defaultNode(items, value[i]);
    }
    return;
  }
  if (!isRecord(value)) return;
  if (node.properties) {
    for (const [k, prop] of node.properties) {
      if (!prop.hasDefault) continue;
      if (value[k] === undefined || isNonNullableNull(value[k], prop)) value[k] = structuredClone(prop.schema.default);
    }
  }
  for (const k of Object.keys(value)) {
    const sub = fieldSchema(node, k);
    if (!sub) continue;
    if (isNonNullableNull(value[k], sub) && sub.hasDefault) value[k] = structuredClone(sub.schema.default);
    defaultNode(sub, value[k]);
  }
}
