// The HTTPS listener of a single-process server: ALPN offers `h2`, then `http/1.1`, as
// kube-apiserver does (docs/kubernetes-api.md#http2). Both protocols reach the same request handler
// (HTTP/2 through node's compatibility request and response); upgrades (pods/exec, attach,
// port-forward, watch over WebSocket) exist only in HTTP/1.1, whose `upgrade` event goes to the
// upgrade handler. Client certificates are requested and verified against the client CAs as before;
// a connection without one is still accepted (bearer tokens, anonymous). Requests start a few per
// event-loop turn (request-pacing.ts).
import { maxHeaderSize, type IncomingMessage, type ServerResponse } from "node:http";
import { createSecureServer, type Http2SecureServer, type Http2ServerRequest, type Http2ServerResponse, type ServerHttp2Session } from "node:http2";
import type { AddressInfo } from "node:net";
import type { Duplex } from "node:stream";
import type { TLSSocket } from "node:tls";
import { type Connections as RawConnections, trackConnections } from "../../utils/connections.ts";
import { pacedPerTurn } from "./request-pacing.ts";

/** kube-apiserver's `--http2-max-streams-per-connection` when 0: golang's default of 250. */
export const DEFAULT_HTTP2_MAX_STREAMS = 250;
/** The receive window per stream: kube-apiserver's upload buffer per stream (256 KiB, most request bodies fit whole). */
const STREAM_WINDOW_BYTES = 256 * 1024;
/**
 * The session's receive window (node's default is 64 KiB): sixteen streams' windows. kube-apiserver
 * allows every stream's (64 MiB at 250 streams); a peer may make the server hold this much unread.
 */
const SESSION_WINDOW_BYTES = 16 * STREAM_WINDOW_BYTES;
/** An HTTP/2 session without an open stream for this long is closed (GOAWAY), as kube-apiserver's IdleTimeout. */
const HTTP2_IDLE_MS = 90_000;
/** An HTTP/1.1 connection is kept open this long after its last response (node's https default, as before). */
const HTTP1_KEEP_ALIVE_MS = 5000;

export interface ServingOptions {
  tls: { key: string; cert: string; ca: string[] };
  /** Streams one HTTP/2 session may have open at once; 0 or undefined: DEFAULT_HTTP2_MAX_STREAMS. */
  maxStreams?: number;
  /** An HTTP/2 session without a stream for this long is closed; default HTTP2_IDLE_MS (tests shorten it). */
  idleMs?: number;
  request(req: IncomingMessage, res: ServerResponse): void;
  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void;
  tlsClientError(err: Error): void;
}

export interface Listener {
  port: number;
  /** Stops taking connections and drains the open ones (up to drainMs), then cuts the rest. */
  close(drainMs: number): Promise<void>;
}

/** The HTTP/2 settings the server announces. */
export function http2Settings(maxStreams = DEFAULT_HTTP2_MAX_STREAMS) {
  return {
    maxConcurrentStreams: maxStreams,
    initialWindowSize: STREAM_WINDOW_BYTES,
    // The same bound as an HTTP/1.1 request head (node's --max-http-header-size, 16 KiB).
    maxHeaderListSize: maxHeaderSize,
    enablePush: false,
  };
}

/** Sessions and connections of the server, so close() can drain and then cut them. */
class Connections {
  private readonly sockets = new Set<TLSSocket>();
  /** Open sessions and when each last had no stream open (0: a stream is open). */
  private readonly sessions = new Map<ServerHttp2Session, { open: number; idleSince: number }>();
  private readonly sweep: NodeJS.Timeout;
  /** Also the connections still in their TLS handshake. */
  private readonly raw: RawConnections;

  constructor(server: Http2SecureServer, windowBytes: number, idleMs: number) {
    this.raw = trackConnections(server);
    server.on("secureConnection", (socket: TLSSocket) => {
      this.sockets.add(socket);
      socket.once("close", () => this.sockets.delete(socket));
    });
    server.on("session", (session: ServerHttp2Session) => this.addSession(session, windowBytes));
    this.sweep = setInterval(() => this.closeIdle(Date.now() - idleMs), idleMs / 3).unref();
  }

  private addSession(session: ServerHttp2Session, windowBytes: number): void {
    const state = { open: 0, idleSince: Date.now() };
    this.sessions.set(session, state);
    session.once("close", () => this.sessions.delete(session));
    session.on("error", () => {});
    session.on("stream", (stream: Duplex) => {
      state.open++;
      stream.once("close", () => {
        if (--state.open === 0) state.idleSince = Date.now();
      });
    });
    const widen = () => {
      if (!session.destroyed) session.setLocalWindowSize(windowBytes);
    };
    if (session.connecting) session.once("connect", widen);
    else widen();
  }

  /** GOAWAY to every session without a stream since `before`. */
  closeIdle(before: number): void {
    for (const [session, s] of this.sessions) if (s.open === 0 && s.idleSince <= before) session.close();
  }

  /** No new streams on any session; running ones finish. */
  closeSessions(): void {
    for (const session of this.sessions.keys()) session.close();
  }

  get size(): number {
    return this.sockets.size;
  }

  destroyAll(): void {
    for (const session of this.sessions.keys()) session.destroy();
    for (const socket of this.sockets) socket.destroy();
    this.raw.destroyAll();
  }

  stop(): void {
    clearInterval(this.sweep);
  }
}

/** Listens on host:port with HTTP/2 and HTTP/1.1 over TLS. */
export function listenSecure(o: ServingOptions, port: number, host: string): Promise<Listener> {
  const maxStreams = o.maxStreams || DEFAULT_HTTP2_MAX_STREAMS;
  const server = createSecureServer(
    {
      key: o.tls.key,
      cert: o.tls.cert,
      ca: o.tls.ca,
      requestCert: true,
      rejectUnauthorized: false,
      allowHTTP1: true,
      settings: http2Settings(maxStreams),
    },
    // One handler for both protocols: it reads what the two request and response kinds share.
    pacedPerTurn((req: IncomingMessage | Http2ServerRequest, res: ServerResponse | Http2ServerResponse) => o.request(req as IncomingMessage, res as ServerResponse)),
  );
  // Read by node's HTTP/1.1 connection handling, which the http2 server does not set.
  (server as unknown as { keepAliveTimeout: number }).keepAliveTimeout = HTTP1_KEEP_ALIVE_MS;
  server.on("upgrade", (req: IncomingMessage, socket: Duplex, head: Buffer) => o.upgrade(req, socket, head));
  server.on("tlsClientError", (err: Error) => o.tlsClientError(err));
  const connections = new Connections(server, SESSION_WINDOW_BYTES, o.idleMs ?? HTTP2_IDLE_MS);
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve({ port: (server.address() as AddressInfo).port, close: (drainMs) => closeServer(server, connections, drainMs) });
    });
  });
}

async function closeServer(server: Http2SecureServer, connections: Connections, drainMs: number): Promise<void> {
  let done = false;
  const closed = new Promise<void>((resolve) => server.close(() => resolve())).then(() => {
    done = true;
  });
  connections.closeSessions();
  const deadline = Date.now() + drainMs;
  while (!done && connections.size > 0 && Date.now() < deadline) {
    // HTTP/1.1 connections between requests (node defines it for allowHTTP1; its types do not).
    (server as unknown as { closeIdleConnections(): void }).closeIdleConnections();
    await Promise.race([closed, new Promise((r) => setTimeout(r, 25))]);
  }
  if (!done) connections.destroyAll();
  connections.stop();
  await closed;
}
