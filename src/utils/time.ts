// The two time formats of the Kubernetes API: metav1.Time (RFC 3339, UTC, whole seconds) and
// metav1.MicroTime (RFC 3339, UTC, six fractional digits).

function date(t: Date | number): Date {
  return typeof t === "number" ? new Date(t) : t;
}

/** metav1.Time: `2026-01-02T03:04:05Z` (fractions of a second are dropped, not rounded). */
export function metaTime(t: Date | number): string {
  const ms = date(t).getTime();
  return new Date(ms - (((ms % 1000) + 1000) % 1000)).toISOString().replace(/\.000Z$/, "Z");
}

/** metav1.MicroTime: `2026-01-02T03:04:05.678000Z` (a Date holds milliseconds: the last three digits are 0). */
export function microTime(t: Date | number): string {
  return date(t).toISOString().replace(/\.(\d{3})Z$/, ".$1000Z");
}
