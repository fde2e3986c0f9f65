// The seed CONNECT proxy's view of the known vpn-seed-servers (docs/reversed-vpn.md#seed-connect-proxy):
// a name `vpn-seed-server[-i]` is known in a namespace when an Endpoints of that name, labelled
// app=vpn-seed-server, with a port 1194 exists there. The directory is fed from a watch of Endpoints
// (or directly, in tests) and tells subscribers which servers changed.
import { isIPv4 } from "node:net";

export const VPN_PORT = 1194;
export const SERVER_LABEL = { app: "vpn-seed-server" } as const;

export interface KnownServer {
  /** The first ready or not-ready IPv4 address; undefined when the Endpoints has none (the server is down). */
  address?: string;
}

/** A minimal Endpoints, as the API returns it. */
export interface EndpointsLike {
  metadata?: { name?: string; namespace?: string; labels?: Record<string, string> };
  subsets?: { addresses?: { ip?: string }[]; notReadyAddresses?: { ip?: string }[]; ports?: { port?: number }[] }[];
}

const key = (namespace: string, name: string) => `${namespace}/${name}`;

/** What an Endpoints says about its server, or undefined when it does not make the name known. */
export function serverOf(ep: EndpointsLike): KnownServer | undefined {
  if (ep.metadata?.labels?.app !== SERVER_LABEL.app) return undefined;
  let known = false;
  for (const subset of ep.subsets ?? []) {
    if (!(subset.ports ?? []).some((p) => p.port === VPN_PORT)) continue;
    known = true;
    // Not-ready addresses count too: a server without a tunnel must still accept its client.
    for (const a of [...(subset.addresses ?? []), ...(subset.notReadyAddresses ?? [])]) {
      if (a.ip && isIPv4(a.ip)) return { address: a.ip };
    }
  }
  return known ? {} : undefined;
}

export class ServerDirectory {
  private readonly servers = new Map<string, KnownServer>();
  private readonly listeners = new Set<(namespace: string, name: string) => void>();
  private synced = false;

  lookup(namespace: string, name: string): KnownServer | undefined {
    return this.servers.get(key(namespace, name));
  }

  /** Applies an added or changed Endpoints. */
  apply(ep: EndpointsLike): void {
    const ns = ep.metadata?.namespace ?? "";
    const name = ep.metadata?.name ?? "";
    const server = serverOf(ep);
    if (!server) return this.remove(ns, name);
    const before = this.servers.get(key(ns, name));
    this.servers.set(key(ns, name), server);
    if (before?.address !== server.address) this.notify(ns, name);
  }

  remove(namespace: string, name: string): void {
    if (this.servers.delete(key(namespace, name))) this.notify(namespace, name);
  }

  /** Marks the initial list as complete (the proxy's /healthz waits for it). */
  markSynced(): void {
    this.synced = true;
  }
  hasSynced(): boolean {
    return this.synced;
  }

  /** Calls `fn` whenever a server disappears or changes address. Returns the unsubscribe function. */
  onChange(fn: (namespace: string, name: string) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  private notify(namespace: string, name: string): void {
    for (const fn of this.listeners) fn(namespace, name);
  }
}
