// metav1.Time and metav1.MicroTime on the wire: RFC 3339 in UTC, with whole seconds
// ("2024-01-01T00:00:00Z") or exactly six fractional digits ("2024-01-01T00:00:00.123456Z").
// Strategies normalize the timestamps of their kinds so stored objects look like kube's.

import { isRecord } from "../../../utils/guards.ts";
import { metaTime } from "../../../utils/time.ts";

const rfc3339Re = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:\d{2})$/;

interface Parsed {
  /** Milliseconds since the epoch of the whole second. */
  secondsMs: number;
  /** The fractional digits, as written. */
  fraction: string;
}

function parse(value: string): Parsed | undefined {
  const m = rfc3339Re.exec(value);
  if (!m) return undefined;
  const [y, mo, d, h, mi, s] = [1, 2, 3, 4, 5, 6].map((i) => Number(m[i]));
  if (mo! < 1 || mo! > 12 || d! < 1 || d! > 31 || h! > 23 || mi! > 59 || s! > 60) return undefined;
  let ms = Date.UTC(y!, mo! - 1, d!, h!, mi!, s!);
  if (y! < 100) ms = new Date(ms).setUTCFullYear(y!);
  const zone = m[8]!;
  if (zone !== "Z") {
    const sign = zone.startsWith("-") ? -1 : 1;
    ms -= sign * (Number(zone.slice(1, 3)) * 60 + Number(zone.slice(4, 6))) * 60_000;
  }
  return { secondsMs: ms, fraction: m[7] ?? "" };
}

export function isRFC3339(value: unknown): value is string {
  return typeof value === "string" && parse(value) !== undefined;
}

/** metav1.Time: UTC, second precision. Returns the input unchanged when it does not parse. */
export function normalizeTime(value: string): string {
  const p = parse(value);
  return p ? metaTime(p.secondsMs) : value;
}

/** metav1.MicroTime: UTC with six fractional digits. Returns the input unchanged when it does not parse. */
export function normalizeMicroTime(value: string): string {
  const p = parse(value);
  return p ? `${metaTime(p.secondsMs).slice(0, -1)}.${(p.fraction + "000000").slice(0, 6)}Z` : value;
}

/** Normalizes `obj[key]` in place when it is a timestamp string. */
export function normalizeField(obj: unknown, key: string, micro: boolean): void {
  if (!isRecord(obj)) return;
  const v = obj[key];
  if (typeof v === "string") obj[key] = micro ? normalizeMicroTime(v) : normalizeTime(v);
}
