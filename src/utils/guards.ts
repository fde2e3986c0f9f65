// Type guards for values decoded from JSON or YAML.

/** A non-null object that is not an array: a JSON object, a map. */
export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Absent as far as a stored object is concerned: undefined, null, "", an empty list or an empty map (Go's omitempty). */
export function isEmptyValue(v: unknown): boolean {
  if (v === undefined || v === null || v === "") return true;
  if (Array.isArray(v)) return v.length === 0;
  if (typeof v !== "object") return false;
  for (const _ in v) return false;
  return true;
}

/** The value if it is a record, else an empty one (for reading optional nested fields). */
export function recordOrEmpty(v: unknown): Record<string, unknown> {
  return isRecord(v) ? v : {};
}
