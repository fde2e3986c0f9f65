// Container logs: the shim writes them in the kubelet's CRI format ("<time> <stream> <F|P> <text>"); these
// read them back as the text the container wrote, the last `tail` lines, lines since a time, optionally
// prefixed with their timestamps (as `kubectl logs --timestamps`), following until the container ends or
// the reader goes away.
import { open, readFile, stat } from "node:fs/promises";
import { Readable } from "node:stream";

const MAX_READ = 4 * 1024 * 1024;

export interface LogEntry {
  /** RFC 3339 with nanoseconds, as the shim wrote it. */
  time: string;
  text: string;
}

/** The container's lines from CRI lines (partial lines joined; the time is the first part's). */
export function decodeCriEntries(text: string): LogEntry[] {
  const out: LogEntry[] = [];
  let partial: LogEntry | undefined;
  for (const line of text.split("\n")) {
    const m = /^(\S+) (stdout|stderr) ([FP]) ?(.*)$/.exec(line);
    if (!m) continue;
    partial = partial ? { time: partial.time, text: partial.text + m[4] } : { time: m[1]!, text: m[4]! };
    if (m[3] === "F") {
      out.push(partial);
      partial = undefined;
    }
  }
  if (partial) out.push(partial);
  return out;
}

/** The container's text from CRI lines (partial lines joined). */
export function decodeCri(text: string): string[] {
  return decodeCriEntries(text).map((e) => e.text);
}

async function readEntries(file: string, tail?: number): Promise<LogEntry[]> {
  const size = (await stat(file).catch(() => undefined))?.size ?? 0;
  const fh = await open(file, "r").catch(() => undefined);
  if (!fh) return [];
  try {
    const start = Math.max(0, size - MAX_READ);
    const buf = Buffer.alloc(size - start);
    await fh.read(buf, 0, buf.length, start);
    let text = buf.toString("utf8");
    if (start > 0) text = text.slice(text.indexOf("\n") + 1);
    const lines = decodeCriEntries(text);
    return tail !== undefined ? lines.slice(Math.max(0, lines.length - tail)) : lines;
  } finally {
    await fh.close();
  }
}

export async function readLogLines(file: string, tail?: number): Promise<string[]> {
  return (await readEntries(file, tail)).map((e) => e.text);
}

export interface LogStreamOptions {
  tail?: number;
  follow?: boolean;
  /** Only lines written at or after this time (ms since the epoch). */
  sinceMs?: number;
  /** Prefix each line with its RFC 3339 timestamp and a space. */
  timestamps?: boolean;
  ended: () => Promise<boolean>;
}

/** The log as a stream of lines; with `follow`, new lines until ended() says the writer is done or the stream is destroyed. */
export function logStream(file: string, options: LogStreamOptions): Readable {
  const keep = (e: LogEntry) => options.sinceMs === undefined || Date.parse(e.time) >= options.sinceMs;
  const render = (e: LogEntry) => (options.timestamps ? `${e.time} ${e.text}\n` : `${e.text}\n`);
  async function* lines(): AsyncGenerator<string> {
    const first = await readEntries(file, options.tail);
    for (const e of first) if (keep(e)) yield render(e);
    if (!options.follow) return;
    let offset = (await stat(file).catch(() => undefined))?.size ?? 0;
    let carry = "";
    while (!stream.destroyed) {
      const done = await options.ended();
      const size = (await stat(file).catch(() => undefined))?.size ?? 0;
      if (size < offset) offset = 0; // rotated
      if (size > offset) {
        const text = (await readFile(file)).subarray(offset, size).toString("utf8");
        offset = size;
        const complete = (carry + text).split("\n");
        carry = complete.pop() ?? "";
        for (const e of decodeCriEntries(complete.join("\n"))) if (keep(e)) yield render(e);
      } else if (done) {
        for (const e of decodeCriEntries(carry)) if (keep(e)) yield render(e);
        return;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  const stream = Readable.from(lines());
  return stream;
}
