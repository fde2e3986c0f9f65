// Computing patches from a before/after pair, as controller-runtime's client.MergeFrom does:
// the JSON merge patch (RFC 7386) that turns `before` into `after`.
import type { KubeObject } from "../apis/meta/v1/types.ts";
import { isRecord } from "../utils/guards.ts";
import type { Patch } from "./client.ts";

type Json = unknown;

function jsonEqual(a: Json, b: Json): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => jsonEqual(x, b[i]));
  if (isRecord(a) && isRecord(b)) {
    const ka = Object.keys(a).filter((k) => a[k] !== undefined);
    const kb = Object.keys(b).filter((k) => b[k] !== undefined);
    return ka.length === kb.length && ka.every((k) => jsonEqual(a[k], b[k]));
  }
  return false;
}

/**
 * The merge patch from `before` to `after`: changed keys carry their new value, removed keys
 * are null, nested objects recurse, arrays are replaced whole. Returns undefined when equal.
 * (A null *value* in `after` cannot be expressed in a merge patch; it reads as "remove".)
 */
export function createMergePatch(before: Json, after: Json): Json {
  if (!isRecord(before) || !isRecord(after)) return jsonEqual(before, after) ? undefined : after;
  const patch: Record<string, Json> = {};
  for (const k of Object.keys(before)) {
    if (before[k] !== undefined && (!(k in after) || after[k] === undefined)) patch[k] = null;
  }
  for (const [k, v] of Object.entries(after)) {
    if (v === undefined) continue;
    if (!(k in before) || before[k] === undefined) {
      patch[k] = v;
      continue;
    }
    const sub = createMergePatch(before[k], v);
    if (sub !== undefined) patch[k] = sub;
  }
  return Object.keys(patch).length === 0 ? undefined : patch;
}

export interface MergeFromOptions {
  /** Put before's metadata.resourceVersion into the patch, so a concurrent change fails with 409. */
  optimisticLock?: boolean;
}

/** A merge patch turning `before` into `after`, or undefined when nothing changed. */
export function mergeFrom<T extends KubeObject>(before: T, after: T, opts: MergeFromOptions = {}): Patch | undefined {
  const body = createMergePatch(before, after) as Record<string, Json> | undefined;
  if (body === undefined) return undefined;
  if (opts.optimisticLock && before.metadata.resourceVersion) {
    const meta = isRecord(body.metadata) ? body.metadata : {};
    body.metadata = { ...meta, resourceVersion: before.metadata.resourceVersion };
  }
  return { type: "merge", body };
}
