// The Shoot maintenance time window (Gardener's pkg/apis/utils/timewindow; docs/maintenance-and-rotation.md):
// `HHMMSS±hhmm` begin and end, each turned into a UTC time of day with second granularity; windows may
// cross midnight and both ends are inclusive. Controllers use the effective window (end 15 min earlier).
// Pure: every function takes the time it works on.

const DAY_S = 24 * 3600;
/** Controllers finish their work 15 minutes before the window ends. */
export const EFFECTIVE_END_MARGIN_S = 15 * 60;
export const MIN_WINDOW_S = 30 * 60;
export const MAX_WINDOW_S = 6 * 3600;

const MAINTENANCE_TIME = /^(\d{2})(\d{2})(\d{2})([+-])(\d{2})(\d{2})$/;

export class TimeWindowError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "TimeWindowError";
  }
}

/** Seconds after UTC midnight of a `HHMMSS±hhmm` time (the date is discarded). */
export function parseMaintenanceTime(value: string): number {
  const m = MAINTENANCE_TIME.exec(value);
  if (!m) throw new TimeWindowError(`could not parse the value into the maintenanceTime format: ${JSON.stringify(value)} (expected HHMMSS+hhmm or HHMMSS-hhmm)`);
  const [h, min, s, sign, oh, om] = [Number(m[1]), Number(m[2]), Number(m[3]), m[4], Number(m[5]), Number(m[6])];
  if (h > 23 || min > 59 || s > 59) throw new TimeWindowError(`${JSON.stringify(value)} is not a time of day`);
  if (oh > 14 || om > 59) throw new TimeWindowError(`${JSON.stringify(value)} has an invalid UTC offset`);
  const offset = (sign === "-" ? -1 : 1) * (oh * 3600 + om * 60);
  return mod(h * 3600 + min * 60 + s - offset, DAY_S);
}

/** `HHMMSS+0000` of seconds after UTC midnight. */
export function formatMaintenanceTime(secondOfDay: number): string {
  const s = mod(Math.floor(secondOfDay), DAY_S);
  const two = (n: number): string => String(n).padStart(2, "0");
  return `${two(Math.floor(s / 3600))}${two(Math.floor((s % 3600) / 60))}${two(s % 60)}+0000`;
}

function mod(n: number, m: number): number {
  return ((n % m) + m) % m;
}

/** A daily window in UTC seconds of the day; `end < begin` crosses midnight. */
export class MaintenanceTimeWindow {
  constructor(
    readonly begin: number,
    readonly end: number,
  ) {}

  /** The window of `begin`/`end` strings; throws TimeWindowError when either does not parse. */
  static parse(begin: string, end: string): MaintenanceTimeWindow {
    return new MaintenanceTimeWindow(parseMaintenanceTime(begin), parseMaintenanceTime(end));
  }

  /** 00:00:00-23:59:59: any time counts as inside (maintenance or window absent). */
  static always(): MaintenanceTimeWindow {
    return new MaintenanceTimeWindow(0, DAY_S - 1);
  }

  isAlways(): boolean {
    return this.begin === 0 && this.end === DAY_S - 1;
  }

  /** end − begin, plus a day when end ≤ begin (seconds). */
  durationSeconds(): number {
    return this.end > this.begin ? this.end - this.begin : this.end - this.begin + DAY_S;
  }

  /** Inclusive at both ends, second granularity (sub-seconds truncated), in UTC. */
  contains(t: Date | number): boolean {
    const ms = typeof t === "number" ? t : t.getTime();
    const s = mod(Math.floor(ms / 1000), DAY_S);
    if (this.end < this.begin) return s >= this.begin || s <= this.end;
    return this.begin <= s && s <= this.end;
  }

  /** The window controllers use: the end moved 15 minutes earlier on the clock face; the always-window is kept. */
  effective(): MaintenanceTimeWindow {
    if (this.isAlways()) return this;
    return new MaintenanceTimeWindow(this.begin, mod(this.end - EFFECTIVE_END_MARGIN_S, DAY_S));
  }

  /**
   * How long until the next maintenance run (ms): begin and end placed on today's UTC date; when
   * begin is reached and now is inside the window or after its end, both move a day on; then
   * (begin − now) plus a random share of the window. `random` returns [0, 1). (A run at exactly
   * begin thus schedules tomorrow's, not a second run today.)
   */
  nextRunDelayMs(now: Date | number, random: () => number = Math.random): number {
    const nowMs = typeof now === "number" ? now : now.getTime();
    const midnight = Math.floor(nowMs / (DAY_S * 1000)) * DAY_S * 1000;
    let begin = midnight + this.begin * 1000;
    let end = midnight + this.end * 1000;
    if (end <= begin) end += DAY_S * 1000;
    if (begin <= nowMs && (this.contains(nowMs) || nowMs > end)) {
      begin += DAY_S * 1000;
      end += DAY_S * 1000;
    }
    return begin - nowMs + Math.floor(random() * (end - begin));
  }

  toString(): string {
    return `${formatMaintenanceTime(this.begin)}-${formatMaintenanceTime(this.end)}`;
  }
}

/** The window of a Shoot's `spec.maintenance.timeWindow`; absent or unparsable gives the always-window. */
export function shootMaintenanceWindow(shoot: { spec?: unknown }): MaintenanceTimeWindow {
  const spec = shoot.spec as { maintenance?: { timeWindow?: { begin?: unknown; end?: unknown } } } | undefined;
  const tw = spec?.maintenance?.timeWindow;
  if (typeof tw?.begin !== "string" || typeof tw.end !== "string") return MaintenanceTimeWindow.always();
  try {
    return MaintenanceTimeWindow.parse(tw.begin, tw.end);
  } catch {
    return MaintenanceTimeWindow.always();
  }
}

/** The default window of a new Shoot: one hour starting at a random full hour 00..22 UTC. */
export function randomMaintenanceWindow(random: () => number = Math.random): { begin: string; end: string } {
  const hour = Math.min(22, Math.floor(random() * 23));
  return { begin: formatMaintenanceTime(hour * 3600), end: formatMaintenanceTime((hour + 1) * 3600) };
}
