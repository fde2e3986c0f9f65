// The seed CONNECT proxy (docs/reversed-vpn.md#seed-connect-proxy): plain HTTP on the seed's public
// address, port 8132. It routes a CONNECT by its Reversed-VPN header to a known vpn-seed-server's
// OpenVPN port and refuses everything else. The target in the request line is never dialled.
import { type AddressInfo, type Server, type Socket, connect, createServer } from "node:net";
import { pino, type Logger } from "pino";
import { Counter, Gauge, Registry } from "prom-client";
import { type Clock, realClock } from "../utils/clock.ts";
import { ESTABLISHED, headerValues, readHead, refusal } from "./head.ts";
import { listen, splice } from "./pipe.ts";
import { type ServerDirectory, VPN_PORT } from "./servers.ts";

export const REVERSED_VPN_HEADER = "Reversed-VPN";
/** Anchored: `outbound|1194||<vpn-seed-server[-0..4]>.<namespace>.svc.cluster.local`. */
export const REVERSED_VPN_PATTERN = /^outbound\|1194\|\|(vpn-seed-server(?:-[0-4])?)\.([a-z0-9](?:[-a-z0-9]{0,61}[a-z0-9])?)\.svc\.cluster\.local$/;

export const HEAD_LIMIT_BYTES = 8 * 1024;
export const HEAD_TIMEOUT_MS = 10_000;
export const DIAL_TIMEOUT_MS = 5_000;
/** Concurrent connections (tunnels and heads being read); beyond it new connections are closed at once. */
export const DEFAULT_MAX_CONNECTIONS = 4096;

export interface ConnectProxyOptions {
  directory: ServerDirectory;
  clock?: Clock;
  log?: Logger;
  registry?: Registry;
  maxConnections?: number;
  headTimeoutMs?: number;
  dialTimeoutMs?: number;
  /** The servers' OpenVPN port; 1194 except in tests that cannot bind it. */
  upstreamPort?: number;
}

interface Tunnel {
  namespace: string;
  name: string;
  address: string;
  client: Socket;
  upstream: Socket;
}

/** Which server a header value names, or why it is refused. */
export function parseReversedVpn(value: string): { namespace: string; name: string } | undefined {
  const m = REVERSED_VPN_PATTERN.exec(value);
  return m ? { name: m[1]!, namespace: m[2]! } : undefined;
}

export class ConnectProxy {
  readonly registry: Registry;
  private readonly server: Server;
  private readonly clock: Clock;
  private readonly log: Logger;
  private readonly tunnels = new Set<Tunnel>();
  private readonly requests: Counter<"result">;
  private readonly tunnelGauge: Gauge<"namespace">;
  private readonly bytes: Counter<"direction">;
  private readonly unsubscribe: () => void;

  constructor(private readonly opts: ConnectProxyOptions) {
    this.clock = opts.clock ?? realClock;
    this.log = opts.log ?? pino({ level: "silent" });
    this.registry = opts.registry ?? new Registry();
    const registers = [this.registry];
    this.requests = new Counter({ name: "vpn_connect_requests_total", help: "CONNECT requests by result.", labelNames: ["result"], registers });
    this.tunnelGauge = new Gauge({ name: "vpn_connect_tunnels", help: "Open tunnels by control-plane namespace.", labelNames: ["namespace"], registers });
    this.bytes = new Counter({ name: "vpn_connect_bytes_total", help: "Bytes copied by direction.", labelNames: ["direction"], registers });
    this.server = createServer({ allowHalfOpen: true, pauseOnConnect: true, keepAlive: true }, (s) => void this.handle(s));
    this.server.maxConnections = opts.maxConnections ?? DEFAULT_MAX_CONNECTIONS;
    this.unsubscribe = opts.directory.onChange((ns, name) => this.closeStale(ns, name));
  }

  listen(port: number, host: string): Promise<AddressInfo> {
    return listen(this.server, port, host);
  }

  listening(): boolean {
    return this.server.listening;
  }

  async close(): Promise<void> {
    this.unsubscribe();
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    for (const t of this.tunnels) t.client.destroy();
    await closed;
  }

  private refuse(socket: Socket, code: number, reason: string, result: string, why: string, header?: string): void {
    this.requests.inc({ result });
    this.log.info({ remote: socket.remoteAddress, reason: why, header: header?.slice(0, 256) }, "CONNECT refused");
    socket.end(refusal(code, reason), () => socket.destroy());
  }

  private async handle(client: Socket): Promise<void> {
    client.on("error", () => undefined);
    const read = await readHead(client, this.clock, HEAD_LIMIT_BYTES, this.opts.headTimeoutMs ?? HEAD_TIMEOUT_MS);
    if (!read.ok) {
      if (read.reason === "timeout" || read.reason === "closed") return void client.destroy();
      return this.refuse(client, 400, "Bad Request", "bad_request", read.reason);
    }
    const head = read.head;
    if (head.method !== "CONNECT") return this.refuse(client, 403, "Forbidden", "forbidden", `method ${head.method.slice(0, 16)}`);
    const values = headerValues(head, REVERSED_VPN_HEADER);
    if (values.length !== 1 || values[0] === "") return this.refuse(client, 403, "Forbidden", "forbidden", values.length > 1 ? "repeated header" : "missing header");
    const value = values[0]!;
    const named = parseReversedVpn(value);
    if (!named) return this.refuse(client, 403, "Forbidden", "forbidden", "header does not match", value);
    const server = this.opts.directory.lookup(named.namespace, named.name);
    if (!server) return this.refuse(client, 403, "Forbidden", "forbidden", "unknown server", value);
    if (!server.address) return this.refuse(client, 503, "Service Unavailable", "unavailable", "server has no address", value);
    const upstream = await this.dial(server.address);
    if (!upstream) return this.refuse(client, 503, "Service Unavailable", "unavailable", "server unreachable", value);
    if (client.destroyed || this.opts.directory.lookup(named.namespace, named.name)?.address !== server.address) {
      upstream.destroy();
      if (!client.destroyed) this.refuse(client, 503, "Service Unavailable", "unavailable", "server changed while dialling", value);
      return;
    }
    this.requests.inc({ result: "established" });
    client.write(ESTABLISHED);
    if (head.rest.length > 0) upstream.write(head.rest);
    const tunnel: Tunnel = { ...named, address: server.address, client, upstream };
    this.tunnels.add(tunnel);
    this.tunnelGauge.inc({ namespace: named.namespace });
    const started = this.clock.nowMs();
    this.log.info({ remote: client.remoteAddress, target: head.target.slice(0, 256), server: `${named.name}.${named.namespace}` }, "tunnel established");
    await splice(client, upstream, {
      aToB: (n) => this.bytes.inc({ direction: "to_server" }, n),
      bToA: (n) => this.bytes.inc({ direction: "to_client" }, n),
    });
    this.tunnels.delete(tunnel);
    this.tunnelGauge.dec({ namespace: named.namespace });
    this.log.info({ remote: client.remoteAddress, server: `${named.name}.${named.namespace}`, durationMs: this.clock.nowMs() - started }, "tunnel closed");
  }

  private dial(address: string): Promise<Socket | undefined> {
    return new Promise((resolve) => {
      const s = connect({ host: address, port: this.opts.upstreamPort ?? VPN_PORT, allowHalfOpen: true, keepAlive: true });
      const timer = this.clock.setTimer(this.opts.dialTimeoutMs ?? DIAL_TIMEOUT_MS, () => {
        s.destroy();
        resolve(undefined);
      });
      s.once("connect", () => {
        timer.cancel();
        s.pause();
        resolve(s);
      });
      s.once("error", () => {
        timer.cancel();
        resolve(undefined);
      });
    });
  }

  /** Tunnels to a server that disappeared or moved are closed; others are untouched. */
  private closeStale(namespace: string, name: string): void {
    const now = this.opts.directory.lookup(namespace, name);
    for (const t of this.tunnels) {
      if (t.namespace === namespace && t.name === name && t.address !== now?.address) t.client.destroy();
    }
  }
}
