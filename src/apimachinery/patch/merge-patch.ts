// RFC 7386 JSON Merge Patch (application/merge-patch+json): objects merge recursively, null
// deletes a member, arrays and every other non-object value replace what was there. The original
// is copied once and merged in place, so the work is linear in the sizes of original and patch
// (copying the original again at every level would be quadratic in its depth).
import { type JsonObject, deepCopy, getOwn, setOwn } from "./json-value.ts";
import { isRecord } from "../../utils/guards.ts";

/** Returns the patched value; original and patch are not modified. */
export function mergePatch(original: unknown, patch: unknown): unknown {
  if (!isRecord(patch)) return deepCopy(patch);
  return mergeInto(isRecord(original) ? deepCopy(original) : {}, patch);
}

/** Merges patch into target (owned by the caller) and returns target. */
function mergeInto(target: JsonObject, patch: JsonObject): JsonObject {
  for (const key of Object.keys(patch)) {
    const value = patch[key];
    if (value === null) {
      delete target[key];
    } else if (isRecord(value)) {
      const current = getOwn(target, key);
      setOwn(target, key, mergeInto(isRecord(current) ? current : {}, value));
    } else {
      setOwn(target, key, deepCopy(value));
    }
  }
  return target;
}
