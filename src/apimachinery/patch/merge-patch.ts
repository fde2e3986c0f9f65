// RFC 7386 JSON Merge Patch (application/merge-patch+json): objects merge recursively, null
// deletes a member, arrays and every other non-object value replace what was there.
import { type JsonObject, deepCopy, getOwn, isObject, setOwn } from "./json-value.ts";

/** Returns the patched value; original and patch are not modified. */
export function mergePatch(original: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return deepCopy(patch);
  const target: JsonObject = isObject(original) ? deepCopy(original) : {};
  for (const key of Object.keys(patch)) {
    const value = patch[key];
    if (value === null) delete target[key];
    else setOwn(target, key, mergePatch(getOwn(target, key), value));
  }
  return target;
}
