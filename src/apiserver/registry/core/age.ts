// Ages in table cells, as Kubernetes' printers show them (k8s.io/apimachinery/pkg/util/duration
// HumanDuration): "45s", "5m3s", "17m", "3h2m", "10h", "2d3h", "40d", "3y20d", "9y".

/** Formats a duration in milliseconds like duration.HumanDuration. */
export function humanDuration(ms: number): string {
  // A deviation of up to two seconds is tolerated as clock skew ("almost now").
  const seconds = Math.trunc(ms / 1000);
  if (seconds < -1) return "<invalid>";
  if (seconds < 0) return "0s";
  if (seconds < 60 * 2) return `${seconds}s`;
  const minutes = Math.trunc(ms / 60_000);
  if (minutes < 10) {
    const s = seconds % 60;
    return s === 0 ? `${minutes}m` : `${minutes}m${s}s`;
  }
  if (minutes < 60 * 3) return `${minutes}m`;
  const hours = Math.trunc(ms / 3_600_000);
  if (hours < 8) {
    const m = minutes % 60;
    return m === 0 ? `${hours}h` : `${hours}h${m}m`;
  }
  if (hours < 48) return `${hours}h`;
  if (hours < 24 * 8) {
    const h = hours % 24;
    return h === 0 ? `${Math.trunc(hours / 24)}d` : `${Math.trunc(hours / 24)}d${h}h`;
  }
  if (hours < 24 * 365 * 2) return `${Math.trunc(hours / 24)}d`;
  if (hours < 24 * 365 * 8) {
    const dy = Math.trunc(hours / 24) % 365;
    const y = Math.trunc(hours / 24 / 365);
    return dy === 0 ? `${y}y` : `${y}y${dy}d`;
  }
  return `${Math.trunc(hours / 24 / 365)}y`;
}

/** Go's zero time.Time (0001-01-01T00:00:00Z), which Kubernetes treats as "no timestamp". */
const GO_ZERO_TIME_MS = -62135596800000;

/** The AGE cell of built-in printers: "<unknown>" without a (valid) timestamp. */
export function translateTimestampSince(timestamp: string | undefined, now: Date): string {
  if (!timestamp) return "<unknown>";
  const t = Date.parse(timestamp);
  if (Number.isNaN(t) || t <= GO_ZERO_TIME_MS) return "<unknown>";
  return humanDuration(now.getTime() - t);
}
