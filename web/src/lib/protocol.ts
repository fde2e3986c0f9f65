// The browser's side of the attach protocol (docs/dashboard.md#terminal-panes): Kubernetes'
// v4.channel.k8s.io frames (one channel byte, then the payload) relayed unchanged by the dashboard,
// and the bearer token carried as a WebSocket subprotocol. No DOM and no Vue here, so node tests it.

export const TOKEN_PROTOCOL_PREFIX = "base64url.bearer.authorization.k8s.io.";
export const CHANNEL_PROTOCOL = "v4.channel.k8s.io";
export const STDIN = 0;
export const STDOUT = 1;
export const STDERR = 2;
export const ERROR = 3;
export const RESIZE = 4;

const encoder = new TextEncoder();

/** base64url of the UTF-8 bytes of `text`, without padding. */
export function base64url(text: string): string {
  let bin = "";
  for (const b of encoder.encode(text)) bin += String.fromCharCode(b);
  return btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** The subprotocols to offer: the token, then the channel protocol. */
export function subprotocols(token: string): string[] {
  return [TOKEN_PROTOCOL_PREFIX + base64url(token), CHANNEL_PROTOCOL];
}

/** `ws(s)://<host>/api/terminals/attach/<namespace>/<name>?container=terminal&stdin=true&stdout=true&tty=true`. */
export function attachUrl(origin: string, namespace: string, name: string): string {
  const ws = origin.replace(/^http/, "ws");
  return `${ws}/api/terminals/attach/${encodeURIComponent(namespace)}/${encodeURIComponent(name)}?container=terminal&stdin=true&stdout=true&tty=true`;
}

export function frame(channel: number, payload: string | Uint8Array): Uint8Array {
  const bytes = typeof payload === "string" ? encoder.encode(payload) : payload;
  const out = new Uint8Array(bytes.length + 1);
  out[0] = channel;
  out.set(bytes, 1);
  return out;
}

export function resizeFrame(cols: number, rows: number): Uint8Array {
  return frame(RESIZE, JSON.stringify({ Width: cols, Height: rows }));
}

export type Incoming =
  | { kind: "output"; data: Uint8Array }
  | { kind: "status"; status: { status?: string; message?: string; reason?: string } }
  | { kind: "ignored" };

/** One frame from the relay: output (1, 2), a Status (3), or nothing to act on. */
export function parseFrame(data: ArrayBuffer | Uint8Array): Incoming {
  const bytes = data instanceof Uint8Array ? data : new Uint8Array(data);
  if (bytes.length <= 1) return { kind: "ignored" };
  const channel = bytes[0];
  if (channel === STDOUT || channel === STDERR) return { kind: "output", data: bytes.subarray(1) };
  if (channel === ERROR) {
    try {
      const status = JSON.parse(new TextDecoder().decode(bytes.subarray(1))) as { status?: string; message?: string };
      return { kind: "status", status: typeof status === "object" && status !== null ? status : {} };
    } catch {
      return { kind: "status", status: { status: "Failure", message: "the terminal sent an unreadable status" } };
    }
  }
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
