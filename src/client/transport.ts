// HTTP(S) to one API server, configured from a client-node KubeConfig (TLS material, bearer
// tokens, exec/auth-provider credentials, proxies all come from client-node). We issue the
// requests ourselves on one keep-alive agent because the generated API classes cannot reach
// arbitrary group/version/resource paths with subresources and every patch type, and because
// watches need every error path surfaced (see watch.ts).
import http, { type IncomingMessage, type OutgoingHttpHeaders } from "node:http";
import https from "node:https";
import type { KubeConfig } from "@kubernetes/client-node";
import { statusErrorFromResponse } from "./errors.ts";

export type QueryValue = string | number | boolean | undefined;

export interface TransportRequest {
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  path: string;
  query?: Record<string, QueryValue>;
  /** JSON-encoded as the body unless undefined. */
  body?: unknown;
  /** Defaults to application/json when there is a body. */
  contentType?: string;
  signal?: AbortSignal;
  /** Client-side timeout for the whole request; default 60 s. Not applied to streams. */
  timeoutMs?: number;
  /** Headers beyond the credentials' (e.g. the CSRF header the dashboard's API wants). */
  headers?: Record<string, string>;
}

export interface Transport {
  readonly server: string;
  /** Sends a request and returns the decoded JSON answer; non-2xx answers throw StatusError. */
  request<T>(req: TransportRequest): Promise<T>;
  /** Opens a streaming GET; resolves with the 200 response, throws StatusError on other codes. */
  stream(req: Omit<TransportRequest, "method" | "body" | "contentType" | "timeoutMs">): Promise<IncomingMessage>;
  /** Closes idle keep-alive sockets. Streams in flight end when their signals abort. */
  close(): void;
}

interface Prepared {
  agent: http.Agent;
  base: URL;
  /** Headers resolved once (static token, basic auth); undefined when they must be fetched per request. */
  staticHeaders: OutgoingHttpHeaders | undefined;
}

function toHeaders(opts: https.RequestOptions): OutgoingHttpHeaders {
  const h: OutgoingHttpHeaders = { ...(opts.headers as OutgoingHttpHeaders | undefined) };
  if (opts.auth) h.authorization = `Basic ${Buffer.from(opts.auth).toString("base64")}`;
  return h;
}

export function buildQuery(query: Record<string, QueryValue> | undefined): string {
  if (!query) return "";
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== "") p.set(k, String(v));
  const s = p.toString();
  return s ? `?${s}` : "";
}

/**
 * Idle keep-alive sockets are closed by the client after this long, or 1 s before the server's
 * announced `Keep-Alive: timeout=N` (Node's agent applies that hint only when a timeout is set), so
 * the client never sends a request on a socket the server is closing at that moment (ECONNRESET).
 */
export const IDLE_SOCKET_TIMEOUT_MS = 30_000;

/** A request that failed because a reused keep-alive socket was reset before any answer; safe to resend once if idempotent. */
function resetOnReusedSocket(r: http.ClientRequest, err: unknown): boolean {
  return r.reusedSocket && (err as NodeJS.ErrnoException).code === "ECONNRESET";
}

export class KubeConfigTransport implements Transport {
  readonly server: string;
  private prepared: Promise<Prepared> | undefined;

  constructor(
    private readonly kc: KubeConfig,
    private readonly userAgent = "gardener-access-controllerruntime",
  ) {
    const cluster = kc.getCurrentCluster();
    if (!cluster) throw new Error("kubeconfig has no current cluster");
    this.server = cluster.server.replace(/\/+$/, "");
  }

  private prepare(): Promise<Prepared> {
    if (this.prepared) return this.prepared;
    const prepared = (async (): Promise<Prepared> => {
      const opts: https.RequestOptions = {};
      await this.kc.applyToHTTPSOptions(opts);
      const base = new URL(this.server);
      const cluster = this.kc.getCurrentCluster();
      const user = this.kc.getCurrentUser();
      // Proxies need client-node's proxy agent; otherwise one keep-alive agent with the same TLS material.
      const agent = cluster?.proxyUrl
        ? (opts.agent as http.Agent)
        : base.protocol === "http:"
          ? new http.Agent({ keepAlive: true, timeout: IDLE_SOCKET_TIMEOUT_MS })
          : new https.Agent({
              keepAlive: true,
              timeout: IDLE_SOCKET_TIMEOUT_MS,
              ca: opts.ca,
              cert: opts.cert,
              key: opts.key,
              pfx: opts.pfx,
              passphrase: opts.passphrase,
              servername: cluster?.tlsServerName ?? opts.servername,
              rejectUnauthorized: cluster?.skipTLSVerify ? false : opts.rejectUnauthorized,
            });
      const dynamic = Boolean(user?.exec || user?.authProvider);
      return { agent, base, staticHeaders: dynamic ? undefined : toHeaders(opts) };
    })();
    this.prepared = prepared;
    // A failure (e.g. an exec credential plugin that is not ready) is retried on the next request.
    prepared.catch(() => {
      if (this.prepared === prepared) this.prepared = undefined;
    });
    return prepared;
  }

  private async headers(p: Prepared): Promise<OutgoingHttpHeaders> {
    if (p.staticHeaders) return p.staticHeaders;
    const opts: https.RequestOptions = {};
    await this.kc.applyToHTTPSOptions(opts);
    return toHeaders(opts);
  }

  private async open(req: TransportRequest, signal: AbortSignal | undefined, retried = false): Promise<IncomingMessage> {
    const p = await this.prepare();
    const headers: OutgoingHttpHeaders = { ...(await this.headers(p)), accept: "application/json", "user-agent": this.userAgent, ...req.headers };
    let payload: Buffer | undefined;
    if (req.body !== undefined) {
      payload = Buffer.from(JSON.stringify(req.body), "utf8");
      headers["content-type"] = req.contentType ?? "application/json";
      headers["content-length"] = payload.length;
    }
    const mod = p.base.protocol === "http:" ? http : https;
    return new Promise<IncomingMessage>((resolve, reject) => {
      const r = mod.request(
        {
          agent: p.agent,
          protocol: p.base.protocol,
          hostname: p.base.hostname,
          port: p.base.port,
          method: req.method,
          path: p.base.pathname.replace(/\/$/, "") + req.path + buildQuery(req.query),
          headers,
          signal,
        },
        resolve,
      );
      r.on("error", (err) => {
        // Only a GET is resent: a write the server may have received must not be applied twice.
        if (!retried && req.method === "GET" && resetOnReusedSocket(r, err)) resolve(this.open(req, signal, true));
        else reject(err);
      });
      r.end(payload);
    });
  }

  async request<T>(req: TransportRequest): Promise<T> {
    const timeout = AbortSignal.timeout(req.timeoutMs ?? 60_000);
    const signal = req.signal ? AbortSignal.any([req.signal, timeout]) : timeout;
    const res = await this.open(req, signal);
    const text = await readBody(res);
    const status = res.statusCode ?? 0;
    if (status < 200 || status > 299) throw statusErrorFromResponse(status, text, `${req.method} ${req.path}`);
    if (text === "") return undefined as T;
    try {
      return JSON.parse(text) as T;
    } catch (e) {
      throw new Error(`${req.method} ${req.path}: the server answered ${status} with a body that is not JSON`, { cause: e });
    }
  }

  async stream(req: Omit<TransportRequest, "method" | "body" | "contentType" | "timeoutMs">): Promise<IncomingMessage> {
    const res = await this.open({ ...req, method: "GET" }, req.signal);
    if (res.statusCode === 200) {
      res.socket?.setKeepAlive(true, 30_000);
      return res;
    }
    // A Status is small; an error page from behind a proxy subresource may be anything, so only its start is read.
    const text = await readBody(res, MAX_ERROR_BODY).catch(() => "");
    throw statusErrorFromResponse(res.statusCode ?? 0, text, `GET ${req.path}`);
  }

  close(): void {
    void this.prepared?.then((p) => p.agent.destroy(), () => undefined);
  }
}

/** How much of a stream's error answer is read. */
export const MAX_ERROR_BODY = 64 * 1024;

/**
 * Reads a whole response body; rejects if the connection breaks before the end. With `maxBytes`, reads at most
 * that much and then closes the response.
 */
export function readBody(res: IncomingMessage, maxBytes?: number): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    res.on("data", (c: Buffer) => {
      if (maxBytes === undefined) return void chunks.push(c);
      chunks.push(c.subarray(0, maxBytes - size));
      size += c.length;
      if (size >= maxBytes) {
        resolve(Buffer.concat(chunks).toString("utf8"));
        res.destroy();
      }
    });
    res.on("error", reject);
    res.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    res.on("close", () => {
      if (!res.complete) reject(new Error("the connection closed before the response was complete"));
    });
  });
}
