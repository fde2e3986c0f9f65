// Removing paths from a value (structured-merge-diff's RemoveItems): a member path goes with
// everything below it; a list or map left empty by the removal goes too. And
// EnsureNamedFieldsAreMembers: struct fields on the way to owned paths count as owned, so
// removing what nobody owns never takes a struct that still holds owned fields.
import type { JSONSchemaProps } from "../../apis/apiextensions/v1/types.ts";
import { FieldSet } from "./fieldset.ts";
import { itemPEs } from "./items.ts";
import { fieldNameOf, fieldPE } from "./pathelement.ts";
import { isNamedField, memberSchema, shapeOf } from "./schema.ts";
import { isRecord } from "../../utils/guards.ts";

export function removeItems(value: unknown, set: FieldSet, schema: JSONSchemaProps | undefined): unknown {
  if (set.empty()) return value;
  const shape = shapeOf(schema, value);
  if (shape.kind === "list") {
    if (shape.relation === "atomic" || !Array.isArray(value) || value.length === 0) return value;
    const pes = itemPEs(shape, value, []);
    if (!pes) return value;
    const out: unknown[] = [];
    value.forEach((item, i) => {
      const pe = pes[i]!;
      if (set.members.has(pe)) return;
      const child = set.children.get(pe);
      const v = child ? removeItems(item, child, shape.item) : item;
      if (v !== undefined) out.push(v);
    });
    return out.length ? out : undefined;
  }
  if (shape.kind !== "map" || shape.atomic || !isRecord(value) || Object.keys(value).length === 0) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    const pe = fieldPE(k);
    if (set.members.has(pe)) continue;
    const child = set.children.get(pe);
    const nv = child ? removeItems(v, child, memberSchema(shape, k)) : v;
    if (nv !== undefined) out[k] = nv;
  }
  return Object.keys(out).length ? out : undefined;
}

export function ensureNamedFieldsAreMembers(set: FieldSet, schema: JSONSchemaProps | undefined): FieldSet {
  const out = new FieldSet();
  for (const m of set.members) out.members.add(m);
  const shape = shapeOf(schema, undefined);
  for (const [pe, child] of set.children) {
    const name = fieldNameOf(pe);
    let childSchema: JSONSchemaProps | undefined;
    if (shape.kind === "map") {
      if (name !== undefined && isNamedField(shape, name)) out.members.add(pe);
      childSchema = name === undefined ? undefined : memberSchema(shape, name);
    } else if (shape.kind === "list") {
      childSchema = shape.item;
    }
    out.children.set(pe, ensureNamedFieldsAreMembers(child, childSchema));
  }
  return out;
}
