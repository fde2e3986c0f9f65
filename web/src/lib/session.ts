// One terminal pane's session (docs/dashboard.md#terminal-panes): `create` -> `fetch` -> attach over
// a WebSocket; heartbeat while the pane is open; keepalive pings and the forced resize once the
// dashboard says `connected`; reconnect with backoff on a dropped socket (a refusal `Status` is shown
// instead); `remove` on close. The socket, the API and
// the timers are injected, so the state machine runs under node's test runner without a browser.
import { KEEPALIVE, type Status, attachUrl, keys, parseMessage, reconnectDelayMs, resizeMessage, subprotocols } from "./protocol.ts";

export const DISCONNECTED = 0;
export const CREATING = 1;
export const FETCHING = 2;
export const CONNECTING = 3;
export const CONNECTED = 4;
export const STATE_TEXT = ["Disconnected", "Preparing", "Preparing", "Connecting", "Connected"] as const;

export interface Timers {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
  setInterval(fn: () => void, ms: number): unknown;
  clearInterval(handle: unknown): void;
}

/** The part of a browser WebSocket the session uses. */
export interface SocketLike {
  binaryType: string;
  readyState: number;
  onopen: ((ev: unknown) => void) | null;
  onmessage: ((ev: { data: unknown }) => void) | null;
  onclose: ((ev: { code: number; reason: string }) => void) | null;
  onerror: ((ev: unknown) => void) | null;
  send(data: Uint8Array | string): void;
  close(code?: number, reason?: string): void;
}

/** `POST /api/terminals` as the user; rejects with an Error whose message is the server's. */
export type TerminalsCall = (method: string, params: Record<string, unknown>) => Promise<Record<string, unknown>>;

export interface Coordinate {
  namespace: string;
  name?: string;
  target: "garden" | "shoot" | "cp";
}

export interface SessionOptions {
  call: TerminalsCall;
  openSocket(url: string, protocols: string[]): SocketLike;
  timers: Timers;
  /** The user's bearer token (sent as a subprotocol). */
  token(): string;
  /** The dashboard's origin, e.g. `https://127.0.0.1:8443`. */
  origin: string;
  coordinate: Coordinate;
  identifier: string;
  /** Extra `create` params: container, preferredHost, node, hostPID, hostNetwork. */
  params?: Record<string, unknown>;
  /** The terminal's size now. */
  size(): { cols: number; rows: number };
  /** Output for the screen. */
  write(data: Uint8Array): void;
  /** State changes; `message` with DISCONNECTED says why (the server's message where there is one). */
  onState(state: number, message?: string): void;
  heartbeatMs?: number;
  pingMs?: number;
  maxTries?: number;
  log?(message: string): void;
}

const OPEN = 1;

export class TerminalSession {
  state = DISCONNECTED;
  /** The Terminal this pane uses, once `create` answered. */
  terminal: { name: string; namespace: string } | undefined;
  /** How the dashboard records the session (from its `connected` message). */
  recording: { id?: string; input?: boolean } | undefined;
  private socket: SocketLike | undefined;
  /** The last failure Status of the current socket: a refusal is shown, not retried. */
  private refusal: Status | undefined;
  private tries = 0;
  private cancelled = false;
  private hadOutput = false;
  private heartbeat: unknown;
  private ping: unknown;
  private forced: unknown;
  private retry: unknown;
  /** Bumped by every open and close, so answers of an earlier attempt are dropped. */
  private attempt = 0;

  constructor(private readonly o: SessionOptions) {}

  private set(state: number, message?: string): void {
    this.state = state;
    this.o.onState(state, message);
  }

  private log(message: string): void {
    this.o.log?.(message);
  }

  /** create -> fetch -> attach. Also what the status bar's Reconnect runs. */
  async open(): Promise<void> {
    const attempt = ++this.attempt;
    this.cancelled = false;
    this.tries = 0;
    this.stopTimers();
    this.set(CREATING);
    try {
      const created = await this.o.call("create", { ...this.o.params, coordinate: this.o.coordinate, identifier: this.o.identifier });
      if (attempt !== this.attempt) return;
      const meta = (created.metadata ?? {}) as { name?: string; namespace?: string };
      this.terminal = { name: meta.name ?? "", namespace: meta.namespace ?? this.o.coordinate.namespace };
      this.startHeartbeat();
      await this.fetchAndAttach(attempt, false);
    } catch (err) {
      this.fail(attempt, err);
    }
  }

  private fail(attempt: number, err: unknown): void {
    if (attempt !== this.attempt || this.cancelled) return;
    this.stopTimers();
    this.set(DISCONNECTED, `Could not connect to terminal: ${(err as Error).message}`);
  }

  private startHeartbeat(): void {
    if (this.heartbeat !== undefined) return;
    this.heartbeat = this.o.timers.setInterval(() => {
      if (!this.terminal) return;
      this.o.call("heartbeat", { ...this.terminal }).catch((err: unknown) => this.log(`heartbeat failed: ${(err as Error).message}`));
    }, this.o.heartbeatMs ?? 60_000);
  }

  private async fetchAndAttach(attempt: number, keepScreen: boolean): Promise<void> {
    if (!this.terminal) return;
    this.set(FETCHING);
    await this.o.call("fetch", { ...this.terminal });
    if (attempt !== this.attempt || this.cancelled) return;
    this.attach(attempt, keepScreen);
  }

  private attach(attempt: number, keepScreen: boolean): void {
    const t = this.terminal!;
    this.set(CONNECTING);
    const ws = this.o.openSocket(attachUrl(this.o.origin, t.namespace, t.name), subprotocols(this.o.token()));
    ws.binaryType = "arraybuffer";
    this.socket = ws;
    this.hadOutput = keepScreen;
    this.refusal = undefined;
    ws.onopen = () => undefined;
    ws.onmessage = (ev) => {
      if (attempt !== this.attempt) return;
      const msg = parseMessage(ev.data);
      if (msg.kind === "output") {
        this.hadOutput = true;
        this.o.write(msg.data);
      } else if (msg.kind === "connected") {
        this.tries = 0;
        this.recording = msg.recording;
        this.set(CONNECTED);
        this.ping = this.o.timers.setInterval(() => this.sendRaw(KEEPALIVE), this.o.pingMs ?? 30_000);
        this.forceResize();
      } else if (msg.kind === "status" && msg.status.status !== "Success") {
        this.refusal = msg.status;
        this.log(`terminal status: ${msg.status.message ?? msg.status.status ?? ""}`);
      }
    };
    ws.onerror = () => undefined;
    ws.onclose = (ev) => this.closed(attempt, ev.code, ev.reason, this.state === CONNECTED);
  }

  /** Every 200 ms, at most 5 times until the first output: rows-1, then rows, so the shell draws its prompt. */
  private forceResize(): void {
    let n = 0;
    const tick = () => {
      if (this.hadOutput || n >= 5 || this.state !== CONNECTED) return;
      n++;
      const { cols, rows } = this.o.size();
      this.sendRaw(resizeMessage(cols, Math.max(1, rows - 1)));
      this.sendRaw(resizeMessage(cols, rows));
      this.forced = this.o.timers.setTimeout(tick, 200);
    };
    tick();
  }

  private closed(attempt: number, code: number, reason: string, wasConnected: boolean): void {
    if (attempt !== this.attempt) return;
    this.o.timers.clearInterval(this.ping);
    this.o.timers.clearTimeout(this.forced);
    this.ping = this.forced = undefined;
    this.socket = undefined;
    if (this.cancelled) return this.set(DISCONNECTED);
    if (this.refusal) {
      this.stopTimers();
      return this.set(DISCONNECTED, this.refusal.message || this.refusal.reason || "Terminal connection lost");
    }
    if (code === 1000) {
      this.stopTimers();
      return this.set(DISCONNECTED, reason ? `Terminal connection lost: ${reason}` : "Terminal connection lost");
    }
    this.tries++;
    if (this.tries >= (this.o.maxTries ?? 20)) {
      this.stopTimers();
      return this.set(DISCONNECTED, "Could not connect to terminal");
    }
    this.set(CONNECTING);
    this.retry = this.o.timers.setTimeout(() => {
      this.retry = undefined;
      this.fetchAndAttach(attempt, wasConnected).catch((err: unknown) => this.fail(attempt, err));
    }, reconnectDelayMs(this.tries, wasConnected));
  }

  private sendRaw(data: Uint8Array | string): void {
    if (this.socket?.readyState === OPEN) this.socket.send(data);
  }

  /** Keystrokes from the terminal. */
  input(data: string): void {
    if (this.state === CONNECTED) this.sendRaw(keys(data));
  }

  /** The terminal's new size (fit addon): sent as a channel 4 message while connected. */
  resize(cols: number, rows: number): void {
    if (this.state === CONNECTED) this.sendRaw(resizeMessage(cols, rows));
  }

  private stopTimers(): void {
    const t = this.o.timers;
    t.clearInterval(this.heartbeat);
    t.clearInterval(this.ping);
    t.clearTimeout(this.forced);
    t.clearTimeout(this.retry);
    this.heartbeat = this.ping = this.forced = this.retry = undefined;
  }

  /** Closes the pane: no more heartbeats or reconnects, the socket closed, the Terminal removed. */
  async close(): Promise<void> {
    this.cancelled = true;
    this.attempt++;
    this.stopTimers();
    const ws = this.socket;
    this.socket = undefined;
    ws?.close(1000);
    this.set(DISCONNECTED);
    if (this.terminal) await this.o.call("remove", { ...this.terminal }).catch((err: unknown) => this.log(`remove failed: ${(err as Error).message}`));
  }
}
