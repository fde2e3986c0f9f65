// Structural equality of JSON values (object key order does not matter; undefined members are absent).
import { isRecord } from "../../utils/guards.ts";

export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((v, i) => jsonEqual(v, b[i]));
  if (!isRecord(a) || !isRecord(b)) return false;
  const ak = Object.keys(a).filter((k) => a[k] !== undefined);
  const bk = Object.keys(b).filter((k) => b[k] !== undefined);
  return ak.length === bk.length && ak.every((k) => b[k] !== undefined && jsonEqual(a[k], b[k]));
}
