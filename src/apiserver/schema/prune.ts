// Structural pruning: removes, in place, object fields the schema does not specify, as
// apiextensions-apiserver does for custom resources (and as decoding into Go structs does for
// built-in kinds). apiVersion and kind are kept at the root and in embedded resources; their
// metadata is pruned to ObjectMeta's fields whatever the schema says about it.
import { type SchemaNode, childPath, indexPath, objectMetaNode } from "./node.ts";
import { isRecord } from "../../utils/guards.ts";

/** Prunes `value` against `node`; appends the removed field paths (`spec.foo`, `spec.items[0].bar`) to `removed`. */
export function pruneNode(node: SchemaNode, value: unknown, path: string, removed: string[], resource: boolean): void {
  if (Array.isArray(value)) {
    const items = node.items;
    if (!items) return;
    value.forEach((item, i) => pruneNode(items, item, indexPath(path, i), removed, items.embedded));
    return;
  }
  if (!isRecord(value)) return;
  for (const k of Object.keys(value)) {
    const p = childPath(path, k);
    if (resource && (k === "apiVersion" || k === "kind")) continue;
    if (resource && k === "metadata") {
      pruneNode(objectMetaNode(), value[k], p, removed, false);
      continue;
    }
    const prop = node.properties?.get(k);
    if (prop) {
      pruneNode(prop, value[k], p, removed, prop.embedded);
    } else if (typeof node.additional === "object") {
      pruneNode(node.additional, value[k], p, removed, node.additional.embedded);
    } else if (node.additional !== true && !node.preserveUnknown) {
      delete value[k];
      removed.push(p);
    }
  }
}
