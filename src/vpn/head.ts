// Reading one HTTP/1.x request head from a raw socket, bounded in size and time, for the seed CONNECT
// proxy (docs/reversed-vpn.md; the egress proxy uses Node's HTTP server), and the answers of both proxies.
import type { Socket } from "node:net";
import type { Clock } from "../utils/clock.ts";

export interface RequestHead {
  method: string;
  target: string;
  version: string;
  /** Header lines in order, names as sent. */
  headers: [string, string][];
  /** Bytes that arrived after the head (already the start of the tunnelled stream). */
  rest: Buffer;
}

export type HeadResult = { ok: true; head: RequestHead } | { ok: false; reason: "timeout" | "closed" | "malformed" | "too-large" };

const END = Buffer.from("\r\n\r\n");

/** Whether a byte may appear in a request head: printable ASCII, tab, CR and LF. Catches TLS and other binary openings at once. */
function textByte(b: number): boolean {
  return (b >= 0x20 && b < 0x7f) || b === 0x09 || b === 0x0d || b === 0x0a;
}

/** Parses a complete head (without the final blank line). */
export function parseHead(text: string, rest: Buffer): RequestHead | undefined {
  const lines = text.split("\r\n");
  const parts = (lines[0] ?? "").split(" ");
  if (parts.length !== 3 || parts.some((p) => p === "")) return undefined;
  const [method, target, version] = parts as [string, string, string];
  if (version !== "HTTP/1.0" && version !== "HTTP/1.1") return undefined;
  if (!/^[A-Za-z]+$/.test(method)) return undefined;
  const headers: [string, string][] = [];
  for (const line of lines.slice(1)) {
    const colon = line.indexOf(":");
    if (colon <= 0) return undefined;
    const name = line.slice(0, colon);
    if (!/^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/.test(name)) return undefined;
    headers.push([name, line.slice(colon + 1).trim()]);
  }
  return { method, target, version, headers, rest };
}

/**
 * Reads from `socket` until the blank line ending the head. At most `maxBytes` (the head including its
 * final CRLF CRLF), complete within `timeoutMs`. The socket is paused again afterwards, its listeners removed.
 */
export function readHead(socket: Socket, clock: Clock, maxBytes: number, timeoutMs: number): Promise<HeadResult> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const finish = (r: HeadResult) => {
      if (done) return;
      done = true;
      timer.cancel();
      socket.off("data", onData);
      socket.off("end", onClose);
      socket.off("close", onClose);
      socket.off("error", onClose);
      socket.pause();
      resolve(r);
    };
    const onClose = () => finish({ ok: false, reason: "closed" });
    const onData = (chunk: Buffer) => {
      chunks.push(chunk);
      size += chunk.length;
      const all = chunks.length === 1 ? chunk : Buffer.concat(chunks);
      const end = all.indexOf(END);
      // Bytes after the head belong to the tunnelled stream and may be binary; the head itself may not.
      const headEnd = Math.min(end >= 0 ? end : all.length, maxBytes);
      for (let i = 0; i < headEnd; i++) if (!textByte(all[i]!)) return finish({ ok: false, reason: "malformed" });
      if (end >= 0) {
        if (end + END.length > maxBytes) return finish({ ok: false, reason: "too-large" });
        const head = parseHead(all.subarray(0, end).toString("latin1"), Buffer.from(all.subarray(end + END.length)));
        return finish(head ? { ok: true, head } : { ok: false, reason: "malformed" });
      }
      if (size >= maxBytes) finish({ ok: false, reason: "too-large" });
    };
    const timer = clock.setTimer(timeoutMs, () => finish({ ok: false, reason: "timeout" }));
    socket.on("data", onData);
    socket.once("end", onClose);
    socket.once("close", onClose);
    socket.once("error", onClose);
    socket.resume();
  });
}

/** The values of a header (case-insensitive name). */
export function headerValues(head: RequestHead, name: string): string[] {
  const lower = name.toLowerCase();
  return head.headers.filter(([n]) => n.toLowerCase() === lower).map(([, v]) => v);
}

/** `HTTP/1.1 <code> <reason>` with Content-Length (of `body`) and Connection: close. */
export function refusal(code: number, reason: string, body = ""): string {
  const text = body === "" ? "" : body + "\n";
  return `HTTP/1.1 ${code} ${reason}\r\nContent-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n${text === "" ? "" : "Content-Type: text/plain; charset=utf-8\r\n"}\r\n${text}`;
}

export const ESTABLISHED = "HTTP/1.1 200 Connection established\r\n\r\n";
