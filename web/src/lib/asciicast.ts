// Reading an asciicast v2 recording (docs/dashboard.md#recordings): a header line, then one
// `[seconds, code, data]` event per line. Output ("o") and resizes ("r") are replayed; input ("i")
// and markers ("m") are listed beside the player. Idle gaps are capped, so a replay never waits
// longer than `maxIdleSeconds` for the next event. No DOM here, so node tests it.

export interface CastHeader {
  version: 2;
  width: number;
  height: number;
  timestamp?: number;
  title?: string;
}

/** An event on the replay's timeline: `t` is seconds since the start after idle capping. */
export interface CastEvent {
  t: number;
  code: string;
  data: string;
}

export interface Cast {
  header: CastHeader;
  /** "o" and "r" events, in order. */
  events: CastEvent[];
  /** "i" (input) and "m" (marker) events, for the side list. */
  notes: CastEvent[];
  /** The timeline's length in seconds. */
  duration: number;
  /** Lines that were not events (skipped). */
  skipped: number;
}

export const MAX_EVENTS = 2_000_000;
const MAX_SIZE = 1000;

function size(v: unknown, fallback: number): number {
  return typeof v === "number" && Number.isInteger(v) && v >= 1 && v <= MAX_SIZE ? v : fallback;
}

/** Parses a `.cast` text; throws on a header that is not asciicast v2. */
export function parseCast(text: string, o: { maxIdleSeconds?: number } = {}): Cast {
  const maxIdle = o.maxIdleSeconds ?? 2;
  const lines = text.split("\n");
  let header: Partial<CastHeader>;
  try {
    header = JSON.parse(lines[0] ?? "") as Partial<CastHeader>;
  } catch {
    throw new Error("not an asciicast recording: the first line is not JSON");
  }
  if (typeof header !== "object" || header === null || header.version !== 2) throw new Error("not an asciicast v2 recording");
  const cast: Cast = {
    header: { version: 2, width: size(header.width, 80), height: size(header.height, 24), timestamp: header.timestamp, title: typeof header.title === "string" ? header.title : undefined },
    events: [],
    notes: [],
    duration: 0,
    skipped: 0,
  };
  let lastRaw = 0;
  let t = 0;
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.trim() === "") continue;
    let ev: unknown;
    try {
      ev = JSON.parse(line);
    } catch {
      cast.skipped++;
      continue;
    }
    if (!Array.isArray(ev) || typeof ev[0] !== "number" || !Number.isFinite(ev[0]) || typeof ev[1] !== "string" || typeof ev[2] !== "string") {
      cast.skipped++;
      continue;
    }
    const raw = Math.max(lastRaw, ev[0]);
    t += Math.min(raw - lastRaw, maxIdle);
    lastRaw = raw;
    const event = { t, code: ev[1], data: ev[2] };
    if (ev[1] === "o" || ev[1] === "r") cast.events.push(event);
    else if (ev[1] === "i" || ev[1] === "m") cast.notes.push(event);
    else cast.skipped++;
    if (cast.events.length + cast.notes.length >= MAX_EVENTS) break;
  }
  cast.duration = t;
  return cast;
}

/** `"<cols>x<rows>"` of an "r" event, or undefined. */
export function parseResize(data: string): { cols: number; rows: number } | undefined {
  const m = /^(\d{1,4})x(\d{1,4})$/.exec(data);
  if (!m) return undefined;
  const cols = Number(m[1]);
  const rows = Number(m[2]);
  return cols >= 1 && rows >= 1 && cols <= MAX_SIZE && rows <= MAX_SIZE ? { cols, rows } : undefined;
}

/** `m:ss` (or `h:mm:ss`) of a number of seconds. */
export function clock(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  const h = Math.floor(s / 3600);
  const mm = Math.floor((s % 3600) / 60);
  const ss = String(s % 60).padStart(2, "0");
  return h ? `${h}:${String(mm).padStart(2, "0")}:${ss}` : `${mm}:${ss}`;
}
