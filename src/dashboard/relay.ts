// One terminal session: the browser's WebSocket on one side, the target API server's pods/attach (or
// pods/exec) WebSocket, opened with the user's own bearer token, on the other. The browser speaks a
// small protocol (binary = keystrokes / terminal output, text = JSON control messages); the API server
// side speaks the channel protocol (v5/v4.channel.k8s.io). See docs/dashboard.md.
import WebSocket from "ws";
import {
  CLOSE, ERROR, RESIZE, STDERR, STDIN, STDOUT, SUPPORTED_PROTOCOLS, decodeFrame, encodeClose, encodeFrame, supportsClose,
} from "../apimachinery/remotecommand/protocol.ts";
import type { Clock, Timer } from "../utils/clock.ts";

export interface Target {
  namespace: string;
  pod: string;
  container?: string;
  /** attach (default) joins the container's own terminal; exec starts `command` on a new one. */
  mode: "attach" | "exec";
  command: string[];
}

export interface Upstream {
  url: string;
  caPem?: string;
  token: string;
}

/** Sees the session as it passes (the recording): output, keystrokes and resizes. */
export interface Tap {
  output(channel: number, payload: Uint8Array): void;
  input(payload: Uint8Array): void;
  resize(cols: number, rows: number): void;
}

export interface RelayHooks {
  tap?: Tap;
  /** Merged into the `connected` message (e.g. how the session is recorded). */
  connected?: Record<string, unknown>;
}

export interface RelayLimits {
  maxMessageBytes: number;
  idleMs: number;
}

/** Close codes sent to the browser (4000-4999 are the application's). */
export const CLOSE_IDLE = 4408;
export const CLOSE_UPSTREAM = 4502;

export function attachURL(base: string, t: Target): string {
  const q = new URLSearchParams({ stdin: "true", stdout: "true", tty: "true" });
  if (t.container) q.set("container", t.container);
  if (t.mode === "exec") for (const c of t.command) q.append("command", c);
  const path = `/api/v1/namespaces/${encodeURIComponent(t.namespace)}/pods/${encodeURIComponent(t.pod)}/${t.mode}`;
  return `${base.replace(/^http/, "ws").replace(/\/$/, "")}${path}?${q}`;
}

function sendJSON(ws: WebSocket, v: unknown): void {
  if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify(v));
}

/** Relays until either side ends; resolves when both sockets are closed. */
export function relay(browser: WebSocket, up: Upstream, target: Target, limits: RelayLimits, clock: Clock, hooks: RelayHooks = {}): Promise<void> {
  const tap = hooks.tap;
  return new Promise((resolve) => {
    const api = new WebSocket(attachURL(up.url, target), [...SUPPORTED_PROTOCOLS], {
      headers: { authorization: `Bearer ${up.token}` },
      ca: up.caPem,
      maxPayload: limits.maxMessageBytes,
      handshakeTimeout: 10_000,
    });
    let idle: Timer | undefined;
    let done = false;
    const finish = (code: number, reason: string) => {
      if (done) return;
      done = true;
      idle?.cancel();
      if (browser.readyState === WebSocket.OPEN || browser.readyState === WebSocket.CONNECTING) browser.close(code, reason.slice(0, 120));
      if (api.readyState === WebSocket.OPEN) {
        if (supportsClose(api.protocol)) api.send(encodeClose(STDIN));
        api.close(1000);
      } else if (api.readyState === WebSocket.CONNECTING) api.terminate();
    };
    const touch = () => {
      idle?.cancel();
      idle = clock.setTimer(limits.idleMs, () => {
        sendJSON(browser, { status: { kind: "Status", apiVersion: "v1", status: "Failure", reason: "Timeout", message: `the terminal was idle for ${limits.idleMs / 1000}s`, code: 408 } });
        finish(CLOSE_IDLE, "idle timeout");
      });
    };
    let closed = 0;
    const onClosed = () => {
      if (++closed === 2) resolve();
    };
    // a protocol error (an oversized or malformed message): ws closes the socket itself (1009, 1002);
    // without a listener the error would end the process
    browser.on("error", () => finish(1000, ""));
    browser.once("close", () => {
      finish(1000, "");
      onClosed();
    });
    api.once("close", () => {
      finish(1000, "session ended");
      onClosed();
    });
    api.on("unexpected-response", (_req, res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on("data", (c: Buffer) => {
        size += c.length;
        if (size <= 64 * 1024) chunks.push(c);
      });
      res.on("end", () => {
        let status: unknown;
        try {
          status = JSON.parse(Buffer.concat(chunks).toString("utf8"));
        } catch {
          status = { kind: "Status", apiVersion: "v1", status: "Failure", message: `the API server answered ${res.statusCode}`, code: res.statusCode };
        }
        sendJSON(browser, { status });
        finish(CLOSE_UPSTREAM, `API server answered ${res.statusCode}`);
        api.terminate();
      });
    });
    api.on("error", (err) => {
      sendJSON(browser, { status: { kind: "Status", apiVersion: "v1", status: "Failure", reason: "ServiceUnavailable", message: `cannot reach the API server: ${err.message}`, code: 503 } });
      finish(CLOSE_UPSTREAM, "API server unreachable");
    });
    api.on("open", () => {
      sendJSON(browser, { connected: { protocol: api.protocol, ...hooks.connected } });
      touch();
    });
    api.on("message", (data: Buffer, isBinary) => {
      if (!isBinary || data.length === 0) return;
      const f = decodeFrame(data);
      if ((f.channel === STDOUT || f.channel === STDERR) && f.payload.length > 0) {
        tap?.output(f.channel, f.payload);
        if (browser.readyState === WebSocket.OPEN) browser.send(f.payload, { binary: true });
      } else if (f.channel === ERROR) {
        try {
          sendJSON(browser, { status: JSON.parse(f.payload.toString("utf8")) });
        } catch {
          /* a malformed status is dropped; the close that follows ends the session */
        }
      } else if (f.channel === CLOSE) {
        /* the server half-closed a stream: nothing to tell the browser */
      }
    });
    browser.on("message", (data: Buffer, isBinary) => {
      if (api.readyState !== WebSocket.OPEN) return;
      touch();
      if (isBinary) {
        api.send(encodeFrame(STDIN, data));
        tap?.input(data);
        return;
      }
      let msg: { resize?: { cols?: unknown; rows?: unknown } };
      try {
        msg = JSON.parse(data.toString("utf8")) as typeof msg;
      } catch {
        return;
      }
      const cols = Number(msg.resize?.cols), rows = Number(msg.resize?.rows);
      if (Number.isInteger(cols) && Number.isInteger(rows) && cols > 0 && rows > 0 && cols <= 1000 && rows <= 1000) {
        api.send(encodeFrame(RESIZE, JSON.stringify({ Width: cols, Height: rows })));
        tap?.resize(cols, rows);
      }
    });
  });
}
