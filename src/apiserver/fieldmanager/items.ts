// The path elements of list items: `k:` by the list's keys (a missing key takes its schema
// default), `v:` for set items. Malformed lists are reported (strict: the applied configuration)
// or, for stored objects, make the caller treat the list as atomic.
import { keyPE, type PE, pathString, valuePE } from "./pathelement.ts";
import { memberSchema, type Shape, shapeOf } from "./schema.ts";
import { isRecord } from "../../utils/guards.ts";

export type ListShape = Extract<Shape, { kind: "list" }>;

/** Problems found in a value, each with the path it was found at (structured-merge-diff's wording). */
export class Problems {
  readonly list: string[] = [];
  constructor(readonly max = 100) {}
  add(path: readonly PE[], message: string): void {
    if (this.list.length < this.max) this.list.push(`${pathString(path)}: ${message}`);
  }
}

function keyedPE(shape: ListShape, item: unknown): PE | string {
  if (!isRecord(item)) return "associative list with keys may not have non-map elements";
  const itemShape = shapeOf(shape.item, item);
  const fields: Array<[string, unknown]> = [];
  for (const key of shape.keys) {
    let v = item[key];
    if (v === undefined || v === null) {
      const s = itemShape.kind === "map" ? memberSchema(itemShape, key) : undefined;
      v = s?.default;
      if (v === undefined) return `associative list with keys has an element that omits key field ${JSON.stringify(key)} (and doesn't have default value)`;
    }
    fields.push([key, v]);
  }
  return keyPE(fields);
}

/**
 * The element of each item of an associative list (relation set or map), or undefined when some
 * item has none: then `problems` (if given) says why, and callers treat the list as atomic.
 */
export function itemPEs(shape: ListShape, items: unknown[], path: readonly PE[], problems?: Problems): PE[] | undefined {
  if (shape.relation === "map" && shape.keys.length === 0) return undefined;
  const out: PE[] = [];
  let ok = true;
  items.forEach((item, i) => {
    let pe: PE | string;
    if (shape.relation === "set") pe = isRecord(item) ? "associative list without keys has an element that's a map type" : valuePE(item);
    else pe = keyedPE(shape, item);
    if (pe.startsWith("k:") || pe.startsWith("v:")) out.push(pe);
    else {
      ok = false;
      problems?.add(path, `element ${i}: ${pe}`);
    }
  });
  return ok ? out : undefined;
}

/** Items grouped by element, in first-seen order. */
export function groupItems(pes: PE[], items: unknown[]): Map<PE, unknown[]> {
  const groups = new Map<PE, unknown[]>();
  pes.forEach((pe, i) => {
    const g = groups.get(pe);
    if (g) g.push(items[i]);
    else groups.set(pe, [items[i]]);
  });
  return groups;
}
