// Writing responses: every JSON answer carries Content-Type application/json (docs/kubernetes-api.md#responses-and-errors); every
// failure is a metav1 Status with the matching HTTP code.
import type { ServerResponse } from "node:http";
import { stringify as toYaml } from "yaml";
import { type StatusError, toStatusError } from "../../apimachinery/errors.ts";
import { contentTypeOf, type OutputFormat } from "./negotiation.ts";
import { sendWhole } from "./whole-response.ts";

export interface WriteOptions {
  format?: OutputFormat;
  pretty?: boolean;
  headers?: Record<string, string | string[]>;
}

export function encode(body: unknown, format: OutputFormat = { kind: "json" }, pretty = false): string {
  if (format.kind === "yaml") return toYaml(body);
  return pretty ? JSON.stringify(body, null, 2) + "\n" : JSON.stringify(body);
}

export function writeObject(res: ServerResponse, status: number, body: unknown, opts: WriteOptions = {}): void {
  const format = opts.format ?? { kind: "json" };
  const text = encode(body, format, opts.pretty);
  const head = res.req?.method === "HEAD";
  sendWhole(
    res,
    status,
    {
      ...opts.headers,
      "Content-Type": contentTypeOf(format),
      "Content-Length": Buffer.byteLength(text),
      "Cache-Control": "no-cache, private",
    },
    head ? undefined : text,
  );
}

export function writeText(res: ServerResponse, status: number, text: string, contentType = "text/plain; charset=utf-8"): void {
  sendWhole(
    res,
    status,
    {
      "Content-Type": contentType,
      "Content-Length": Buffer.byteLength(text),
      "Cache-Control": "no-cache, private",
      "X-Content-Type-Options": "nosniff",
    },
    res.req?.method === "HEAD" ? undefined : text,
  );
}

/** Renders any error as a Status (unknown errors become 500 InternalError without stack). */
export function writeError(res: ServerResponse, err: unknown, extraHeaders: Record<string, string> = {}): StatusError {
  const se = toStatusError(err);
  if (res.headersSent) {
    res.destroy();
    return se;
  }
  const headers: Record<string, string> = { ...extraHeaders };
  const retry = se.details?.retryAfterSeconds;
  if (retry && (se.code === 429 || se.code >= 500)) headers["Retry-After"] = String(retry);
  writeObject(res, se.code, se.toStatus(), { headers });
  return se;
}

/** `Warning: 299 - "<text>"` header values (quotes and backslashes escaped, as RFC 7234 quoted-strings). */
export function warningHeaders(warnings: string[]): string[] {
  return warnings.map((w) => `299 - "${w.replace(/[\\"]/g, (c) => `\\${c}`).replace(/[\r\n]+/g, " ").replace(/[^\x20-\x7e]/g, "?")}"`);
}
