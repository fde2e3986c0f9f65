// The garden API server as pods on the landscape's workers reach it (docs/terminals.md#the-local-landscape): it
// listens on 127.0.0.1 only, and a garden terminal's kubeconfig names https://<host's public address>:<garden port>
// (the garden's serving certificate names that address too, `--tls-san`). This relay, in the supervisor's
// process, listens there and pipes each connection, TLS untouched, to 127.0.0.1:<garden port>: the garden
// authenticates the client as it would on loopback. It admits connections only from the given source addresses
// (the node networks' routers, which masquerade their nodes and pods, and the host itself) and at most
// maxConnections at once.
import { connect, createServer, type Socket } from "node:net";
import type { LocalNetworks } from "../provider-local/network/networks.ts";
import { type Ports, SEED_NODE_NETWORK, SHOOT_TECHNICAL_ID } from "./layout.ts";

export const MAX_RELAY_CONNECTIONS = 256;
const KEEPALIVE_MS = 30_000;

export interface RelayOptions {
  listen: { host: string; port: number };
  target: { host: string; port: number };
  /** Source addresses admitted; a connection from any other is closed before anything is read from it. */
  allowed: readonly string[];
  maxConnections?: number;
}

export interface Relay {
  /** The port it listens on (listen.port, or the one picked for 0). */
  port: number;
  /** Client connections relayed now. */
  connections(): number;
  /** Stops listening and closes every relayed connection. */
  stop(): Promise<void>;
}

export async function startRelay(o: RelayOptions): Promise<Relay> {
  const allowed = new Set(o.allowed);
  const open = new Set<Socket>();
  const server = createServer({ pauseOnConnect: true }, (client) => {
    if (!allowed.has(client.remoteAddress ?? "")) {
      client.destroy();
      return;
    }
    const upstream = connect(o.target);
    open.add(client);
    const done = (): void => {
      open.delete(client);
      client.destroy();
      upstream.destroy();
    };
    for (const s of [client, upstream]) {
      s.setKeepAlive(true, KEEPALIVE_MS);
      s.once("error", done).once("close", done);
    }
    client.pipe(upstream);
    upstream.pipe(client);
    client.resume();
  });
  server.maxConnections = o.maxConnections ?? MAX_RELAY_CONNECTIONS;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(o.listen.port, o.listen.host, () => (server.off("error", reject), resolve()));
  });
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : o.listen.port;
  return {
    port,
    connections: () => open.size,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const s of open) s.destroy();
      }),
  };
}

/** The garden API server's URL for pods on the workers (garden terminals' kubeconfig server). */
export const gardenUrlForPods = (hostAddress: string, ports: Pick<Ports, "garden">): string => `https://${hostAddress}:${ports.garden}`;

/**
 * The relay from gardenUrlForPods to the garden on 127.0.0.1, admitting the seed's and the shoot's node networks
 * (their routers' public addresses) and the host. After both node networks exist.
 */
export async function startGardenRelay(networks: Pick<LocalNetworks, "routerAddress">, hostAddress: string, ports: Pick<Ports, "garden">): Promise<Relay> {
  const routers = await Promise.all([SEED_NODE_NETWORK, SHOOT_TECHNICAL_ID].map((ns) => networks.routerAddress(ns)));
  const allowed = [hostAddress, ...routers.filter((r): r is string => r !== undefined)];
  return startRelay({ listen: { host: hostAddress, port: ports.garden }, target: { host: "127.0.0.1", port: ports.garden }, allowed });
}
