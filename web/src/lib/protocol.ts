// The browser's side of the dashboard's terminal protocol (docs/dashboard.md#attaching-to-a-terminal):
// the bearer token as a WebSocket subprotocol next to `terminal.dashboard.gardener.cloud`; binary
// messages are keystrokes up and output down; text messages are JSON, `{"resize":{cols,rows}}` up,
// `{"connected":...}` and `{"status":<Status>}` down. No DOM and no Vue here, so node tests it.

export const TOKEN_PROTOCOL_PREFIX = "base64url.bearer.authorization.k8s.io.";
export const TERMINAL_PROTOCOL = "terminal.dashboard.gardener.cloud";

const encoder = new TextEncoder();

/** base64url of the UTF-8 bytes of `text`, without padding. */
export function base64url(text: string): string {
  let bin = "";
  for (const b of encoder.encode(text)) bin += String.fromCharCode(b);
  return btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** The subprotocols to offer: the token, then the dashboard's terminal protocol. */
export function subprotocols(token: string): string[] {
  return [TOKEN_PROTOCOL_PREFIX + base64url(token), TERMINAL_PROTOCOL];
}

/** `ws(s)://<host>/api/terminals/attach/<namespace>/<name>?container=terminal&stdin=true&stdout=true&tty=true`. */
export function attachUrl(origin: string, namespace: string, name: string): string {
  const ws = origin.replace(/^http/, "ws");
  return `${ws}/api/terminals/attach/${encodeURIComponent(namespace)}/${encodeURIComponent(name)}?container=terminal&stdin=true&stdout=true&tty=true`;
}

export function keys(data: string): Uint8Array {
  return encoder.encode(data);
}

/** An empty binary message: keeps proxies from closing an idle socket; never recorded. */
export const KEEPALIVE = new Uint8Array(0);

export function resizeMessage(cols: number, rows: number): string {
  return JSON.stringify({ resize: { cols, rows } });
}

export interface Status {
  status?: string;
  message?: string;
  reason?: string;
  code?: number;
}

export type Incoming =
  | { kind: "output"; data: Uint8Array }
  | { kind: "connected"; recording?: { id?: string; input?: boolean } }
  | { kind: "status"; status: Status }
  | { kind: "ignored" };

/** One message from the dashboard: output (binary), `connected` or a `status` (JSON text). */
export function parseMessage(data: unknown): Incoming {
  if (data instanceof ArrayBuffer || data instanceof Uint8Array) {
    const bytes = data instanceof Uint8Array ? data : new Uint8Array(data);
    return bytes.length ? { kind: "output", data: bytes } : { kind: "ignored" };
  }
  if (typeof data !== "string") return { kind: "ignored" };
  let msg: { connected?: { recording?: { id?: string; input?: boolean } }; status?: Status };
  try {
    msg = JSON.parse(data) as typeof msg;
  } catch {
    return { kind: "ignored" };
  }
  if (typeof msg !== "object" || msg === null) return { kind: "ignored" };
  if (msg.connected) return { kind: "connected", recording: msg.connected.recording };
  if (typeof msg.status === "object" && msg.status !== null) return { kind: "status", status: msg.status };
  return { kind: "ignored" };
}

/**
 * How long to wait before reconnect try `tries` (1, 2, ...): at once for the first try after a
 * connection that had been up (the screen stays), else 3 s, doubling from the third try, up to 30 s.
 */
export function reconnectDelayMs(tries: number, wasConnected: boolean): number {
  if (tries <= 1 && wasConnected) return 0;
  return Math.min(30_000, 3000 * 2 ** Math.max(0, tries - 2));
}
