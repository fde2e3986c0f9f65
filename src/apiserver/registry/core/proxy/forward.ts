// Forwards one HTTP request to a proxy location (kube's UpgradeAwareHandler for plain requests): the
// connection is opened first, through the egress selector's `cluster` dialer when there is one, else
// directly; a failure there is 503 "error trying to reach service: <cause>" (apimachinery's proxy
// transport). The request goes on without the client's credentials and hop-by-hop headers, its body
// streamed and bounded; the answer's status, headers and body are streamed back with backpressure.
import { type IncomingHttpHeaders, type IncomingMessage, type OutgoingHttpHeaders, request } from "node:http";
import { connect, isIP } from "node:net";
import type { Duplex } from "node:stream";
import { connect as tlsConnect } from "node:tls";
import { newRequestEntityTooLarge, newServiceUnavailable } from "../../../../apimachinery/errors.ts";
import type { Dialer } from "../../../egressselector/egressselector.ts";
import { connectionOf } from "../../../endpoints/connection.ts";
import type { ProxiedRequest } from "../../types.ts";
import type { ProxyLocation } from "./location.ts";

export interface ForwardOptions {
  /** The egress selector's cluster dialer; undefined: direct. */
  dial?: Dialer;
  /** The kubelet-client certificate and the CA verifying kubelets (for `kubelet` locations). */
  kubeletTls?: { certPem: string; keyPem: string; caPem: string };
  /** Connecting plus waiting for the answer's head (default 30 s). */
  timeoutMs?: number;
}

const DEFAULT_TIMEOUT_MS = 30_000;
/** Hop-by-hop headers (RFC 9110 §7.6.1), never forwarded in either direction. */
const HOP_BY_HOP = new Set(["connection", "keep-alive", "proxy-authenticate", "proxy-authorization", "proxy-connection", "te", "trailer", "transfer-encoding", "upgrade"]);

function hopByHop(headers: IncomingHttpHeaders): Set<string> {
  const named = new Set(HOP_BY_HOP);
  const conn = headers.connection;
  for (const h of (Array.isArray(conn) ? conn.join(",") : (conn ?? "")).split(",")) if (h.trim()) named.add(h.trim().toLowerCase());
  return named;
}

/** The client's headers minus hop-by-hop ones and its credentials (authentication already used them), plus X-Forwarded-For. */
export function upstreamHeaders(req: IncomingMessage): OutgoingHttpHeaders {
  const drop = hopByHop(req.headers);
  const out: OutgoingHttpHeaders = {};
  for (const [k, v] of Object.entries(req.headers)) {
    // HTTP/2's pseudo-headers (:method, :path, :authority, :scheme) are not headers of the upstream request.
    if (v === undefined || drop.has(k) || k === "authorization" || k.startsWith("impersonate-") || k.startsWith(":")) continue;
    out[k] = v;
  }
  // HTTP/2 names the host in :authority; the upstream HTTP/1.1 request needs Host.
  const authority = req.headers[":authority"];
  if (out.host === undefined && typeof authority === "string") out.host = authority;
  const remote = connectionOf(req).remoteAddress;
  if (remote) out["x-forwarded-for"] = typeof req.headers["x-forwarded-for"] === "string" ? `${req.headers["x-forwarded-for"]}, ${remote}` : remote;
  return out;
}

function responseHeaders(res: IncomingMessage): OutgoingHttpHeaders {
  const drop = hopByHop(res.headers);
  const out: OutgoingHttpHeaders = {};
  for (const [k, v] of Object.entries(res.headers)) if (v !== undefined && !drop.has(k)) out[k] = v;
  return out;
}

const hostPort = (host: string, port: number) => (isIP(host) === 6 ? `[${host}]:${port}` : `${host}:${port}`);

/** A TCP stream to the location: through the egress dialer, or directly within the timeout. */
async function openStream(loc: ProxyLocation, o: ForwardOptions): Promise<Duplex> {
  const timeoutMs = o.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  try {
    if (o.dial) return await o.dial(loc.host, loc.port);
    return await new Promise<Duplex>((resolve, reject) => {
      const s = connect({ host: loc.host, port: loc.port, noDelay: true });
      s.setTimeout(timeoutMs, () => s.destroy(new Error("i/o timeout")));
      s.once("connect", () => (s.setTimeout(0), resolve(s)));
      s.once("error", (err) => reject(new Error(`dial tcp ${hostPort(loc.host, loc.port)}: ${err.message}`)));
    });
  } catch (err) {
    throw newServiceUnavailable(`error trying to reach service: ${(err as Error).message}`);
  }
}

/** TLS inside the stream for https: the kubelet's mutual, verified TLS, or unverified (kube-apiserver's proxy transport). */
function secure(raw: Duplex, loc: ProxyLocation, o: ForwardOptions): Duplex {
  // The egress dialer hands the stream over paused (nothing may be lost before a reader is there); HTTP speaks first.
  if (loc.scheme !== "https") return raw.resume();
  const name = isIP(loc.host) ? {} : { servername: loc.host };
  if (loc.kubelet && o.kubeletTls) return tlsConnect({ socket: raw, host: loc.host, ...name, cert: o.kubeletTls.certPem, key: o.kubeletTls.keyPem, ca: o.kubeletTls.caPem });
  return tlsConnect({ socket: raw, host: loc.host, ...name, rejectUnauthorized: false });
}

/**
 * Forwards `http` to `loc`. Throws a StatusError while nothing has been answered yet; once the
 * target's answer has started, a failure cuts the response. Resolves when the exchange is over.
 */
export async function forward(loc: ProxyLocation, http: ProxiedRequest, o: ForwardOptions = {}): Promise<void> {
  const { req, res } = http;
  const declared = Number(req.headers["content-length"]);
  if (Number.isFinite(declared) && declared > http.maxBodyBytes) throw newRequestEntityTooLarge(`Request entity too large: limit is ${http.maxBodyBytes}`);
  const raw = await openStream(loc, o);
  if (res.destroyed) return void raw.destroy();
  const socket = secure(raw, loc, o);
  const path = `${http.path || "/"}${http.rawQuery ? `?${http.rawQuery}` : ""}`;
  const out = request({ createConnection: () => socket, method: req.method, path, headers: upstreamHeaders(req), setHost: false });
  return new Promise<void>((resolve, reject) => {
    let settled = false;
    const headTimer = setTimeout(() => fail(newServiceUnavailable("error trying to reach service: timeout awaiting response headers")), o.timeoutMs ?? DEFAULT_TIMEOUT_MS);
    const fail = (err: Error) => {
      clearTimeout(headTimer);
      if (settled) return;
      settled = true;
      out.destroy();
      socket.destroy();
      if (res.headersSent) {
        res.destroy();
        return resolve();
      }
      reject(err);
    };
    res.once("close", () => {
      if (!res.writableFinished) out.destroy();
      if (!settled) fail(new Error("the client went away"));
    });
    out.on("error", (err) => fail(newServiceUnavailable(`error trying to reach service: ${err.message}`)));
    out.on("response", (upstream) => {
      clearTimeout(headTimer);
      res.writeHead(upstream.statusCode ?? 502, responseHeaders(upstream));
      upstream.pipe(res);
      upstream.on("error", () => fail(new Error("the target's answer broke off")));
      res.once("finish", () => {
        settled = true;
        socket.destroy();
        resolve();
      });
    });
    // The body, counted: beyond the limit the exchange ends with 413 (or is cut when the answer has started).
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > http.maxBodyBytes) {
        req.unpipe(out);
        fail(newRequestEntityTooLarge(`Request entity too large: limit is ${http.maxBodyBytes}`));
      }
    });
    req.pipe(out);
  });
}
