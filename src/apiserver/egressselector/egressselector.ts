// kube-apiserver's --egress-selector-config-file (docs/reversed-vpn.md#shoot-api-server-egress): an
// EgressSelectorConfiguration whose `cluster` entry may be HTTPConnect over TLS to a proxy (the shoot's
// vpn-seed-server egress proxy). Its dialer opens mutual TLS to the proxy, sends
// `CONNECT <ip>:<port> HTTP/1.1`, and hands back the stream after the proxy's 200.
import { readFile } from "node:fs/promises";
import { isIP } from "node:net";
import type { Duplex } from "node:stream";
import { connect as tlsConnect } from "node:tls";
import { parse as parseYaml } from "yaml";
import { StatusError } from "../../apimachinery/errors.ts";

/** Opens a stream to host:port (an IP address). */
export type Dialer = (host: string, port: number) => Promise<Duplex>;

export interface EgressSelector {
  /** The dialer for traffic into the cluster (nodes, pods, services); undefined: direct. */
  cluster?: Dialer;
}

export interface HttpConnectTransport {
  /** `https://<host>:<port>` of the proxy. */
  url: string;
  caPem: string;
  certPem: string;
  keyPem: string;
}

const MAX_FILE_BYTES = 64 * 1024;
const MAX_PROXY_HEAD = 8 * 1024;
export const PROXY_DIAL_TIMEOUT_MS = 30_000;
const NAMES = new Set(["cluster", "controlplane", "etcd", "master"]);

export class EgressSelectorConfigError extends Error {
  override readonly name = "EgressSelectorConfigError";
}

interface Selection {
  name?: unknown;
  connection?: { proxyProtocol?: unknown; transport?: { tcp?: { url?: unknown; tlsConfig?: { caBundle?: unknown; clientCert?: unknown; clientKey?: unknown } }; uds?: unknown } };
}

function fail(message: string): never {
  throw new EgressSelectorConfigError(`egress selector configuration: ${message}`);
}

/** Reads and validates the file; only `cluster` may be HTTPConnect (over TCP with TLS), everything else is Direct. */
export async function loadEgressSelector(file: string): Promise<EgressSelector> {
  const out: EgressSelector = {};
  const seen = new Set<string>();
  for (const s of await readSelections(file)) {
    const name = s?.name;
    if (typeof name !== "string" || !NAMES.has(name)) fail(`unknown egress selection name ${JSON.stringify(name)}`);
    if (seen.has(name)) fail(`duplicate egress selection ${name}`);
    seen.add(name);
    const protocol = s.connection?.proxyProtocol;
    if (protocol === "Direct") continue;
    if (protocol !== "HTTPConnect") fail(`${name}: proxyProtocol ${JSON.stringify(protocol)} is not supported (Direct, HTTPConnect)`);
    if (name !== "cluster") fail(`${name}: only the cluster selection may use a proxy`);
    const { url, files } = proxyTransport(name, s);
    const [caPem, certPem, keyPem] = await Promise.all(files.map((f) => readFile(f, "utf8")));
    out.cluster = httpConnectDialer({ url, caPem: caPem!, certPem: certPem!, keyPem: keyPem! });
  }
  return out;
}

/** The file's egressSelections, after its size, YAML, apiVersion and kind are checked. */
async function readSelections(file: string): Promise<Selection[]> {
  const text = await readFile(file, "utf8");
  if (text.length > MAX_FILE_BYTES) fail(`${file} exceeds ${MAX_FILE_BYTES} bytes`);
  let doc: { apiVersion?: unknown; kind?: unknown; egressSelections?: unknown };
  try {
    doc = (parseYaml(text) ?? {}) as typeof doc;
  } catch (err) {
    fail(`${file}: ${(err as Error).message}`);
  }
  if (doc.apiVersion !== "apiserver.k8s.io/v1beta1" && doc.apiVersion !== "apiserver.k8s.io/v1alpha1") fail(`unsupported apiVersion ${JSON.stringify(doc.apiVersion)}`);
  if (doc.kind !== "EgressSelectorConfiguration") fail(`kind must be EgressSelectorConfiguration, not ${JSON.stringify(doc.kind)}`);
  if (!Array.isArray(doc.egressSelections)) fail("egressSelections must be a list");
  return doc.egressSelections as Selection[];
}

/** An HTTPConnect selection's proxy: an https:// URL over TCP, and its CA, client certificate and key files. */
function proxyTransport(name: string, s: Selection): { url: string; files: [string, string, string] } {
  const tcp = s.connection?.transport?.tcp;
  if (!tcp || s.connection?.transport?.uds !== undefined) fail(`${name}: HTTPConnect needs transport.tcp (uds is not supported)`);
  const url = typeof tcp.url === "string" ? tcp.url : fail(`${name}: transport.tcp.url is required`);
  const tls = tcp.tlsConfig;
  const files = [tls?.caBundle, tls?.clientCert, tls?.clientKey];
  const isFile = (f: unknown): f is string => typeof f === "string" && f !== "";
  if (!url.startsWith("https://") || !files.every(isFile)) fail(`${name}: the proxy must be https:// with tlsConfig caBundle, clientCert and clientKey`);
  return { url, files: files as [string, string, string] };
}

/** host and port of an https:// URL with an IP or name. */
function proxyAddress(url: string): { host: string; port: number } {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    fail(`invalid proxy URL ${JSON.stringify(url)}`);
  }
  const host = u.hostname.replace(/^\[|\]$/g, "");
  return { host, port: u.port === "" ? 443 : Number(u.port) };
}

/** Kubernetes' error for a failed CONNECT: a 500 InternalError. */
function proxyError(proxy: string, target: string, detail: string): StatusError {
  return new StatusError(500, "InternalError", `proxy error from ${proxy} while dialing ${target}, ${detail}`);
}

export function httpConnectDialer(t: HttpConnectTransport, timeoutMs = PROXY_DIAL_TIMEOUT_MS): Dialer {
  const { host, port } = proxyAddress(t.url);
  const proxy = `${isIP(host) === 6 ? `[${host}]` : host}:${port}`;
  return (targetHost, targetPort) =>
    new Promise((resolve, reject) => {
      const target = `${isIP(targetHost) === 6 ? `[${targetHost}]` : targetHost}:${targetPort}`;
      const socket = tlsConnect({ host, port, ca: t.caPem, cert: t.certPem, key: t.keyPem, ...(isIP(host) ? {} : { servername: host }) });
      let head = Buffer.alloc(0);
      const done = (err?: Error) => {
        clearTimeout(timer);
        socket.off("data", onData);
        socket.off("close", onClose);
        if (err) {
          socket.destroy();
          reject(err);
        } else {
          resolve(socket);
        }
      };
      const timer = setTimeout(() => done(proxyError(proxy, target, `no answer within ${timeoutMs / 1000}s`)), timeoutMs);
      const onClose = () => done(proxyError(proxy, target, "EOF"));
      const onData = (chunk: Buffer) => {
        head = Buffer.concat([head, chunk]);
        const end = head.indexOf("\r\n\r\n");
        if (end < 0) return head.length > MAX_PROXY_HEAD ? done(proxyError(proxy, target, "oversized answer")) : undefined;
        const status = /^HTTP\/1\.[01] (\d{3}) ?([^\r\n]*)/.exec(head.subarray(0, end).toString("latin1"));
        if (!status) return done(proxyError(proxy, target, "malformed answer"));
        const code = Number(status[1]);
        if (code !== 200) return done(proxyError(proxy, target, `code ${code}: ${code} ${status[2]}`));
        // As Kubernetes' dialer: nothing may follow the proxy's answer before the target speaks.
        if (head.length > end + 4) return done(proxyError(proxy, target, "unexpected data after the proxy's answer"));
        socket.pause();
        done();
      };
      socket.on("data", onData);
      socket.once("error", (err) => done(proxyError(proxy, target, err.message)));
      // A proxy that closes without answering fails the dial at once (Go's http.ReadResponse: EOF).
      socket.once("close", onClose);
      socket.once("secureConnect", () => socket.write(`CONNECT ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`));
    });
}
