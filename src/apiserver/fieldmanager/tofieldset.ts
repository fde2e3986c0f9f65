// The set of paths a value sets (structured-merge-diff's ToFieldSet): every scalar, atomic list
// or atomic map; every list item and free map key; named struct fields only when null or empty.
// A duplicated list item is one member, not descended into.
import type { JSONSchemaProps } from "../../apis/apiextensions/v1/types.ts";
import { FieldSet } from "./fieldset.ts";
import { groupItems, itemPEs, type Problems } from "./items.ts";
import { fieldPE, type PE, peString } from "./pathelement.ts";
import { isNamedField, memberSchema, shapeOf } from "./schema.ts";
import { isRecord } from "../../utils/guards.ts";

export function toFieldSet(value: unknown, schema: JSONSchemaProps | undefined, problems?: Problems): FieldSet {
  const root = new FieldSet();
  walk(value, schema, root, [], problems);
  return root;
}

/** Adds the paths below `path` (whose own set node is `node`); returns true when `path` itself is a leaf. */
function walk(value: unknown, schema: JSONSchemaProps | undefined, node: FieldSet, path: PE[], problems: Problems | undefined): boolean {
  const shape = shapeOf(schema, value);
  if (shape.kind === "scalar") return true;
  if (shape.kind === "list") {
    if (shape.relation === "atomic") return true;
    if (!Array.isArray(value)) return false;
    const pes = itemPEs(shape, value, path, problems);
    if (!pes) return true;
    for (const [pe, items] of groupItems(pes, value)) {
      node.members.add(pe);
      if (items.length > 1) {
        problems?.add(path, `duplicate entries for key ${peString(pe)}`);
        continue;
      }
      descend(node, pe, items[0], shape.item, path, problems);
    }
    return false;
  }
  if (shape.atomic) return true;
  if (!isRecord(value)) return false;
  for (const [k, v] of Object.entries(value)) {
    if (v === undefined) continue;
    const pe = fieldPE(k);
    const leaf = descend(node, pe, v, memberSchema(shape, k), path, problems);
    if (leaf || v === null || (isRecord(v) && Object.keys(v).length === 0) || !isNamedField(shape, k)) node.members.add(pe);
  }
  return false;
}

function descend(node: FieldSet, pe: PE, value: unknown, schema: JSONSchemaProps | undefined, path: PE[], problems: Problems | undefined): boolean {
  // Scalars are most of any object: no set node for them.
  if (value === null || typeof value !== "object") {
    const kind = shapeOf(schema, value).kind;
    if (kind === "scalar") return true;
  }
  const child = new FieldSet();
  path.push(pe);
  const leaf = walk(value, schema, child, path, problems);
  path.pop();
  if (!child.empty()) node.children.set(pe, child);
  return leaf;
}
