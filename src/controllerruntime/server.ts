// The manager's probe and metrics endpoint: /healthz and /readyz (Kubernetes-style check
// output, 200 or 500) and /metrics (Prometheus text format from prom-client).
import http from "node:http";
import type { AddressInfo } from "node:net";
import type { Registry } from "prom-client";

/** A named check: resolves when healthy, throws (with the reason) when not. */
export type Check = () => void | Promise<void>;

export interface ProbeServerOptions {
  host: string;
  port: number;
  registry: Registry;
  healthz: Map<string, Check>;
  readyz: Map<string, Check>;
}

export interface ProbeServer {
  host: string;
  port: number;
  close(): Promise<void>;
}

async function runChecks(checks: Map<string, Check>): Promise<{ ok: boolean; lines: string[] }> {
  const lines: string[] = [];
  let ok = true;
  for (const [name, check] of checks) {
    try {
      await check();
      lines.push(`[+]${name} ok`);
    } catch (err) {
      ok = false;
      lines.push(`[-]${name} failed: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  return { ok, lines };
}

async function handle(opts: ProbeServerOptions, req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  const url = new URL(req.url ?? "/", "http://probe");
  if (req.method !== "GET" && req.method !== "HEAD") {
    res.writeHead(405, { "content-type": "text/plain; charset=utf-8" }).end("method not allowed\n");
    return;
  }
  if (url.pathname === "/metrics") {
    const body = await opts.registry.metrics();
    res.writeHead(200, { "content-type": opts.registry.contentType }).end(body);
    return;
  }
  const which = url.pathname === "/healthz" || url.pathname === "/livez" ? "healthz" : url.pathname === "/readyz" ? "readyz" : undefined;
  if (!which) {
    res.writeHead(404, { "content-type": "text/plain; charset=utf-8" }).end("not found\n");
    return;
  }
  const { ok, lines } = await runChecks(opts[which]);
  const verbose = url.searchParams.has("verbose");
  const body = ok && !verbose ? "ok\n" : `${lines.join("\n")}\n${which} check ${ok ? "passed" : "failed"}\n`;
  res.writeHead(ok ? 200 : 500, { "content-type": "text/plain; charset=utf-8", "x-content-type-options": "nosniff" }).end(body);
}

export async function startProbeServer(opts: ProbeServerOptions): Promise<ProbeServer> {
  const server = http.createServer((req, res) => {
    handle(opts, req, res).catch((err: unknown) => {
      if (!res.headersSent) res.writeHead(500, { "content-type": "text/plain; charset=utf-8" });
      res.end(`internal error: ${err instanceof Error ? err.message : String(err)}\n`);
    });
  });
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port, opts.host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const addr = server.address() as AddressInfo;
  return {
    host: addr.address,
    port: addr.port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
