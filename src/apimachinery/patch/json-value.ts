// Helpers over parsed JSON values shared by the patch implementations. Keys are client data, so
// every access goes through own properties: a key such as "__proto__" or "constructor" is an
// ordinary member here, never the prototype.

import { isRecord } from "../../utils/guards.ts";

export type JsonObject = Record<string, unknown>;


export function hasOwn(obj: JsonObject, key: string): boolean {
  return Object.hasOwn(obj, key);
}

export function getOwn(obj: JsonObject, key: string): unknown {
  return Object.hasOwn(obj, key) ? obj[key] : undefined;
}

/** Sets an own, enumerable data property, even for "__proto__". */
export function setOwn(obj: JsonObject, key: string, value: unknown): void {
  if (key === "__proto__") {
    Object.defineProperty(obj, key, { value, writable: true, enumerable: true, configurable: true });
  } else {
    obj[key] = value;
  }
}

export function deepCopy<T>(v: T): T {
  if (Array.isArray(v)) return v.map((e: unknown) => deepCopy(e)) as T;
  if (isRecord(v)) {
    const out: JsonObject = {};
    for (const k of Object.keys(v)) setOwn(out, k, deepCopy(v[k]));
    return out as T;
  }
  return v;
}

/** Structural equality: object key order does not matter, array order does. */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    return Array.isArray(b) && a.length === b.length && a.every((e, i) => deepEqual(e, b[i]));
  }
  if (isRecord(a)) {
    if (!isRecord(b)) return false;
    const ka = Object.keys(a);
    if (ka.length !== Object.keys(b).length) return false;
    return ka.every((k) => hasOwn(b, k) && deepEqual(a[k], b[k]));
  }
  return false;
}

/** "object", "array", "null", "string", "number", "boolean": the JSON kind of a value. */
export function kindOf(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  return typeof v;
}
