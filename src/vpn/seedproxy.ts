// The seed CONNECT proxy as a component (docs/reversed-vpn.md#seed-connect-proxy): the proxy on the seed's
// public address, port 8132, fed from a watch of the seed's Endpoints labelled app=vpn-seed-server (the
// known vpn-seed-servers), and /healthz, /readyz and /metrics on a port of their own. /readyz answers 200
// once the first list of Endpoints is in and the proxy listens: before that every client would get 403.
import { type AddressInfo } from "node:net";
import { pino, type Logger } from "pino";
import type { Endpoints as EndpointsObject } from "../apis/core/v1/service.ts";
import { Endpoints } from "../client/builtins.ts";
import type { Client } from "../client/client.ts";
import { Informer } from "../controllerruntime/cache/informer.ts";
import { clientListerWatcher } from "../controllerruntime/cache/listwatch.ts";
import { ConnectProxy } from "./connectproxy.ts";
import { HealthServer } from "./healthserver.ts";
import { SERVER_LABEL, ServerDirectory } from "./servers.ts";

export const CONNECT_PROXY_PORT = 8132;

export interface SeedProxyOptions {
  /** A client of the seed cluster that may list and watch Endpoints in every namespace. */
  client: Client;
  listen: { host: string; port: number };
  /** Where /healthz, /readyz and /metrics listen; omit for none. */
  health?: { host: string; port: number };
  log?: Logger;
  /** The servers' OpenVPN port; 1194 except in tests that cannot bind it. */
  upstreamPort?: number;
}

export class SeedProxy {
  readonly directory = new ServerDirectory();
  readonly proxy: ConnectProxy;
  private readonly informer: Informer<EndpointsObject>;
  private readonly log: Logger;
  private http: HealthServer | undefined;

  constructor(private readonly o: SeedProxyOptions) {
    this.log = o.log ?? pino({ level: "silent" });
    this.proxy = new ConnectProxy({ directory: this.directory, log: this.log, ...(o.upstreamPort ? { upstreamPort: o.upstreamPort } : {}) });
    const selector = Object.entries(SERVER_LABEL).map(([k, v]) => `${k}=${v}`).join(",");
    this.informer = new Informer(clientListerWatcher(o.client, Endpoints, { labelSelector: selector }), { name: "endpoints", logger: this.log });
    this.informer.addEventHandler({
      onAdd: (ep) => this.directory.apply(ep),
      onUpdate: (_, ep) => this.directory.apply(ep),
      onDelete: (ep) => this.directory.remove(ep.metadata.namespace ?? "", ep.metadata.name ?? ""),
    });
  }

  /** Lists the Endpoints, then listens: the proxy's first answer already knows every server. */
  async start(): Promise<{ proxy: AddressInfo; health?: AddressInfo }> {
    this.informer.start();
    await this.informer.waitForSync();
    this.directory.markSynced();
    const proxy = await this.proxy.listen(this.o.listen.port, this.o.listen.host);
    if (!this.o.health) return { proxy };
    this.http = new HealthServer({
      registry: this.proxy.registry,
      failingChecks: () => (this.proxy.listening() ? [] : ["the CONNECT proxy is not listening"]),
      readiness: () => (this.ready() ? { ready: true, message: "ok" } : { ready: false, message: "the vpn-seed-servers' Endpoints are not listed yet" }),
    });
    return { proxy, health: await this.http.listen(this.o.health.port, this.o.health.host) };
  }

  ready(): boolean {
    return this.directory.hasSynced() && this.proxy.listening();
  }

  async close(): Promise<void> {
    await this.http?.close();
    await this.proxy.close();
    await this.informer.stop();
  }
}
