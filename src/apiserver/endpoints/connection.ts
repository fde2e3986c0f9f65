// The connection a request arrived on, whichever protocol carried it: over HTTP/1.1 the request's
// socket; over HTTP/2 the session's (node's compatibility request has a socket of its own per
// stream, a stand-in that forwards to the session's TLS socket).
import type { IncomingMessage } from "node:http";
import type { Socket } from "node:net";

/** What an HTTP/2 compatibility request adds: its stream and the stream's session. */
interface Http2Request {
  stream?: { session?: { socket?: Socket } };
}

/** The TLS socket (HTTP/1.1) or the session's socket (HTTP/2): one object per connection. */
export function connectionOf(req: IncomingMessage): Socket {
  return (req as Http2Request).stream?.session?.socket ?? req.socket;
}

export function isHttp2(req: IncomingMessage): boolean {
  return req.httpVersionMajor === 2;
}

/** "HTTP/2.0" or "HTTP/1.1" (as Go's Request.Proto). */
export function protocolOf(req: IncomingMessage): string {
  return isHttp2(req) ? "HTTP/2.0" : `HTTP/${req.httpVersion}`;
}
