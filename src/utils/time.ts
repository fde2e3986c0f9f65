// The time formats of the Kubernetes API, all RFC 3339 in UTC: metav1.Time (whole seconds),
// metav1.MicroTime (six fractional digits) and Go's time.RFC3339Nano (the fraction without
// trailing zeros, as annotations such as `gardener.cloud/timestamp` carry it). Every RFC 3339
// string the code writes comes from here (test/architecture.test.ts stops new hand-made copies).

function epochMs(t: Date | number): number {
  return typeof t === "number" ? t : t.getTime();
}

// The last second metaTime formatted: every write stamps managedFields with the time, and most
// writes of a busy second share it (formatting cost about 1.3 µs a call, the lookup nothing).
let lastSecond = Number.NaN;
let lastText = "";

/** metav1.Time: `2026-01-02T03:04:05Z` (fractions of a second are dropped, not rounded). */
export function metaTime(t: Date | number): string {
  const ms = epochMs(t);
  const second = ms - (((ms % 1000) + 1000) % 1000);
  if (second === lastSecond) return lastText; // NaN (an invalid date) never matches: it throws below
  const text = new Date(second).toISOString().replace(/\.000Z$/, "Z");
  lastSecond = second;
  lastText = text;
  return text;
}

/** The whole second and the microseconds within it of epoch milliseconds (rounded to the nearest microsecond). */
function split(t: Date | number): { second: number; micros: number } {
  const ms = epochMs(t);
  const second = Math.floor(ms / 1000) * 1000;
  // A fractional ms value built from whole microseconds is off by less than 0.5 µs: rounding gives them back.
  return { second, micros: Math.min(999_999, Math.round((ms - second) * 1000)) };
}

/**
 * metav1.MicroTime: `2026-01-02T03:04:05.678901Z`. Takes a Date (milliseconds: the last three
 * digits are 0) or epoch milliseconds, which may be fractional (e.g. `performance.timeOrigin + performance.now()`).
 */
export function microTime(t: Date | number): string {
  const { second, micros } = split(t);
  return `${metaTime(second).slice(0, -1)}.${String(micros).padStart(6, "0")}Z`;
}

/** Go's time.RFC3339Nano in UTC: `2026-01-02T03:04:05.12Z`, `2026-01-02T03:04:05Z` (no trailing zeros). */
export function rfc3339Nano(t: Date | number): string {
  const { second, micros } = split(t);
  const digits = String(micros).padStart(6, "0").replace(/0+$/, "");
  const base = metaTime(second).slice(0, -1);
  return digits ? `${base}.${digits}Z` : `${base}Z`;
}
