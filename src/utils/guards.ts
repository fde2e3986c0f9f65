// Type guards for values decoded from JSON or YAML.

/** A non-null object that is not an array: a JSON object, a map. */
export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** The value if it is a record, else an empty one (for reading optional nested fields). */
export function recordOrEmpty(v: unknown): Record<string, unknown> {
  return isRecord(v) ? v : {};
}
