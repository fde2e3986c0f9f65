// The vpn-shoot-client's health process in its namespace (docs/reversed-vpn.md#vpn-shoot-client-health):
// asks each OpenVPN client's management socket for its `state` every 2 s (over a connection kept open) and
// serves /healthz, /readyz and /metrics on 8080 of its node-network address, the target of the tunnel check.
import { type IncomingMessage, type Server, type ServerResponse, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { Gauge, Registry } from "prom-client";
import { type Clock, type Timer, realClock } from "../utils/clock.ts";
import { ManagementConnection } from "./management.ts";
import { listen } from "./pipe.ts";

export interface ManagedClient {
  /** The server the tunnel goes to: `vpn-seed-server`, or `vpn-seed-server-0` / `-1`. */
  server: string;
  management: string;
}

export interface ShootHealthOptions {
  clients: readonly ManagedClient[];
  listenAddress: string;
  port?: number;
  pollMs?: number;
  statusTimeoutMs?: number;
  clock?: Clock;
}

interface ClientState {
  connection?: ManagementConnection;
  state?: string;
  error?: string;
}

export class ShootHealth {
  readonly registry = new Registry();
  private readonly http: Server;
  private readonly states = new Map<string, ClientState>();
  private readonly clock: Clock;
  private timer: Timer | undefined;
  private polling: Promise<void> = Promise.resolve();
  private closed = false;

  constructor(private readonly o: ShootHealthOptions) {
    this.clock = o.clock ?? realClock;
    for (const c of o.clients) this.states.set(c.server, {});
    const states = this.states;
    new Gauge({
      name: "vpn_tunnel_up",
      help: "1 while the client's tunnel is CONNECTED.",
      labelNames: ["server"],
      registers: [this.registry],
      collect() {
        for (const [server, st] of states) this.set({ server }, st.state === "CONNECTED" ? 1 : 0);
      },
    });
    this.http = createServer((req, res) => void this.serve(req, res));
  }

  async start(): Promise<AddressInfo> {
    await this.poll();
    const address = await listen(this.http, this.o.port ?? 8080, this.o.listenAddress);
    this.schedule();
    return address;
  }

  private schedule(): void {
    if (this.closed) return;
    this.timer = this.clock.setTimer(this.o.pollMs ?? 2000, () => {
      this.polling = this.poll().finally(() => this.schedule());
    });
  }

  async poll(): Promise<void> {
    await Promise.all(
      this.o.clients.map(async (c) => {
        const st = this.states.get(c.server)!;
        if (!st.connection || st.connection.closed) {
          st.connection = new ManagementConnection(c.management, (why) => {
            delete st.state;
            st.error = why;
          });
        }
        try {
          st.state = await st.connection.state(this.o.statusTimeoutMs);
          delete st.error;
        } catch (err) {
          delete st.state;
          st.error = (err as Error).message;
        }
      }),
    );
  }

  connected(): string[] {
    return [...this.states].filter(([, st]) => st.state === "CONNECTED").map(([server]) => server);
  }

  private async serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? "").split("?")[0];
    const text = (code: number, body: string) => {
      const text = body + "\n";
      res.writeHead(code, { "Content-Type": "text/plain; charset=utf-8", "Content-Length": Buffer.byteLength(text) });
      res.end(text);
    };
    if (req.method !== "GET" && req.method !== "HEAD") return text(405, "method not allowed");
    if (path === "/healthz") {
      const failing = [...this.states].filter(([, st]) => st.error !== undefined).map(([server, st]) => `openvpn client of ${server}: ${st.error}`);
      return failing.length === 0 ? text(200, "ok") : text(500, failing.join("\n"));
    }
    if (path === "/readyz") {
      const up = this.connected();
      return up.length > 0 ? text(200, `ok: connected to ${up.join(", ")}`) : text(503, "no tunnel is connected");
    }
    if (path === "/metrics") {
      const body = await this.registry.metrics();
      res.writeHead(200, { "Content-Type": this.registry.contentType });
      return void res.end(body);
    }
    text(404, "not found");
  }

  async close(): Promise<void> {
    this.closed = true;
    this.timer?.cancel();
    await this.polling;
    for (const st of this.states.values()) st.connection?.close();
    await new Promise<void>((resolve) => {
      this.http.close(() => resolve());
      this.http.closeAllConnections();
    });
  }
}
