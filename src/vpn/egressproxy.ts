// vpn-seed-server's egress proxy (docs/reversed-vpn.md#egress-proxy): HTTP CONNECT over mutual TLS on
// 9443. The shoot API server's cluster traffic enters here; the proxy checks the target against the
// shoot's ranges and dials it from the selected tunnel's address.
import type { IncomingMessage } from "node:http";
import { type Server, createServer } from "node:https";
import { type AddressInfo, type Socket, connect } from "node:net";
import type { Duplex } from "node:stream";
import type { TLSSocket } from "node:tls";
import { X509Certificate, randomBytes } from "node:crypto";
import { pino, type Logger } from "pino";
import { Counter, Gauge, Registry } from "prom-client";
import { type Clock, type Timer, realClock } from "../utils/clock.ts";
import { type Connections, trackConnections } from "../utils/connections.ts";
import { type TargetPolicy } from "./egresstarget.ts";
import { ESTABLISHED, refusal } from "./head.ts";
import { listen, splice } from "./pipe.ts";
import type { TunnelSet } from "./tunnels.ts";

export const EGRESS_PORT = 9443;
export const EGRESS_CLIENT_CN = "kube-apiserver-http-proxy-client";
export const UPSTREAM_TIMEOUT_MS = 20_000;
export const MAX_STREAMS = 8192;
const HEAD_LIMIT_BYTES = 8 * 1024;
const HEAD_TIMEOUT_MS = 10_000;
const HANDSHAKE_TIMEOUT_MS = 10_000;
const CLIENT_AUTH_OID = "1.3.6.1.5.5.7.3.2";

export interface EgressCredentials {
  /** The vpn-seed-server certificate and key. */
  certPem: string;
  keyPem: string;
  /** CA bundle that client certificates must chain to (the current CA, plus the old one during rotation). */
  caBundlePem: string;
}

export interface EgressProxyOptions {
  credentials: EgressCredentials;
  policy: TargetPolicy;
  tunnels: TunnelSet;
  clock?: Clock;
  log?: Logger;
  registry?: Registry;
  maxStreams?: number;
  upstreamTimeoutMs?: number;
}

/** Whether a verified client certificate is the API server's: CN and EKU clientAuth (chain and validity are TLS's job). */
export function isEgressClient(certDer: Buffer | undefined): boolean {
  if (!certDer || certDer.length === 0) return false;
  try {
    const cert = new X509Certificate(certDer);
    const cn = /(?:^|\n)CN=([^\n]*)/.exec(cert.subject)?.[1];
    return cn === EGRESS_CLIENT_CN && (cert.keyUsage ?? []).includes(CLIENT_AUTH_OID);
  } catch {
    return false;
  }
}

export class EgressProxy {
  readonly registry: Registry;
  private readonly server: Server;
  private readonly clock: Clock;
  private readonly log: Logger;
  private readonly streams = new Map<Socket, string>();
  private readonly connections: Connections;
  private readonly headTimers = new WeakMap<Socket, Timer>();
  private dialling = 0;
  private readonly requests: Counter<"result">;
  private readonly tlsFailures: Counter;
  private readonly unsubscribe: () => void;

  constructor(private readonly opts: EgressProxyOptions) {
    this.clock = opts.clock ?? realClock;
    this.log = opts.log ?? pino({ level: "silent" });
    this.registry = opts.registry ?? new Registry();
    const registers = [this.registry];
    this.requests = new Counter({ name: "vpn_egress_requests_total", help: "Egress CONNECT requests by result.", labelNames: ["result"], registers });
    this.tlsFailures = new Counter({ name: "vpn_egress_tls_failures_total", help: "Failed or refused TLS handshakes.", registers });
    const streams = this.streams;
    const tunnels = opts.tunnels;
    new Gauge({
      name: "vpn_egress_streams",
      help: "Open streams by tunnel.",
      labelNames: ["server"],
      registers,
      collect() {
        for (const t of tunnels.all()) this.set({ server: t.server }, [...streams.values()].filter((s) => s === t.server).length);
      },
    });
    new Gauge({
      name: "vpn_egress_tunnel_selected",
      help: "1 for the tunnel new streams use.",
      labelNames: ["server"],
      registers,
      collect() {
        const sel = tunnels.selected()?.server;
        for (const t of tunnels.all()) this.set({ server: t.server }, t.server === sel ? 1 : 0);
      },
    });
    new Counter({
      name: "vpn_egress_failovers_total",
      help: "Switches of the selected tunnel because it went down.",
      registers,
      collect() {
        this.reset();
        this.inc(tunnels.failovers);
      },
    });
    // Node's HTTP server reads the request head (its 'connect' event hands over the socket and the bytes
    // after the head); the head's time limit is ours, on the injected clock.
    this.server = createServer({
      ...this.secureOptions(opts.credentials),
      requestCert: true,
      rejectUnauthorized: true,
      minVersion: "TLSv1.2",
      handshakeTimeout: HANDSHAKE_TIMEOUT_MS,
      allowHalfOpen: true,
      maxHeaderSize: HEAD_LIMIT_BYTES,
      requireHostHeader: false,
      requestTimeout: 0,
      headersTimeout: 0,
    });
    this.connections = trackConnections(this.server);
    this.server.on("secureConnection", (s: TLSSocket) => this.admit(s));
    this.server.on("tlsClientError", (_err, s) => {
      this.tlsFailures.inc();
      s.destroy();
    });
    this.server.on("connect", (req: IncomingMessage, s: Duplex, rest: Buffer) => void this.handle(req, s as TLSSocket, rest));
    this.server.on("request", (req: IncomingMessage) => {
      const s = req.socket as TLSSocket;
      this.headRead(s);
      this.refuse(s, 405, "Method Not Allowed", "method_not_allowed", `method ${(req.method ?? "").slice(0, 16)} is not allowed`);
    });
    this.server.on("clientError", (err: NodeJS.ErrnoException, s: Duplex) => {
      const socket = s as TLSSocket;
      this.headRead(socket);
      if (!socket.writable) return void socket.destroy();
      this.refuse(socket, 400, "Bad Request", "bad_request", err.code === "HPE_HEADER_OVERFLOW" ? "request head too large" : "malformed request");
    });
    this.unsubscribe = opts.tunnels.onDown((server) => {
      for (const [s, via] of this.streams) if (via === server) s.destroy();
    });
  }

  /** A handshake completed: only the API server's certificate may speak HTTP, within the head's time limit. */
  private admit(s: TLSSocket): void {
    s.on("error", () => undefined);
    if (!isEgressClient(s.getPeerX509Certificate()?.raw)) {
      this.tlsFailures.inc();
      return void s.destroy();
    }
    const timer = this.clock.setTimer(HEAD_TIMEOUT_MS, () => s.destroy());
    this.headTimers.set(s, timer);
    s.once("close", () => this.headRead(s));
  }

  private headRead(s: Socket): void {
    this.headTimers.get(s)?.cancel();
    this.headTimers.delete(s);
  }

  private secureOptions(c: EgressCredentials) {
    return { cert: c.certPem, key: c.keyPem, ca: c.caBundlePem };
  }

  /**
   * Changed Secrets: new handshakes use them, open streams continue. Throws (and keeps the current ones) when they
   * do not load, e.g. a certificate beside another certificate's key. New session ticket keys, so no session of
   * a client certificate the new bundle no longer trusts is resumed.
   */
  reload(credentials: EgressCredentials): void {
    this.server.setSecureContext(this.secureOptions(credentials));
    this.server.setTicketKeys(randomBytes(48));
  }

  listen(port: number, host: string): Promise<AddressInfo> {
    return listen(this.server, port, host);
  }

  listening(): boolean {
    return this.server.listening;
  }

  async close(): Promise<void> {
    this.unsubscribe();
    for (const s of this.streams.keys()) s.destroy();
    // Connections that have not sent their CONNECT yet go too (their head timeout runs on the proxy's clock),
    // and those still in their handshake (which would otherwise hold close() until the handshake timeout).
    await this.connections.close();
  }

  private refuse(socket: TLSSocket, code: number, reason: string, result: string, message: string): void {
    this.requests.inc({ result });
    this.log.info({ remote: socket.remoteAddress, reason: message }, "egress CONNECT refused");
    socket.end(refusal(code, reason, message), () => socket.destroy());
  }

  private async handle(req: IncomingMessage, client: TLSSocket, rest: Buffer): Promise<void> {
    this.headRead(client);
    if (req.httpVersion !== "1.0" && req.httpVersion !== "1.1") return this.refuse(client, 400, "Bad Request", "bad_request", "malformed request");
    const target = this.opts.policy.decide(req.url ?? "");
    if (!target.ok) {
      return target.code === 400
        ? this.refuse(client, 400, "Bad Request", "bad_request", target.message)
        : this.refuse(client, 403, "Forbidden", "forbidden", target.message);
    }
    if (this.streams.size + this.dialling >= (this.opts.maxStreams ?? MAX_STREAMS)) {
      return this.refuse(client, 503, "Service Unavailable", "overloaded", "too many concurrent streams");
    }
    const tunnel = this.opts.tunnels.selected();
    if (!tunnel) return this.refuse(client, 503, "Service Unavailable", "no_tunnel", "no tunnel to the shoot is up");
    this.dialling++;
    const dialled = await this.dial(target.host, target.port, tunnel.address);
    this.dialling--;
    if (!("socket" in dialled)) {
      return dialled.timeout
        ? this.refuse(client, 504, "Gateway Timeout", "timeout", `no connection to ${target.host}:${target.port} within ${(this.opts.upstreamTimeoutMs ?? UPSTREAM_TIMEOUT_MS) / 1000}s`)
        : this.refuse(client, 502, "Bad Gateway", "bad_gateway", `${target.host}:${target.port}: ${dialled.error}`);
    }
    const upstream = dialled.socket;
    if (client.destroyed || !this.opts.tunnels.isUp(tunnel.server)) {
      upstream.destroy();
      if (!client.destroyed) this.refuse(client, 503, "Service Unavailable", "no_tunnel", "the tunnel went down while connecting");
      return;
    }
    this.requests.inc({ result: "established" });
    client.write(ESTABLISHED);
    if (rest.length > 0) upstream.write(rest);
    this.streams.set(client, tunnel.server);
    await splice(client, upstream);
    this.streams.delete(client);
  }

  private dial(host: string, port: number, localAddress: string): Promise<{ socket: Socket } | { timeout: boolean; error?: string }> {
    return new Promise((resolve) => {
      const s = connect({ host, port, localAddress, allowHalfOpen: true, keepAlive: true, noDelay: true });
      const timer = this.clock.setTimer(this.opts.upstreamTimeoutMs ?? UPSTREAM_TIMEOUT_MS, () => {
        s.destroy();
        resolve({ timeout: true });
      });
      s.once("connect", () => {
        timer.cancel();
        s.pause();
        resolve({ socket: s });
      });
      s.once("error", (err: NodeJS.ErrnoException) => {
        timer.cancel();
        resolve({ timeout: false, error: err.code ?? "connection failed" });
      });
    });
  }
}
