// What both WebSocket endpoints share before an upgrade: the refusal as a Kubernetes `Status` on the
// raw socket, and the bearer token from the subprotocol (as kube-apiserver accepts it from browsers).
import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";

export const TOKEN_PROTOCOL_PREFIX = "base64url.bearer.authorization.k8s.io.";
export const TERMINAL_PROTOCOL = "terminal.dashboard.gardener.cloud";

export function reject(socket: Duplex, code: number, reason: string, message: string): void {
  const body = JSON.stringify({ kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", reason, message, code });
  socket.end(`HTTP/1.1 ${code} ${reason}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`);
}

export function tokenFrom(req: IncomingMessage): string | undefined {
  const offered = String(req.headers["sec-websocket-protocol"] ?? "").split(",").map((p) => p.trim());
  const entry = offered.find((p) => p.startsWith(TOKEN_PROTOCOL_PREFIX));
  if (!entry) return undefined;
  const token = Buffer.from(entry.slice(TOKEN_PROTOCOL_PREFIX.length), "base64url").toString("utf8");
  return token.length > 0 && token.length <= 16 * 1024 && !/[\s]/.test(token) ? token : undefined;
}

/** A browser's `Origin` must name the host it sent the request to; clients without one pass. */
export function originAllowed(req: IncomingMessage): boolean {
  const origin = req.headers.origin;
  if (origin === undefined) return true;
  try {
    return new URL(origin).host === req.headers.host;
  } catch {
    return false;
  }
}
