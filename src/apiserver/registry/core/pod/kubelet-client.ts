// The API server's way to a pod's kubelet (kube-apiserver's NodeConnectionInfoGetter and its upgrade
// and location proxies): the node's InternalIP and daemonEndpoints.kubeletEndpoint.Port from storage,
// mutual TLS with the kubelet-client certificate, the kubelet's serving certificate verified against the
// cluster CA (--kubelet-certificate-authority). Upgrades (exec, attach) are forwarded and, after the
// kubelet's 101, the two sockets are spliced and closed together; plain GETs (logs) are streamed.
import { STATUS_CODES, type IncomingMessage, type OutgoingHttpHeaders } from "node:http";
import { request } from "node:https";
import { isIP } from "node:net";
import type { Duplex } from "node:stream";
import { connect as tlsConnect } from "node:tls";
import type { Node } from "../../../../apis/core/v1/types.ts";
import type { StatusReason } from "../../../../apis/meta/v1/types.ts";
import { StatusError, newNotFound, newServiceUnavailable, newTooManyRequests } from "../../../../apimachinery/errors.ts";
import type { InternalClient } from "../../client.ts";
import type { Dialer } from "../../../egressselector/egressselector.ts";
import { NODES } from "../resources.ts";

export interface KubeletClientConfig {
  /** --kubelet-client-certificate / --kubelet-client-key (PEM). */
  certPem: string;
  keyPem: string;
  /** --kubelet-certificate-authority (PEM): verifies the kubelets' serving certificates. */
  caPem: string;
  /** Concurrent proxied exec/attach/log streams at most (default 1000); beyond: 429. */
  maxStreams?: number;
  /** How long the kubelet may take to answer (default 10 s). */
  timeoutMs?: number;
  /** The egress selector's `cluster` dialer (e.g. through the VPN's egress proxy); default: direct. */
  dial?: Dialer;
}

export interface KubeletLocation {
  host: string;
  port: number;
}

/** kube-apiserver's default when a Node reports no kubelet port. */
const DEFAULT_KUBELET_PORT = 10250;
const MAX_ERROR_BODY = 50_000;
/** Request headers an upgrade carries to the kubelet; nothing else (never the client's credentials). */
const UPGRADE_HEADERS = ["upgrade", "sec-websocket-key", "sec-websocket-version", "sec-websocket-protocol", "x-stream-protocol-version"];

const REASONS: Record<number, StatusReason> = { 400: "BadRequest", 401: "Unauthorized", 403: "Forbidden", 404: "NotFound", 409: "Conflict", 429: "TooManyRequests", 503: "ServiceUnavailable" };

export function upgradeOf(upgrade: unknown): { req: IncomingMessage; socket: Duplex; head: Buffer } {
  return upgrade as { req: IncomingMessage; socket: Duplex; head: Buffer };
}

/** The kubelet's error answer as a StatusError with its code and message (as kube's generic response checker). */
function kubeletError(code: number, body: string): StatusError {
  let message = body.trim();
  try {
    const s = JSON.parse(body) as { kind?: string; message?: string };
    if (s.kind === "Status" && typeof s.message === "string") message = s.message;
  } catch {
    // plain text
  }
  if (!message) message = `the server responded with the status code ${code} but did not return more information`;
  const status = code >= 400 && code < 600 ? code : 503;
  return new StatusError(status, REASONS[status] ?? (status >= 500 ? "InternalError" : "BadRequest"), message);
}

function readBounded(res: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    let body = "";
    res.setEncoding("utf8");
    res.on("data", (d: string) => {
      if (body.length < MAX_ERROR_BODY) body += d.slice(0, MAX_ERROR_BODY - body.length);
    });
    res.on("end", () => resolve(body));
    res.on("error", () => resolve(body));
  });
}

function rawError(socket: Duplex, err: StatusError): void {
  if (socket.destroyed || !socket.writable) return;
  const body = JSON.stringify(err.toStatus());
  socket.end(`HTTP/1.1 ${err.code} ${STATUS_CODES[err.code] ?? "Error"}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
}

export class KubeletClient {
  private active = 0;

  constructor(
    private readonly client: InternalClient,
    private readonly config: KubeletClientConfig,
  ) {}

  /** Where the node's kubelet listens, from the stored Node. */
  async location(nodeName: string): Promise<KubeletLocation> {
    const node = (await this.client.get(NODES, undefined, nodeName)) as Node | undefined;
    if (!node) throw newNotFound(NODES, nodeName);
    const host = node.status?.addresses?.find((a) => a.type === "InternalIP" && isIP(a.address) !== 0)?.address;
    if (!host) throw newServiceUnavailable(`node "${nodeName}" has no InternalIP address to reach its kubelet`);
    const port = node.status?.daemonEndpoints?.kubeletEndpoint?.Port;
    return { host, port: port && port > 0 && port < 65536 ? port : DEFAULT_KUBELET_PORT };
  }

  private admit(): () => void {
    if (this.active >= (this.config.maxStreams ?? 1000)) throw newTooManyRequests("too many concurrent exec, attach and log streams", 1);
    this.active++;
    let done = false;
    return () => {
      if (!done) this.active--;
      done = true;
    };
  }

  private open(loc: KubeletLocation, path: string, headers: OutgoingHttpHeaders) {
    const { dial, certPem, keyPem, caPem } = this.config;
    // Through the egress: TLS to the kubelet inside the proxied stream, verified as a direct connection would be.
    const createConnection = dial
      ? (_o: unknown, oncreate: (err: Error | null, socket: Duplex) => void) => {
          dial(loc.host, loc.port).then(
            (raw) => oncreate(null, tlsConnect({ socket: raw, host: loc.host, ...(isIP(loc.host) ? {} : { servername: loc.host }), cert: certPem, key: keyPem, ca: caPem })),
            (err: Error) => oncreate(err, undefined as unknown as Duplex),
          );
          return undefined;
        }
      : undefined;
    return request({
      // Without an agent: Node uses `createConnection` only then (agent: false would make a fresh agent that dials directly).
      ...(createConnection ? { createConnection } : { agent: false }),
      host: loc.host,
      port: loc.port,
      path,
      method: "GET",
      headers,
      cert: this.config.certPem,
      key: this.config.keyPem,
      ca: this.config.caPem,
      timeout: this.config.timeoutMs ?? 10_000,
    });
  }

  /** Forwards an upgrade request; after the kubelet's 101 the sockets are spliced. Resolves once the outcome is written. */
  proxyUpgrade(loc: KubeletLocation, path: string, client: { req: IncomingMessage; socket: Duplex; head: Buffer }): Promise<void> {
    const release = this.admit();
    const headers: OutgoingHttpHeaders = { connection: "Upgrade" };
    for (const h of UPGRADE_HEADERS) if (client.req.headers[h] !== undefined) headers[h] = client.req.headers[h];
    const out = this.open(loc, path, headers);
    return new Promise<void>((resolve) => {
      const fail = (err: StatusError) => {
        release();
        rawError(client.socket, err);
        resolve();
      };
      out.on("timeout", () => out.destroy(new Error("timed out waiting for the kubelet")));
      out.on("error", (err) => fail(err instanceof StatusError ? err : newServiceUnavailable(`error dialing backend: ${err.message}`)));
      out.on("response", (res) => void readBounded(res).then((body) => fail(kubeletError(res.statusCode ?? 502, body))));
      out.on("upgrade", (res, upstream, upstreamHead) => {
        out.setTimeout(0);
        const downstream = client.socket;
        const closeBoth = () => {
          upstream.destroy();
          downstream.destroy();
          release();
        };
        upstream.on("error", closeBoth).on("close", closeBoth);
        downstream.on("error", closeBoth).on("close", closeBoth);
        if (downstream.destroyed) return void (closeBoth(), resolve());
        const lines = [`HTTP/1.1 101 ${res.statusMessage ?? "Switching Protocols"}`];
        for (let i = 0; i < res.rawHeaders.length; i += 2) lines.push(`${res.rawHeaders[i]}: ${res.rawHeaders[i + 1]}`);
        downstream.write(`${lines.join("\r\n")}\r\n\r\n`);
        if (upstreamHead.length) downstream.write(upstreamHead);
        if (client.head.length) upstream.write(client.head);
        upstream.pipe(downstream);
        downstream.pipe(upstream);
        resolve();
      });
      out.end();
    });
  }

  /** A GET to the kubelet: its answer when 2xx (to be streamed on), else its error as a StatusError. */
  get(loc: KubeletLocation, path: string): Promise<IncomingMessage> {
    const release = this.admit();
    const out = this.open(loc, path, { accept: "*/*" });
    return new Promise<IncomingMessage>((resolve, reject) => {
      out.on("timeout", () => out.destroy(new Error("timed out waiting for the kubelet")));
      out.on("error", (err) => {
        release();
        reject(err instanceof StatusError ? err : newServiceUnavailable(`error dialing backend: ${err.message}`));
      });
      out.on("response", (res) => {
        const code = res.statusCode ?? 502;
        if (code >= 200 && code < 300) {
          out.setTimeout(0);
          res.once("close", release);
          return resolve(res);
        }
        void readBounded(res).then((body) => {
          release();
          reject(kubeletError(code, body));
        });
      });
      out.end();
    });
  }
}
