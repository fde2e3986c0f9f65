// Sending a whole response at once: status, headers and body (docs/kubernetes-api.md#http2).
// Over HTTP/1.1 through node's response as before. Over HTTP/2 the headers go straight to the
// stream: node's compatibility response announces trailers on every stream it answers, so each
// answer costs a further call into JavaScript before its last frame; an answer sent whole has none.
// The compatibility response still ends the stream, so its own state (ended, the `finish` and
// `close` events) stays as if it had sent the headers itself.
//
// A body is written first and the stream ended once that write completed: an empty DATA frame with
// END_STREAM, sent from the same check phase. Ended together with the body, the stream would be
// closed, and destroyed, before node completes the body's write, and node's Writable then builds an
// `ERR_STREAM_DESTROYED` error with its stack for every answer (docs/high-availability.md#a-stream-ended-after-its-body).
import { type OutgoingHttpHeaders, type ServerResponse, validateHeaderName, validateHeaderValue } from "node:http";
import { type ServerHttp2Stream, sensitiveHeaders } from "node:http2";

/**
 * Sent as literals the peer does not keep: a value unique to one response never helps the
 * HPACK table, and adding each one would push out the entries the next responses repeat.
 */
const NEVER_INDEXED: readonly string[] = ["audit-id"];

/** Connection-specific headers, which HTTP/2 forbids (RFC 9113 8.2.2). */
const CONNECTION_SPECIFIC = new Set(["connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade", "http2-settings"]);

type HeaderValue = string | number | readonly string[];

/** The HTTP/2 stream of a compatibility response that has sent nothing yet; undefined over HTTP/1.1. */
function freshStream(res: ServerResponse): ServerHttp2Stream | undefined {
  const stream = (res as unknown as { stream?: ServerHttp2Stream }).stream;
  if (stream === undefined || stream.headersSent || stream.destroyed || stream.closed) return undefined;
  return stream;
}

/** The response's headers set so far and `headers`, as one HTTP/2 header block. */
export function http2Headers(status: number, set: OutgoingHttpHeaders, headers: Record<string, HeaderValue>): Record<string | symbol, unknown> {
  const out: Record<string | symbol, unknown> = { ":status": status };
  const add = (name: string, value: unknown) => {
    const key = name.toLowerCase();
    if (value === undefined || CONNECTION_SPECIFIC.has(key) || (key === "te" && value !== "trailers")) return;
    out[key] = value;
  };
  // The headers set before were checked by setHeader; the answer's own are checked here, as
  // writeHead would (a name or value HTTP/1.1 could not carry throws).
  for (const name in set) add(name, set[name]);
  for (const name in headers) {
    const value = headers[name]!;
    validateHeaderName(name);
    if (Array.isArray(value)) for (const v of value as readonly string[]) validateHeaderValue(name, v);
    else validateHeaderValue(name, String(value));
    add(name, value);
  }
  out[sensitiveHeaders] = NEVER_INDEXED;
  return out;
}

/** Writes status, headers and body (none for undefined) and ends the response. */
export function sendWhole(res: ServerResponse, status: number, headers: Record<string, HeaderValue>, body: string | Buffer | undefined): void {
  const stream = freshStream(res);
  if (stream === undefined) {
    res.writeHead(status, headers as OutgoingHttpHeaders);
    res.end(body);
    return;
  }
  res.statusCode = status;
  stream.respond(http2Headers(status, res.getHeaders(), headers) as never, { endStream: body === undefined });
  if (body === undefined) res.end();
  else res.write(body, () => res.end());
}
