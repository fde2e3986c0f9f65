// Strategic merge patch (application/strategic-merge-patch+json) for built-in kinds, following
// k8s.io/apimachinery/pkg/util/strategicpatch as the server applies it (parallel lists merged,
// unmatched nulls ignored). It is a JSON merge patch, except that:
// - lists whose schema says `x-kubernetes-patch-strategy: merge` are merged: lists of objects by
//   `x-kubernetes-patch-merge-key`, lists of scalars as sets; other lists are replaced;
// - maps whose schema says `replace` are replaced;
// - directives: `$patch: replace|delete|merge` in a map or as a list element, `$retainKeys`,
//   `$deleteFromPrimitiveList/<field>` and `$setElementOrder/<field>`.
// Where Go would copy a patch value verbatim into the result (a new field, a new list element),
// the value is merged into an empty one instead, so no directive or null leaks into the object.
// Malformed patches -> 400 BadRequest; content that contradicts $retainKeys or lists of lists
// -> 422 Invalid.
import type { JSONSchemaProps } from "../../apis/apiextensions/v1/types.ts";
import { StatusError, newBadRequest } from "../errors.ts";
import { type JsonObject, deepCopy, getOwn, hasOwn, kindOf, setOwn } from "./json-value.ts";
import { isRecord } from "../../utils/guards.ts";
import { type PatchMeta, fieldSchema, itemSchema, patchMetaOf } from "./smp-schema.ts";
import {
  IdentityIndex,
  dedupe,
  deleteFromList,
  identityKey,
  normalizeElementOrder,
  partitionByPresence,
  validateSetElementOrder,
} from "./smp-order.ts";

const DIRECTIVE = "$patch";
const RETAIN_KEYS = "$retainKeys";
const DELETE_FROM_PRIMITIVE_LIST = "$deleteFromPrimitiveList";
const SET_ELEMENT_ORDER = "$setElementOrder";

const unprocessable = (message: string): StatusError => new StatusError(422, "Invalid", message);

/**
 * Applies patch to original and returns the result; neither input is modified. `schema` is the
 * OpenAPI schema of the whole object (undefined: no list merges apart from ObjectMeta's).
 */
export function strategicMergePatch(original: unknown, patch: unknown, schema: JSONSchemaProps | undefined): unknown {
  if (!isRecord(patch)) throw newBadRequest(`a strategic merge patch must be a JSON object, got ${kindOf(patch)}`);
  const target = isRecord(original) ? deepCopy(original) : {};
  return mergeMap(target, deepCopy(patch), schema);
}

/** `$setElementOrder/containers` -> `containers`. */
function directiveTarget(key: string, prefix: string): string {
  const slash = key.indexOf("/");
  if (slash < 0 || key.slice(0, slash) !== prefix) {
    const what = prefix === SET_ELEMENT_ORDER ? "setElementOrder list" : "primitive list";
    throw newBadRequest(`invalid patch format of ${what}: ${JSON.stringify(key)}`);
  }
  return key.slice(slash + 1);
}

/** Merges patch into original (both owned by the caller and mutated) and returns the result. */
function mergeMap(original: JsonObject, patch: JsonObject, schema: JSONSchemaProps | undefined): JsonObject {
  if (hasOwn(patch, DIRECTIVE)) {
    const directive = patch[DIRECTIVE];
    delete patch[DIRECTIVE];
    if (directive === "delete") return {};
    if (directive === "replace") return mergeMap({}, patch, schema);
    if (directive !== "merge") {
      throw newBadRequest(`unknown patch type: ${JSON.stringify(directive)} in map: ${JSON.stringify(patch)}`);
    }
  }
  applyRetainKeys(original, patch);
  applySetElementOrder(original, patch, schema);

  for (const rawKey of Object.keys(patch)) {
    const value = patch[rawKey];
    const isDeleteList = rawKey.startsWith(DELETE_FROM_PRIMITIVE_LIST);
    const key = isDeleteList ? directiveTarget(rawKey, DELETE_FROM_PRIMITIVE_LIST) : rawKey;
    if (isDeleteList) {
      if (!Array.isArray(value)) throw newBadRequest(`invalid patch format of primitive list: ${JSON.stringify(rawKey)}`);
      const current = getOwn(original, key);
      if (Array.isArray(current)) setOwn(original, key, deleteFromList(current, value));
      continue;
    }
    if (value === null) {
      delete original[key];
      continue;
    }
    const sub = fieldSchema(schema, key);
    const current = getOwn(original, key);
    if (!hasOwn(original, key) || kindOf(current) !== kindOf(value)) {
      setOwn(original, key, fromNothing(value, sub));
    } else if (isRecord(current)) {
      const meta = patchMetaOf(sub);
      setOwn(original, key, meta.strategy === "replace" ? fromNothing(value, sub) : mergeMap(current, value as JsonObject, sub));
    } else if (Array.isArray(current)) {
      setOwn(original, key, mergeListField(current, value as unknown[], sub));
    } else {
      setOwn(original, key, value);
    }
  }
  return original;
}

/** A patch value for a field the original lacks: merged into an empty value of its kind. */
function fromNothing(value: unknown, schema: JSONSchemaProps | undefined): unknown {
  if (isRecord(value)) return mergeMap({}, value, schema);
  if (Array.isArray(value)) return mergeListField([], value, schema);
  return value;
}

/** A list field: merged when its strategy is "merge", otherwise replaced by the patch list. */
function mergeListField(original: unknown[], patch: unknown[], schema: JSONSchemaProps | undefined): unknown[] {
  const meta = patchMetaOf(schema);
  const items = itemSchema(schema);
  if (meta.strategy === "merge") return mergeList(original, patch, items, meta);
  return replaceList(patch, items);
}

/** A replaced list: directive elements are dropped, objects are cleaned of nulls and directives. */
function replaceList(patch: unknown[], items: JSONSchemaProps | undefined): unknown[] {
  const out: unknown[] = [];
  for (const e of patch) {
    if (isRecord(e) && hasOwn(e, DIRECTIVE)) {
      const d = e[DIRECTIVE];
      if (d === "replace" || d === "merge" || d === "delete") continue;
      throw newBadRequest(`unknown patch type: ${JSON.stringify(d)} in list element: ${JSON.stringify(e)}`);
    }
    out.push(isRecord(e) ? mergeMap({}, e, items) : e);
  }
  return out;
}

type ElementKind = "object" | "scalar" | "empty";

function elementKind(...lists: unknown[][]): ElementKind {
  let kind: ElementKind = "empty";
  for (const list of lists) {
    for (const e of list) {
      if (Array.isArray(e)) throw unprocessable("lists of lists are not supported");
      const k: ElementKind = isRecord(e) ? "object" : "scalar";
      if (kind !== "empty" && kind !== k) {
        throw newBadRequest(`list element types are not identical: ${JSON.stringify(lists)}`);
      }
      kind = k;
    }
  }
  return kind;
}

/** Merge strategy: scalars as an ordered set, objects by merge key, honouring $patch elements. */
function mergeList(original: unknown[], patch: unknown[], items: JSONSchemaProps | undefined, meta: PatchMeta): unknown[] {
  const kind = elementKind(original, patch);
  if (kind === "empty") return original;
  if (kind === "scalar") {
    const merged = dedupe([...original, ...patch]);
    const [patchItems, serverOnly] = partitionByPresence(merged, patch, "");
    return normalizeElementOrder(patchItems, serverOnly, patch, original, "");
  }
  const mergeKey = meta.mergeKey;
  if (!mergeKey) throw newBadRequest("cannot merge lists of objects without a merge key (x-kubernetes-patch-merge-key)");

  // $patch elements: delete drops the matching original elements, replace discards the original.
  const deleted = new Set<string>();
  const plain: JsonObject[] = [];
  let replace = false;
  for (const e of patch as JsonObject[]) {
    if (!hasOwn(e, DIRECTIVE)) {
      plain.push(e);
      continue;
    }
    const d = e[DIRECTIVE];
    if (d === "delete") {
      if (!hasOwn(e, mergeKey)) throw noMergeKey(e, mergeKey);
      deleted.add(identityKey(e, mergeKey)!);
    } else if (d === "replace") {
      replace = true;
    } else if (d === "merge") {
      const rest = { ...e };
      delete rest[DIRECTIVE];
      if (Object.keys(rest).length > 0) plain.push(rest);
    } else {
      throw newBadRequest(`unknown patch type: ${JSON.stringify(d)} in list element: ${JSON.stringify(e)}`);
    }
  }
  const base = deleted.size === 0 ? original : original.filter((o) => !deleted.has(identityKey(o, mergeKey) ?? ""));
  const serverOrder = replace ? plain.map((e) => mergeMap({}, e, items)) : base;
  const patchOrder = replace ? [] : plain;

  const merged = [...serverOrder];
  const index = new IdentityIndex(merged, mergeKey);
  for (const e of patchOrder) {
    if (!hasOwn(e, mergeKey)) throw noMergeKey(e, mergeKey);
    const at = index.indexOf(e);
    if (at >= 0) {
      merged[at] = mergeMap(merged[at] as JsonObject, e, items);
    } else {
      merged.push(mergeMap({}, e, items));
      index.add(merged[merged.length - 1], merged.length - 1);
    }
  }
  const [patchItems, serverOnly] = partitionByPresence(merged, patchOrder, mergeKey);
  return normalizeElementOrder(patchItems, serverOnly, patchOrder, serverOrder, mergeKey);
}

function noMergeKey(e: unknown, mergeKey: string): StatusError {
  return newBadRequest(`map: ${JSON.stringify(e)} does not contain declared merge key: ${mergeKey}`);
}

/** $retainKeys: keys of original not listed are cleared; the patch may only set listed keys. */
function applyRetainKeys(original: JsonObject, patch: JsonObject): void {
  if (!hasOwn(patch, RETAIN_KEYS)) return;
  const list = patch[RETAIN_KEYS];
  delete patch[RETAIN_KEYS];
  if (!Array.isArray(list)) throw newBadRequest("invalid patch format of retainKeys");
  const keep = new Set(list.filter((k): k is string => typeof k === "string"));
  for (const [k, v] of Object.entries(patch)) {
    if (v === null || k.startsWith(DELETE_FROM_PRIMITIVE_LIST) || k.startsWith(SET_ELEMENT_ORDER)) continue;
    if (!keep.has(k)) throw unprocessable(`patch content doesn't match retainKeys list: ${JSON.stringify(k)} is not retained`);
  }
  for (const k of Object.keys(original)) if (!keep.has(k)) delete original[k];
}

/**
 * $setElementOrder/<field>: merges <field> from the patch (if present) and orders the result so
 * that the listed elements follow the given order; server-only elements keep their positions
 * relative to them. The field is then removed from the patch.
 */
function applySetElementOrder(original: JsonObject, patch: JsonObject, schema: JSONSchemaProps | undefined): void {
  for (const rawKey of Object.keys(patch)) {
    if (!rawKey.startsWith(SET_ELEMENT_ORDER)) continue;
    const order = patch[rawKey];
    delete patch[rawKey];
    if (!Array.isArray(order)) throw newBadRequest(`invalid patch format of setElementOrder list: ${JSON.stringify(rawKey)}`);
    const key = directiveTarget(rawKey, SET_ELEMENT_ORDER);
    const inOriginal = hasOwn(original, key);
    const inPatch = hasOwn(patch, key);
    if (!inOriginal && !inPatch) continue;
    const originalList = inOriginal ? original[key] : [];
    const patchList = inPatch ? patch[key] : [];
    if (!Array.isArray(originalList) || !Array.isArray(patchList)) {
      throw newBadRequest(`invalid patch format of setElementOrder list: ${JSON.stringify(key)} is not a list`);
    }
    const sub = fieldSchema(schema, key);
    const mergeKey = patchMetaOf(sub).mergeKey;
    validateSetElementOrder(patchList, order, mergeKey);
    const merged = inPatch ? mergeListField(originalList, patchList, sub) : originalList;
    const [patchItems, serverOnly] = partitionByPresence(merged, order, mergeKey);
    setOwn(original, key, normalizeElementOrder(patchItems, serverOnly, order, originalList, mergeKey));
    delete patch[key];
  }
}
