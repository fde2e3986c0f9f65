// Merging an applied configuration into the live object (structured-merge-diff's Merge): the
// configuration wins on leaves; granular maps merge key by key; associative lists merge item by
// item, keeping the live items the configuration does not mention and following the
// configuration's order for the items it does. The configuration has been checked already
// (toFieldSet with problems): duplicates in it never reach here.
import type { JSONSchemaProps } from "../../apis/apiextensions/v1/types.ts";
import { itemPEs, type ListShape } from "./items.ts";
import type { PE } from "./pathelement.ts";
import { memberSchema, shapeOf } from "./schema.ts";
import { isRecord } from "../../utils/guards.ts";

export function merge(lhs: unknown, rhs: unknown, schema: JSONSchemaProps | undefined): unknown {
  if (rhs === undefined) return lhs;
  if (lhs === undefined || lhs === null || rhs === null) return rhs;
  const sl = shapeOf(schema, lhs);
  const sr = shapeOf(schema, rhs);
  if (sl.kind !== sr.kind || sr.kind === "scalar") return rhs;
  if (sr.kind === "map") {
    if (sr.atomic || !isRecord(lhs) || !isRecord(rhs)) return rhs;
    if (Object.keys(lhs).length === 0 && Object.keys(rhs).length === 0) return rhs;
    const out: Record<string, unknown> = {};
    for (const k of new Set([...Object.keys(lhs), ...Object.keys(rhs)])) {
      const v = merge(lhs[k], rhs[k], memberSchema(sr, k));
      if (v !== undefined) out[k] = v;
    }
    return out;
  }
  if (sr.relation === "atomic" || !Array.isArray(lhs) || !Array.isArray(rhs) || (lhs.length === 0 && rhs.length === 0)) return rhs;
  return mergeList(sr, lhs, rhs);
}

function mergeList(shape: ListShape, lhs: unknown[], rhs: unknown[]): unknown {
  const lp = itemPEs(shape, lhs, []);
  const rp = itemPEs(shape, rhs, []);
  if (!lp || !rp) return rhs;
  // Live items by element; a duplicated live element maps to undefined (the configuration's item replaces them).
  const liveOf = new Map<PE, unknown>();
  for (let i = 0; i < lp.length; i++) liveOf.set(lp[i]!, liveOf.has(lp[i]!) ? undefined : lhs[i]);
  const configOf = new Map<PE, unknown>(rp.map((pe, i) => [pe, rhs[i]]));
  const shared = rp.filter((pe) => liveOf.has(pe));
  let nextShared = 0;
  const emitted = new Set<PE>();
  const out: unknown[] = [];
  const emit = (live: unknown, config: unknown) => {
    const v = merge(live, config, shape.item);
    if (v !== undefined) out.push(v);
  };
  let li = 0;
  let ri = 0;
  while (li < lp.length || ri < rp.length) {
    if (li < lp.length && ri < rp.length) {
      const pe = lp[li]!;
      if (pe === rp[ri]) {
        emitted.add(pe);
        emit(liveOf.get(pe), configOf.get(pe));
        li++;
        ri++;
        nextShared++;
        continue;
      }
      // A live item the configuration places later: skip it here, it comes with the configuration.
      if (configOf.has(pe) && nextShared < shared.length && shared[nextShared] !== pe) {
        li++;
        continue;
      }
    }
    if (li < lp.length) {
      const pe = lp[li]!;
      if (!configOf.has(pe)) {
        emit(lhs[li], undefined);
        li++;
        continue;
      }
      if (emitted.has(pe)) li++;
    }
    if (ri < rp.length) {
      const pe = rp[ri]!;
      emitted.add(pe);
      emit(liveOf.get(pe), configOf.get(pe));
      ri++;
      if (shared[nextShared] === pe) nextShared++;
    }
  }
  return out;
}
