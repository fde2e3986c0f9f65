// Test support: a plain-HTTP server on loopback plus a client-node KubeConfig pointing at it,
// for unit tests that need to control every byte an API server sends (broken streams, odd
// bodies). Integration tests use the real API server instead.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { KubeConfig } from "@kubernetes/client-node";

export interface FakeApi {
  url: string;
  kubeConfig: KubeConfig;
  /** Requests seen so far: method, path with query, headers, body text. */
  requests: { method: string; url: string; headers: http.IncomingHttpHeaders; body: string }[];
  close(): Promise<void>;
}

export type FakeHandler = (req: http.IncomingMessage & { body: string }, res: http.ServerResponse) => void;

export async function startFakeApi(handler: FakeHandler, token = "test-token"): Promise<FakeApi> {
  const requests: FakeApi["requests"] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      requests.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers, body });
      handler(Object.assign(req, { body }), res);
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: "fake", server: url, skipTLSVerify: true }],
    users: [{ name: "u", token }],
    contexts: [{ name: "fake", cluster: "fake", user: "u" }],
    currentContext: "fake",
  });
  return {
    url,
    kubeConfig: kc,
    requests,
    close: () =>
      new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      }),
  };
}

export function sendJson(res: http.ServerResponse, code: number, body: unknown): void {
  res.writeHead(code, { "content-type": "application/json" }).end(JSON.stringify(body));
}

export function statusBody(code: number, reason: string, message: string, details?: Record<string, unknown>): Record<string, unknown> {
  return { kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message, reason, code, ...(details ? { details } : {}) };
}
