// The vpn-shoot-client's health process in its namespace (docs/reversed-vpn.md#vpn-shoot-client-health):
// asks each OpenVPN client's management socket for its `state` every 2 s (over a connection kept open) and
// serves /healthz, /readyz and /metrics on 8080 of its node-network address, the target of the tunnel check.
import type { AddressInfo } from "node:net";
import { Gauge, Registry } from "prom-client";
import { type Clock, type Timer, realClock } from "../utils/clock.ts";
import { HealthServer } from "./healthserver.ts";
import { ManagementConnection } from "./management.ts";

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
  private readonly http: HealthServer;
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
    this.http = new HealthServer(this);
  }

  async start(): Promise<AddressInfo> {
    await this.poll();
    const address = await this.http.listen(this.o.port ?? 8080, this.o.listenAddress);
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

  /** Failing checks: a client whose management socket does not answer. */
  failingChecks(): string[] {
    return [...this.states].filter(([, st]) => st.error !== undefined).map(([server, st]) => `openvpn client of ${server}: ${st.error}`);
  }

  /** Ready while a tunnel is CONNECTED. */
  readiness(): { ready: boolean; message: string } {
    const up = this.connected();
    return up.length > 0 ? { ready: true, message: `ok: connected to ${up.join(", ")}` } : { ready: false, message: "no tunnel is connected" };
  }

  async close(): Promise<void> {
    this.closed = true;
    this.timer?.cancel();
    await this.polling;
    for (const st of this.states.values()) st.connection?.close();
    await this.http.close();
  }
}
