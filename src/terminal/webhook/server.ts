// The terminal-controller-manager's webhook server (docs/terminals.md#admission-webhooks): HTTPS
// only, `POST /mutate-terminal` and `POST /validate-terminal` with an admission.k8s.io/v1
// AdmissionReview, bodies bounded to 3 MiB, answers echoing the request's uid. Anything else is a
// plain 4xx; a handler failure is an AdmissionReview with code 500, never a stack trace.
import { type Server, createServer } from "node:https";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Logger } from "pino";
import { API_VERSION, type AdmissionRequest, type AdmissionResponse } from "../../apis/admission/v1/types.ts";
import { trackConnections } from "../../utils/connections.ts";

export const MUTATE_PATH = "/mutate-terminal";
export const VALIDATE_PATH = "/validate-terminal";
export const MAX_REVIEW_BYTES = 3 * 1024 * 1024;

export type ReviewHandler = (req: AdmissionRequest) => Promise<Omit<AdmissionResponse, "uid">> | Omit<AdmissionResponse, "uid">;

export interface WebhookServerOptions {
  certPem: string;
  keyPem: string;
  host: string;
  port: number;
  handlers: Record<string, ReviewHandler>;
  logger?: Logger;
}

export interface WebhookServer {
  port: number;
  close(): Promise<void>;
}

function plain(res: ServerResponse, code: number, text: string): void {
  res.writeHead(code, { "content-type": "text/plain; charset=utf-8" }).end(`${text}\n`);
}

function readBody(req: IncomingMessage): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (c: Buffer) => {
      size += c.length;
      if (size > MAX_REVIEW_BYTES) {
        resolve(undefined);
        req.destroy();
        return;
      }
      chunks.push(c);
    });
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

function parseReview(body: string): AdmissionRequest | undefined {
  try {
    const review = JSON.parse(body) as { apiVersion?: unknown; request?: AdmissionRequest };
    const r = review.request;
    if (review.apiVersion !== API_VERSION || typeof r !== "object" || r === null || typeof r.uid !== "string" || typeof r.userInfo?.username !== "string") return undefined;
    return r;
  } catch {
    return undefined;
  }
}

async function serve(o: WebhookServerOptions, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const path = new URL(req.url ?? "/", "https://webhook").pathname;
  const handler = Object.hasOwn(o.handlers, path) ? o.handlers[path] : undefined;
  if (!handler) return plain(res, 404, "not found");
  if (req.method !== "POST") return plain(res, 405, "method not allowed");
  const body = await readBody(req);
  if (body === undefined) return plain(res, 413, "request body too large");
  const request = parseReview(body);
  if (!request) return plain(res, 400, "the body must be an admission.k8s.io/v1 AdmissionReview with a request");
  let answer: Omit<AdmissionResponse, "uid">;
  try {
    answer = await handler(request);
  } catch (err) {
    o.logger?.error({ err, path }, "webhook failed");
    answer = { allowed: false, status: { code: 500, message: "internal error" } };
  }
  if (!answer.allowed) o.logger?.info({ path, user: request.userInfo.username, reason: answer.status?.message }, "admission request denied");
  res.writeHead(200, { "content-type": "application/json" });
  res.end(JSON.stringify({ apiVersion: API_VERSION, kind: "AdmissionReview", response: { uid: request.uid, ...answer } }));
}

export async function startWebhookServer(o: WebhookServerOptions): Promise<WebhookServer> {
  const server: Server = createServer({ cert: o.certPem, key: o.keyPem }, (req, res) => {
    serve(o, req, res).catch((err: unknown) => {
      o.logger?.error({ err }, "webhook request failed");
      if (!res.headersSent) plain(res, 500, "internal error");
      else res.destroy();
    });
  });
  server.requestTimeout = 30_000;
  server.headersTimeout = 10_000;
  const connections = trackConnections(server);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(o.port, o.host, () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () => connections.close(),
  };
}
