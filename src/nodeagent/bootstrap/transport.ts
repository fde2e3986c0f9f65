// A Transport whose credentials can be replaced while it is in use: requests after swap() use the
// new kubeconfig; streams already open keep theirs until they end (their certificate is still valid).
import type { IncomingMessage } from "node:http";
import { KubeConfig } from "@kubernetes/client-node";
import { KubeConfigTransport, type Transport, type TransportRequest } from "../../client/transport.ts";

export class ReloadingTransport implements Transport {
  private current: KubeConfigTransport;
  private readonly retired: KubeConfigTransport[] = [];

  constructor(
    path: string,
    private readonly userAgent: string,
  ) {
    this.current = ReloadingTransport.load(path, userAgent);
  }

  private static load(path: string, userAgent: string): KubeConfigTransport {
    const kc = new KubeConfig();
    kc.loadFromFile(path);
    return new KubeConfigTransport(kc, userAgent);
  }

  get server(): string {
    return this.current.server;
  }

  /** Uses the kubeconfig at path from now on. */
  swap(path: string): void {
    const next = ReloadingTransport.load(path, this.userAgent);
    this.retired.push(this.current);
    this.current = next;
    // Idle sockets of the old credentials go; streams in flight end on their own.
    for (const t of this.retired) t.close();
  }

  request<T>(req: TransportRequest): Promise<T> {
    return this.current.request<T>(req);
  }

  stream(req: Omit<TransportRequest, "method" | "body" | "contentType" | "timeoutMs">): Promise<IncomingMessage> {
    return this.current.stream(req);
  }

  close(): void {
    this.current.close();
    for (const t of this.retired.splice(0)) t.close();
  }
}
