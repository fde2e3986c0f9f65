// Semantic equality of JSON values, as Kubernetes' apiequality.Semantic.DeepEqual sees decoded
// objects: an absent field, null, and an empty list or map are the same (Go's nil and empty
// slices and maps compare equal, and `omitempty` drops them); map key order never matters.
import { isRecord } from "../utils/guards.ts";

function isEmpty(v: unknown): boolean {
  if (v === undefined || v === null) return true;
  if (Array.isArray(v)) return v.length === 0;
  return typeof v === "object" && Object.keys(v).length === 0;
}

export function semanticEqual(a: unknown, b: unknown): boolean {
  if (isEmpty(a) && isEmpty(b)) return true;
  if (Array.isArray(a) && Array.isArray(b)) {
    return a.length === b.length && a.every((x, i) => semanticEqual(x, b[i]));
  }
  if (isRecord(a) && isRecord(b)) {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    for (const k of keys) if (!semanticEqual(a[k], b[k])) return false;
    return true;
  }
  return a === b;
}

function show(v: unknown): string {
  if (v === undefined || v === null) return "<nil>";
  return typeof v === "string" ? v : JSON.stringify(v);
}

/**
 * The differences between two values as `<path>: <new> != <old>` lines (paths in JSON notation
 * below `base`, e.g. `spec.ingress[0].ipBlock.cidr: 10.0.0.0/8 != 1.2.3.4/32`); empty when
 * semantically equal.
 */
export function semanticDiff(next: unknown, prev: unknown, base: string): string[] {
  if (semanticEqual(next, prev)) return [];
  if (Array.isArray(next) && Array.isArray(prev) && next.length === prev.length) {
    return next.flatMap((x, i) => semanticDiff(x, prev[i], `${base}[${i}]`));
  }
  if (isRecord(next) && isRecord(prev)) {
    const keys = [...new Set([...Object.keys(next), ...Object.keys(prev)])].sort();
    return keys.flatMap((k) => semanticDiff(next[k], prev[k], base ? `${base}.${k}` : k));
  }
  return [`${base}: ${show(next)} != ${show(prev)}`];
}
