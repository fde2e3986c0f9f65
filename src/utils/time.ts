// The two time formats of the Kubernetes API: metav1.Time (RFC 3339, UTC, whole seconds) and
// metav1.MicroTime (RFC 3339, UTC, six fractional digits).

function date(t: Date | number): Date {
  return typeof t === "number" ? new Date(t) : t;
}

// The last second metaTime formatted: every write stamps managedFields with the time, and most
// writes of a busy second share it (formatting cost about 1.3 µs a call, the lookup nothing).
let lastSecond = Number.NaN;
let lastText = "";

/** metav1.Time: `2026-01-02T03:04:05Z` (fractions of a second are dropped, not rounded). */
export function metaTime(t: Date | number): string {
  const ms = date(t).getTime();
  const second = ms - (((ms % 1000) + 1000) % 1000);
  if (second === lastSecond) return lastText; // NaN (an invalid date) never matches: it throws below
  const text = new Date(second).toISOString().replace(/\.000Z$/, "Z");
  lastSecond = second;
  lastText = text;
  return text;
}

/** metav1.MicroTime: `2026-01-02T03:04:05.678000Z` (a Date holds milliseconds: the last three digits are 0). */
export function microTime(t: Date | number): string {
  return date(t).toISOString().replace(/\.(\d{3})Z$/, ".$1000Z");
}
