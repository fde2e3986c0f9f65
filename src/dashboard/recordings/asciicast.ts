// An asciicast v2 encoder for one terminal session (docs/dashboard.md#recordings): the header once the
// size is known (the first resize, or 80x24 when output comes first), then one JSON array per event:
// "o" output (UTF-8 decoded across frames per channel), "i" input (only when enabled), "r" resizes, and
// a single "m" marker when the cast reached its byte cap, after which nothing more is written.
import { TextDecoder } from "node:util";

export interface CastOptions {
  /** Unix milliseconds of the session's start (the header's timestamp, events are relative to it). */
  startMs: number;
  title: string;
  /** Record keystrokes as "i" events. */
  input: boolean;
  /** The cast's size cap in bytes, header and marker included. */
  maxBytes: number;
}

/** Room kept below the cap for the truncation marker. */
const MARKER_ROOM = 160;
export const MIN_CAST_BYTES = 4096;

export class CastEncoder {
  private header = false;
  private readonly decoders = new Map<number, TextDecoder>();
  private size = 0;
  truncated = false;

  /** `emit` receives each complete line (with its newline) in order. */
  constructor(private readonly o: CastOptions, private readonly emit: (line: string) => void) {
    if (o.maxBytes < MIN_CAST_BYTES) throw new Error(`a recording needs at least ${MIN_CAST_BYTES} bytes`);
  }

  /** Bytes of the cast so far. */
  get bytes(): number {
    return this.size;
  }

  private put(line: string): boolean {
    const n = Buffer.byteLength(line);
    if (this.size + n > this.o.maxBytes - MARKER_ROOM) return false;
    this.size += n;
    this.emit(line);
    return true;
  }

  private start(width: number, height: number): void {
    if (this.header) return;
    this.header = true;
    const header = { version: 2, width, height, timestamp: Math.floor(this.o.startMs / 1000), title: this.o.title, env: { TERM: "xterm-256color" } };
    this.put(`${JSON.stringify(header)}\n`);
  }

  private event(atMs: number, code: "o" | "i" | "r", data: string): void {
    if (this.truncated || data === "") return;
    this.start(80, 24);
    const t = Math.max(0, Math.round(atMs - this.o.startMs) / 1000);
    if (this.put(`${JSON.stringify([t, code, data])}\n`)) return;
    this.truncated = true;
    const marker = `${JSON.stringify([t, "m", `recording truncated: the cast reached its limit of ${this.o.maxBytes} bytes`])}\n`;
    this.size += Buffer.byteLength(marker);
    this.emit(marker);
  }

  /** Terminal output of one channel (1 stdout, 2 stderr). */
  output(atMs: number, channel: number, payload: Uint8Array): void {
    let d = this.decoders.get(channel);
    if (!d) this.decoders.set(channel, (d = new TextDecoder("utf-8", { fatal: false })));
    this.event(atMs, "o", d.decode(payload, { stream: true }));
  }

  /** Keystrokes: recorded only when enabled; empty payloads (keepalives) never. */
  input(atMs: number, payload: Uint8Array): void {
    if (!this.o.input || payload.length === 0) return;
    this.event(atMs, "i", Buffer.from(payload).toString("utf8"));
  }

  resize(atMs: number, cols: number, rows: number): void {
    this.start(cols, rows);
    this.event(atMs, "r", `${cols}x${rows}`);
  }

  /** Ends the session: the decoders' held-back bytes become U+FFFD output. */
  end(atMs: number): void {
    for (const d of this.decoders.values()) this.event(atMs, "o", d.decode());
  }
}
