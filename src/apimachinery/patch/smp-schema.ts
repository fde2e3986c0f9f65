// Patch metadata for strategic merge patch, read from an OpenAPI schema walked alongside the
// document: `x-kubernetes-patch-strategy` and `x-kubernetes-patch-merge-key` on a field's schema.
// ObjectMeta's own tags (finalizers merge as a set, ownerReferences merge by uid) are applied to
// every "metadata" object even when the schema lacks them.
import type { JSONSchemaProps } from "../../apis/apiextensions/v1/types.ts";

export interface PatchMeta {
  /** "merge" or "replace"; "" means the default (maps merge, lists are replaced). */
  strategy: string;
  /** The field also carries the retainKeys strategy (only meaningful to patch generators). */
  retainKeys: boolean;
  /** For lists of objects with the merge strategy: the key identifying an element. */
  mergeKey: string;
}

function ownProps(s: JSONSchemaProps | undefined, key: string): JSONSchemaProps | undefined {
  const props = s?.properties;
  return props && Object.hasOwn(props, key) ? props[key] : undefined;
}

/** The schema of member `key` of an object schema (properties, then allOf members, then additionalProperties). */
export function fieldSchema(s: JSONSchemaProps | undefined, key: string): JSONSchemaProps | undefined {
  let found = ownProps(s, key);
  for (const sub of s?.allOf ?? []) found ??= ownProps(sub, key);
  if (found === undefined && s && typeof s.additionalProperties === "object") found = s.additionalProperties;
  return key === "metadata" ? withObjectMetaDefaults(found) : found;
}

/** The schema of the elements of an array schema. */
export function itemSchema(s: JSONSchemaProps | undefined): JSONSchemaProps | undefined {
  let found = s?.items;
  for (const sub of s?.allOf ?? []) found ??= sub.items;
  return found;
}

function extension(s: JSONSchemaProps | undefined, name: "x-kubernetes-patch-strategy" | "x-kubernetes-patch-merge-key"): string {
  let v = s?.[name];
  for (const sub of s?.allOf ?? []) v ??= sub[name];
  return v ?? "";
}

/** Strategy of a field: "merge", "replace", "retainKeys", or "retainKeys" combined with one of the others. */
export function patchMetaOf(s: JSONSchemaProps | undefined): PatchMeta {
  const parts = extension(s, "x-kubernetes-patch-strategy")
    .split(",")
    .map((p) => p.trim())
    .filter(Boolean);
  const retainKeys = parts.includes("retainKeys");
  const others = parts.filter((p) => p !== "retainKeys");
  if (others.length > 1 || parts.length > 2) {
    throw new Error(`unexpected patch strategy: ${JSON.stringify(parts)}`);
  }
  return { strategy: others[0] ?? "", retainKeys, mergeKey: extension(s, "x-kubernetes-patch-merge-key") };
}

function withTag(s: JSONSchemaProps | undefined, fallback: JSONSchemaProps, strategy: string, mergeKey?: string): JSONSchemaProps {
  const out: JSONSchemaProps = { ...fallback, ...(s ?? {}) };
  out["x-kubernetes-patch-strategy"] = s?.["x-kubernetes-patch-strategy"] ?? strategy;
  if (mergeKey !== undefined) out["x-kubernetes-patch-merge-key"] = s?.["x-kubernetes-patch-merge-key"] ?? mergeKey;
  return out;
}

/** ObjectMeta's patch tags (k8s.io/apimachinery/pkg/apis/meta/v1/types.go), added where missing. */
export function withObjectMetaDefaults(s: JSONSchemaProps | undefined): JSONSchemaProps {
  const props = { ...(s?.properties ?? {}) };
  props["finalizers"] = withTag(ownProps(s, "finalizers"), { type: "array", items: { type: "string" } }, "merge");
  props["ownerReferences"] = withTag(ownProps(s, "ownerReferences"), { type: "array", items: { type: "object" } }, "merge", "uid");
  return { ...(s ?? { type: "object" }), properties: props };
}
