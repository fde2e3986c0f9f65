// The health endpoint both VPN ends serve (docs/reversed-vpn.md#health): `/healthz` (200 `ok`, else 500 with
// one line per failing check), `/readyz` (200 with the ready message, else 503 with the reason) and
// `/metrics` (Prometheus text); HEAD as GET, other methods 405, other paths 404. One place for the answers
// and for closing the listener with its open connections.
import { type IncomingMessage, type Server, type ServerResponse, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { Registry } from "prom-client";
import { listen } from "./pipe.ts";

export interface HealthSource {
  registry: Registry;
  /** Failing checks, one line each; empty when healthy. */
  failingChecks(): string[];
  /** `{ ready: true, message }` or `{ ready: false, message }`. */
  readiness(): { ready: boolean; message: string };
}

export class HealthServer {
  private readonly http: Server;

  constructor(private readonly source: HealthSource) {
    this.http = createServer((req, res) => void this.serve(req, res));
  }

  listen(port: number, host: string): Promise<AddressInfo> {
    return listen(this.http, port, host);
  }

  private async serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? "").split("?")[0];
    const text = (code: number, body: string) => {
      const line = body.endsWith("\n") ? body : body + "\n";
      res.writeHead(code, { "Content-Type": "text/plain; charset=utf-8", "Content-Length": Buffer.byteLength(line) });
      res.end(req.method === "HEAD" ? undefined : line);
    };
    if (req.method !== "GET" && req.method !== "HEAD") return text(405, "method not allowed");
    if (path === "/healthz") {
      const failing = this.source.failingChecks();
      return failing.length === 0 ? text(200, "ok") : text(500, failing.join("\n"));
    }
    if (path === "/readyz") {
      const r = this.source.readiness();
      return text(r.ready ? 200 : 503, r.message);
    }
    if (path === "/metrics") {
      try {
        const body = await this.source.registry.metrics();
        res.writeHead(200, { "Content-Type": this.source.registry.contentType });
        return void res.end(req.method === "HEAD" ? undefined : body);
      } catch (err) {
        return text(500, `metrics: ${(err as Error).message}`);
      }
    }
    text(404, "not found");
  }

  /** Stops listening and closes every open connection. */
  close(): Promise<void> {
    return new Promise<void>((resolve) => {
      this.http.close(() => resolve());
      this.http.closeAllConnections();
    });
  }
}
