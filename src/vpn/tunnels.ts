// Which tunnel the egress proxy uses (docs/reversed-vpn.md#egress-proxy): each OpenVPN server of a control
// plane has a tunnel address; the selected tunnel stays selected while it is up (no flapping back), when it
// goes down the lowest other up tunnel is selected and listeners close the dead tunnel's streams.
export interface Tunnel {
  /** `vpn-seed-server`, or in HA `vpn-seed-server-0` / `-1`. */
  server: string;
  /** The server's address in the transfer network; upstream sockets are bound to it. */
  address: string;
}

export class TunnelSet {
  private readonly tunnels: Tunnel[];
  private readonly upSet = new Set<string>();
  private current: string | undefined;
  private readonly downListeners = new Set<(server: string) => void>();
  failovers = 0;

  constructor(tunnels: Tunnel[]) {
    this.tunnels = [...tunnels];
  }

  all(): readonly Tunnel[] {
    return this.tunnels;
  }

  isUp(server: string): boolean {
    return this.upSet.has(server);
  }

  selected(): Tunnel | undefined {
    if (this.current === undefined) this.current = this.tunnels.find((t) => this.upSet.has(t.server))?.server;
    return this.tunnels.find((t) => t.server === this.current);
  }

  setUp(server: string, up: boolean): void {
    if (!this.tunnels.some((t) => t.server === server) || this.upSet.has(server) === up) return;
    if (up) return void this.upSet.add(server);
    this.upSet.delete(server);
    if (this.current === server) {
      this.current = undefined;
      if (this.selected()) this.failovers++;
    }
    for (const fn of this.downListeners) fn(server);
  }

  onDown(fn: (server: string) => void): () => void {
    this.downListeners.add(fn);
    return () => this.downListeners.delete(fn);
  }
}
