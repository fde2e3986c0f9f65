// The vpn-seed-server process inside the control plane's VPN namespace (docs/reversed-vpn.md#health):
// polls each OpenVPN server's management socket (`status 2`, every 2 s, every 250 ms while no tunnel is up, over
// a connection kept open, whose end marks the tunnel down at once), feeds the tunnel set of the egress proxy (9443) and serves /healthz,
// /readyz and /metrics (15000); with credentialFiles each poll reads the egress proxy's credential files again and
// reloads changed ones in place.
import type { AddressInfo } from "node:net";
import { pino, type Logger } from "pino";
import { Counter, Gauge, Registry, collectDefaultMetrics } from "prom-client";
import { type Clock, type Timer, realClock } from "../utils/clock.ts";
import { EgressProxy, type EgressCredentials } from "./egressproxy.ts";
import { ALWAYS_DENIED, TargetPolicy } from "./egresstarget.ts";
import { HealthServer } from "./healthserver.ts";
import { ManagementConnection, type ServerStatus } from "./management.ts";
import { TunnelSet } from "./tunnels.ts";
import { type CredentialFiles, readCredentialFiles } from "./credential-files.ts";

export const HEALTH_POLL_MS = 2000;
/**
 * The poll while no tunnel is up: the egress answers 503 until a poll sees a client (OpenVPN tells connects only
 * to a management client that authorizes them), so a returning tunnel is used within this long, not 2 s.
 */
export const DOWN_POLL_MS = 250;

/** The next poll: HEALTH_POLL_MS (or the configured one) while a tunnel is up, else at most DOWN_POLL_MS. */
export function nextPollMs(anyUp: boolean, pollMs = HEALTH_POLL_MS, downPollMs = DOWN_POLL_MS): number {
  return anyUp ? pollMs : Math.min(pollMs, downPollMs);
}

export interface ManagedServer {
  /** `vpn-seed-server`, or `vpn-seed-server-0` / `-1` in HA. */
  name: string;
  tunnelAddress: string;
  /** The server's management socket. */
  management: string;
  /** The client CN whose connection makes the tunnel up. */
  clientCn: string;
}

export interface SeedServerOptions {
  servers: readonly ManagedServer[];
  credentials: EgressCredentials;
  /**
   * Read again on every poll: changed credentials (a renewal, a CA rotation) are taken up in place by the egress
   * proxy (new handshakes use them, open streams continue), with no restart of the process.
   */
  credentialFiles?: CredentialFiles;
  shootCidrs: readonly string[];
  transferNetwork: string;
  listenAddress: string;
  egressPort?: number;
  healthPort?: number;
  pollMs?: number;
  /** The poll while no tunnel is up (default DOWN_POLL_MS). */
  downPollMs?: number;
  statusTimeoutMs?: number;
  upstreamTimeoutMs?: number;
  clock?: Clock;
  log?: Logger;
  /** Default process metrics (off in tests that build several servers in one process). */
  processMetrics?: boolean;
}

interface ServerState {
  /** Kept open: its end marks the tunnel down at once (the server died). */
  connection?: ManagementConnection;
  status?: ServerStatus;
  error?: string;
  connectedSince?: number;
  reconnects: number;
}

export class SeedServer {
  readonly registry = new Registry();
  readonly tunnels: TunnelSet;
  readonly egress: EgressProxy;
  private readonly health: HealthServer;
  private readonly state = new Map<string, ServerState>();
  private readonly clock: Clock;
  private readonly log: Logger;
  private timer: Timer | undefined;
  private polling: Promise<void> = Promise.resolve();
  private closed = false;
  /** What the egress proxy serves now, and the last files that failed to load (not logged again). */
  private credentials: EgressCredentials;
  private failedCredentials: string | undefined;
  private readonly reloads: Counter;

  constructor(private readonly o: SeedServerOptions) {
    this.clock = o.clock ?? realClock;
    this.log = o.log ?? pino({ level: "silent" });
    if (o.processMetrics) collectDefaultMetrics({ register: this.registry });
    for (const s of o.servers) this.state.set(s.name, { reconnects: 0 });
    this.tunnels = new TunnelSet(o.servers.map((s) => ({ server: s.name, address: s.tunnelAddress })));
    this.egress = new EgressProxy({
      credentials: o.credentials,
      policy: new TargetPolicy([...o.shootCidrs], [...ALWAYS_DENIED, o.transferNetwork]),
      tunnels: this.tunnels,
      registry: this.registry,
      clock: this.clock,
      log: this.log,
      ...(o.upstreamTimeoutMs !== undefined ? { upstreamTimeoutMs: o.upstreamTimeoutMs } : {}),
    });
    this.credentials = o.credentials;
    this.reloads = new Counter({ name: "vpn_egress_credential_reloads_total", help: "Changed credential files taken up by the egress proxy (reloaded), or refused (failed).", labelNames: ["result"], registers: [this.registry] });
    this.metrics();
    this.health = new HealthServer(this);
  }

  private metrics(): void {
    const { state, tunnels } = this;
    const registers = [this.registry];
    const each = (fn: (s: ManagedServer, st: ServerState) => number) => this.o.servers.map((s) => [s.name, fn(s, state.get(s.name)!)] as const);
    const client = (s: ManagedServer, st: ServerState) => st.status?.clients.find((c) => c.commonName === s.clientCn);
    new Gauge({ name: "vpn_tunnel_up", help: "1 while the server's client is connected.", labelNames: ["server"], registers, collect() { for (const [n, v] of each((s) => (tunnels.isUp(s.name) ? 1 : 0))) this.set({ server: n }, v); } });
    const counter = (name: string, help: string, fn: (s: ManagedServer, st: ServerState) => number) =>
      new Counter({ name, help, labelNames: ["server"], registers, collect() { this.reset(); for (const [n, v] of each(fn)) this.inc({ server: n }, v); } });
    counter("vpn_tunnel_reconnects_total", "Client connections after the first.", (_s, st) => st.reconnects);
    counter("vpn_tunnel_received_bytes_total", "Bytes received from the client in its current connection.", (s, st) => client(s, st)?.bytesReceived ?? 0);
    counter("vpn_tunnel_sent_bytes_total", "Bytes sent to the client in its current connection.", (s, st) => client(s, st)?.bytesSent ?? 0);
  }

  async start(): Promise<{ egress: AddressInfo; health: AddressInfo }> {
    await this.poll();
    const egress = await this.egress.listen(this.o.egressPort ?? 9443, this.o.listenAddress);
    const health = await this.health.listen(this.o.healthPort ?? 15000, this.o.listenAddress);
    this.schedule();
    return { egress, health };
  }

  private schedule(): void {
    if (this.closed) return;
    const anyUp = this.o.servers.some((s) => this.tunnels.isUp(s.name));
    this.timer = this.clock.setTimer(nextPollMs(anyUp, this.o.pollMs, this.o.downPollMs), () => {
      this.polling = this.poll().finally(() => this.schedule());
    });
  }

  /** Asks every server for its status and updates the tunnels (a server that does not answer is down); reloads changed credentials. */
  async poll(): Promise<void> {
    await Promise.all([this.pollServers(), this.reloadCredentials()]);
  }

  /**
   * The credential files again: when they changed, the egress proxy takes them up in place. Files caught between
   * two writes (a new certificate beside the old key) or unreadable are refused and tried again at the next poll;
   * the proxy keeps serving what it had.
   */
  async reloadCredentials(): Promise<void> {
    if (!this.o.credentialFiles) return;
    let next: EgressCredentials;
    try {
      next = await readCredentialFiles(this.o.credentialFiles);
    } catch (err) {
      return this.reloadFailed(`unreadable: ${(err as Error).message}`, (err as Error).message);
    }
    const key = [next.certPem, next.keyPem, next.caBundlePem].join("\0");
    if (key === [this.credentials.certPem, this.credentials.keyPem, this.credentials.caBundlePem].join("\0")) return;
    try {
      this.egress.reload(next);
    } catch (err) {
      return this.reloadFailed((err as Error).message, key);
    }
    this.credentials = next;
    this.failedCredentials = undefined;
    this.reloads.inc({ result: "reloaded" });
    this.log.info("egress proxy credentials reloaded");
  }

  private reloadFailed(why: string, key: string): void {
    if (this.failedCredentials === key) return;
    this.failedCredentials = key;
    this.reloads.inc({ result: "failed" });
    this.log.warn({ error: why }, "egress proxy credentials not reloaded; keeping the current ones");
  }

  private async pollServers(): Promise<void> {
    await Promise.all(
      this.o.servers.map(async (s) => {
        const st = this.state.get(s.name)!;
        if (!st.connection || st.connection.closed) st.connection = new ManagementConnection(s.management, (why) => this.lost(s, why));
        try {
          st.status = await st.connection.status(this.o.statusTimeoutMs);
          delete st.error;
        } catch (err) {
          delete st.status;
          st.error = (err as Error).message;
        }
        this.update(s);
      }),
    );
  }

  /** The management connection ended: the server is down now, not at the next poll. */
  private lost(s: ManagedServer, why: string): void {
    const st = this.state.get(s.name)!;
    delete st.status;
    st.error = why;
    this.update(s);
  }

  private update(s: ManagedServer): void {
    const st = this.state.get(s.name)!;
    const c = st.status?.clients.find((x) => x.commonName === s.clientCn && x.virtualAddress !== "");
    if (c && st.connectedSince !== undefined && c.connectedSince !== st.connectedSince) st.reconnects++;
    if (c) st.connectedSince = c.connectedSince;
    const wasUp = this.tunnels.isUp(s.name);
    this.tunnels.setUp(s.name, c !== undefined);
    if (wasUp !== (c !== undefined)) this.log.info({ server: s.name, cn: s.clientCn, realAddress: c?.realAddress, error: st.error }, c ? "tunnel established" : "tunnel closed");
  }

  /** Failing health checks; empty when healthy. */
  failingChecks(): string[] {
    const out: string[] = [];
    for (const s of this.o.servers) {
      const err = this.state.get(s.name)?.error;
      if (err !== undefined) out.push(`openvpn ${s.name}: ${err}`);
    }
    if (!this.egress.listening()) out.push("egress proxy: not listening");
    return out;
  }

  /** Ready while a tunnel is up. */
  readiness(): { ready: boolean; message: string } {
    const up = this.o.servers.filter((s) => this.tunnels.isUp(s.name)).map((s) => s.name);
    return up.length > 0 ? { ready: true, message: `ok: tunnel up via ${up.join(", ")}` } : { ready: false, message: "no tunnel is up" };
  }

  async close(): Promise<void> {
    this.closed = true;
    this.timer?.cancel();
    await this.polling;
    for (const st of this.state.values()) st.connection?.close();
    await this.egress.close();
    await this.health.close();
  }
}
