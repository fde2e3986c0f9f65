// Container logs: the shim writes them in the kubelet's CRI format ("<time> <stream> <F|P> <text>"); these
// read them back as the text the container wrote, the last `tail` lines, following until the container ends.
import { open, readFile, stat } from "node:fs/promises";
import { Readable } from "node:stream";

const MAX_READ = 4 * 1024 * 1024;

/** The container's text from CRI lines (partial lines joined). */
export function decodeCri(text: string): string[] {
  const out: string[] = [];
  let partial = "";
  for (const line of text.split("\n")) {
    const m = /^\S+ (stdout|stderr) ([FP]) ?(.*)$/.exec(line);
    if (!m) continue;
    partial += m[3];
    if (m[2] === "F") {
      out.push(partial);
      partial = "";
    }
  }
  if (partial) out.push(partial);
  return out;
}

export async function readLogLines(file: string, tail?: number): Promise<string[]> {
  const size = (await stat(file).catch(() => undefined))?.size ?? 0;
  const fh = await open(file, "r").catch(() => undefined);
  if (!fh) return [];
  try {
    const start = Math.max(0, size - MAX_READ);
    const buf = Buffer.alloc(size - start);
    await fh.read(buf, 0, buf.length, start);
    let text = buf.toString("utf8");
    if (start > 0) text = text.slice(text.indexOf("\n") + 1);
    const lines = decodeCri(text);
    return tail !== undefined ? lines.slice(Math.max(0, lines.length - tail)) : lines;
  } finally {
    await fh.close();
  }
}

/** The log as a stream of lines; with `follow`, new lines until ended() says the writer is done. */
export function logStream(file: string, options: { tail?: number; follow?: boolean; ended: () => Promise<boolean> }): Readable {
  async function* lines(): AsyncGenerator<string> {
    const first = await readLogLines(file, options.tail);
    for (const l of first) yield `${l}\n`;
    if (!options.follow) return;
    let offset = (await stat(file).catch(() => undefined))?.size ?? 0;
    let carry = "";
    for (;;) {
      const done = await options.ended();
      const size = (await stat(file).catch(() => undefined))?.size ?? 0;
      if (size < offset) offset = 0; // rotated
      if (size > offset) {
        const text = (await readFile(file)).subarray(offset, size).toString("utf8");
        offset = size;
        const complete = (carry + text).split("\n");
        carry = complete.pop() ?? "";
        for (const l of decodeCri(complete.join("\n"))) yield `${l}\n`;
      } else if (done) {
        for (const l of decodeCri(carry)) yield `${l}\n`;
        return;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  return Readable.from(lines());
}
