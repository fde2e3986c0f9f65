// What changed between two values of one schema (structured-merge-diff's Compare): the paths
// added, removed and modified. Leaves (scalars, atomic lists and maps, and lists or maps empty on
// both sides) are compared as whole values; a granular map or list that appears or disappears is
// itself added or removed, with everything below it.
import type { JSONSchemaProps } from "../../apis/apiextensions/v1/types.ts";
import { jsonEqual } from "./json.ts";
import { FieldSet } from "./fieldset.ts";
import { groupItems, itemPEs } from "./items.ts";
import { fieldPE, type PE } from "./pathelement.ts";
import { memberSchema, type Shape, shapeOf } from "./schema.ts";
import { isRecord } from "../../utils/guards.ts";

export interface Comparison {
  added: FieldSet;
  removed: FieldSet;
  modified: FieldSet;
}

export function compare(lhs: unknown, rhs: unknown, schema: JSONSchemaProps | undefined): Comparison {
  const c: Comparison = { added: new FieldSet(), removed: new FieldSet(), modified: new FieldSet() };
  inner(c, lhs, rhs, schema, []);
  return c;
}

function isEmpty(v: unknown): boolean {
  if (v === undefined || v === null) return true;
  if (Array.isArray(v)) return v.length === 0;
  return isRecord(v) && Object.keys(v).length === 0;
}

function leaf(c: Comparison, lhs: unknown, rhs: unknown, path: PE[]): void {
  if (lhs === undefined) c.added.insert(path);
  else if (rhs === undefined) c.removed.insert(path);
  else if (!jsonEqual(lhs, rhs)) c.modified.insert(path);
}

/** The value's shape, or "leaf" when it must be compared whole. */
function shapeFor(schema: JSONSchemaProps | undefined, lhs: unknown, rhs: unknown): Shape | "leaf" {
  const sl = lhs === undefined ? undefined : shapeOf(schema, lhs);
  const sr = rhs === undefined ? undefined : shapeOf(schema, rhs);
  const shape = sr ?? sl!;
  if (sl && sr && sl.kind !== sr.kind) return "leaf";
  if (shape.kind === "scalar" || (shape.kind !== "list" && shape.atomic) || (shape.kind === "list" && shape.relation === "atomic")) return "leaf";
  if (isEmpty(lhs) && isEmpty(rhs)) return "leaf";
  return shape;
}

function inner(c: Comparison, lhs: unknown, rhs: unknown, schema: JSONSchemaProps | undefined, path: PE[]): void {
  const shape = shapeFor(schema, lhs, rhs);
  if (shape === "leaf") return leaf(c, lhs, rhs, path);
  if (shape.kind === "map") compareMap(c, shape, lhs, rhs, path);
  else if (shape.kind === "list") {
    const l = Array.isArray(lhs) ? lhs : [];
    const r = Array.isArray(rhs) ? rhs : [];
    const lp = itemPEs(shape, l, path);
    const rp = itemPEs(shape, r, path);
    if (!lp || !rp) return leaf(c, lhs, rhs, path);
    const lg = groupItems(lp, l);
    const rg = groupItems(rp, r);
    for (const pe of new Set([...lg.keys(), ...rg.keys()])) {
      path.push(pe);
      compareItems(c, lg.get(pe) ?? [], rg.get(pe) ?? [], shape.item, path);
      path.pop();
    }
  }
  if (lhs === undefined) c.added.insert(path);
  else if (rhs === undefined) c.removed.insert(path);
}

function compareMap(c: Comparison, shape: Extract<Shape, { kind: "map" }>, lhs: unknown, rhs: unknown, path: PE[]): void {
  const l = isRecord(lhs) ? lhs : {};
  const r = isRecord(rhs) ? rhs : {};
  for (const k of Object.keys(l)) member(c, shape, l[k], r[k], k, path);
  for (const k of Object.keys(r)) if (!Object.hasOwn(l, k)) member(c, shape, undefined, r[k], k, path);
}

function member(c: Comparison, shape: Extract<Shape, { kind: "map" }>, lv: unknown, rv: unknown, k: string, path: PE[]): void {
  if (lv === undefined && rv === undefined) return;
  path.push(fieldPE(k));
  inner(c, lv, rv, memberSchema(shape, k), path);
  path.pop();
}

/** The items of one list key on both sides; a key held by two or more items on a side is compared whole. */
function compareItems(c: Comparison, li: unknown[], ri: unknown[], item: JSONSchemaProps | undefined, path: PE[]): void {
  if (li.length <= 1 && ri.length <= 1) inner(c, li[0], ri[0], item, path);
  else if (li.length >= 2 && ri.length >= 2) {
    if (!jsonEqual(li, ri)) c.modified.insert(path);
  } else if (li.length >= 2) {
    if (ri.length) inner(c, undefined, ri[0], item, path);
    c.removed.insert(path);
  } else {
    if (li.length) inner(c, li[0], undefined, item, path);
    c.added.insert(path);
  }
}
