// Go durations (time.ParseDuration) as used by Gardener's flags and configs: a sequence of
// decimal numbers, each with an optional fraction and a unit ("ns", "us"/"µs", "ms", "s", "m",
// "h"), e.g. "1h30m", "24h", "500ms", "1.5s"; an optional leading sign; "0" alone is zero.
// Values are returned in milliseconds (fractions kept: "1us" is 0.001).

const UNIT_MS: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  "µs": 1e-3,
  "μs": 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

export class DurationError extends Error {
  constructor(text: string, why: string) {
    super(`invalid duration ${JSON.stringify(text)}: ${why}`);
    this.name = "DurationError";
  }
}

const PART = /^(\d+(?:\.\d*)?|\.\d+)([^\d.]*)/;

/** Parses a Go duration into milliseconds; throws DurationError naming the bad input. */
export function parseDuration(text: string): number {
  let rest = text;
  let sign = 1;
  if (rest.startsWith("-") || rest.startsWith("+")) {
    sign = rest.startsWith("-") ? -1 : 1;
    rest = rest.slice(1);
  }
  if (rest === "0") return 0;
  if (rest === "") throw new DurationError(text, "empty");
  let total = 0;
  while (rest !== "") {
    const m = PART.exec(rest);
    if (!m) throw new DurationError(text, `unexpected ${JSON.stringify(rest)} (expected a number followed by a unit)`);
    const unit = m[2]!;
    if (unit === "") throw new DurationError(text, `missing unit after ${m[1]} (valid units: ns, us, ms, s, m, h)`);
    if (UNIT_MS[unit] === undefined) throw new DurationError(text, `unknown unit ${JSON.stringify(unit)} (valid units: ns, us, ms, s, m, h)`);
    total += Number(m[1]) * UNIT_MS[unit];
    rest = rest.slice(m[0].length);
  }
  if (!Number.isFinite(total)) throw new DurationError(text, "out of range");
  return sign * total;
}

/** Parses a duration that must be greater than zero (flags such as --bastion-max-lifetime). */
export function parsePositiveDuration(text: string): number {
  const ms = parseDuration(text);
  if (!(ms > 0)) throw new DurationError(text, "must be positive");
  return ms;
}

/** Formats milliseconds the way Go prints a time.Duration ("24h0m0s", "1m30s", "500ms", "0s"). */
export function formatDuration(ms: number): string {
  if (ms === 0) return "0s";
  const sign = ms < 0 ? "-" : "";
  let abs = Math.abs(ms);
  if (abs < 1000) return `${sign}${trim(abs)}ms`;
  const h = Math.floor(abs / 3_600_000);
  abs -= h * 3_600_000;
  const m = Math.floor(abs / 60_000);
  abs -= m * 60_000;
  const s = `${trim(abs / 1000)}s`;
  if (h > 0) return `${sign}${h}h${m}m${s}`;
  if (m > 0) return `${sign}${m}m${s}`;
  return `${sign}${s}`;
}

function trim(n: number): string {
  return String(Number(n.toFixed(9)));
}
