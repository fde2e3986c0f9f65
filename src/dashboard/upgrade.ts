// What both WebSocket endpoints share before an upgrade: the refusal as a Kubernetes `Status` on the
// raw socket, the bearer token from the subprotocol (as kube-apiserver accepts it from browsers), and the
// user it belongs to with one of their session slots.
import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import { whoAmI } from "./identity.ts";

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

/**
 * A browser's `Origin` must be the dashboard itself: the scheme it serves and the host the request went
 * to (so another site's page cannot open a socket with the user's cookies or token); clients without
 * an `Origin` (not browsers) pass. Checked once for every upgrade path, before anything else.
 */
export function originAllowed(req: IncomingMessage): boolean {
  const origin = req.headers.origin;
  if (origin === undefined) return true;
  const scheme = (req.socket as { encrypted?: boolean }).encrypted ? "https:" : "http:";
  try {
    const u = new URL(origin);
    return u.protocol === scheme && u.host === req.headers.host?.toLowerCase() && origin === u.origin;
  } catch {
    return false;
  }
}

/** Takes one of the user's session slots: a release function, or the refusal's message. */
export type Admit = (user: string) => (() => void) | string;

/**
 * The token from the subprotocol, the user the garden says it belongs to, and one of their session slots;
 * or undefined once the refusal (401, the garden's answer, 429) is written to the socket.
 */
export async function admitUser(req: IncomingMessage, socket: Duplex, garden: { url: string; caPem?: string }, admit: Admit): Promise<{ token: string; user: string; release: () => void } | undefined> {
  const token = tokenFrom(req);
  if (!token) return void reject(socket, 401, "Unauthorized", `a bearer token is required (WebSocket subprotocol ${TOKEN_PROTOCOL_PREFIX}<base64url token>)`);
  const who = await whoAmI(garden, token);
  if (who.kind === "error") return void reject(socket, who.code, who.reason, who.message);
  const release = admit(who.username);
  if (typeof release === "string") return void reject(socket, 429, "TooManyRequests", release);
  return { token, user: who.username, release };
}
