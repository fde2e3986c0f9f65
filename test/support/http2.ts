// An HTTP/2 client for tests: one session (one TLS connection) with a kubeconfig's credentials,
// requests and watches as streams on it, as client-go multiplexes them.
import { type ClientHttp2Session, type ClientHttp2Stream, connect, type SecureClientSessionOptions } from "node:http2";
import { readKubeconfig } from "./kubeconfig.ts";

export interface H2Response {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  json<T = unknown>(): T;
}

/** Opens a session authenticated as the kubeconfig's user (client certificate or bearer token); `anonymous` sends neither. */
export async function h2Session(kubeconfigPath: string, opts: { anonymous?: boolean; settings?: SecureClientSessionOptions["settings"] } = {}): Promise<{ session: ClientHttp2Session; token?: string }> {
  const kc = readKubeconfig(kubeconfigPath);
  const creds = opts.anonymous ? {} : { cert: kc.certPem, key: kc.keyPem };
  const session = connect(kc.server, { ca: kc.caPem, ...creds, ...(opts.settings ? { settings: opts.settings } : {}) });
  await new Promise<void>((resolve, reject) => {
    session.once("connect", () => resolve());
    session.once("error", reject);
  });
  session.on("error", () => {});
  return { session, ...(kc.token && !opts.anonymous ? { token: kc.token } : {}) };
}

/** One request as a stream of the session; rejects on a stream error (RST_STREAM, GOAWAY). */
export function h2Request(session: ClientHttp2Session, method: string, path: string, o: { body?: unknown; headers?: Record<string, string> } = {}): Promise<H2Response> {
  return new Promise((resolve, reject) => {
    const body = o.body === undefined ? undefined : typeof o.body === "string" ? o.body : JSON.stringify(o.body);
    const stream = session.request({ ":method": method, ":path": path, accept: "application/json", ...(body !== undefined ? { "content-type": "application/json" } : {}), ...o.headers });
    let headers: H2Response["headers"] = {};
    const chunks: Buffer[] = [];
    stream.on("response", (h) => (headers = h));
    stream.on("data", (c: Buffer) => chunks.push(c));
    stream.on("error", reject);
    stream.on("end", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      resolve({ status: Number(headers[":status"]), headers, body: text, json: <T>() => JSON.parse(text) as T });
    });
    stream.end(body);
  });
}

export interface H2Watch {
  stream: ClientHttp2Stream;
  /** Every event line so far, parsed. */
  events: { type: string; object: { metadata: { name: string; resourceVersion: string } } }[];
  /** Resolves with the response headers. */
  started: Promise<Record<string, string | string[] | undefined>>;
}

/** A watch as a stream of the session; lines are parsed as they come unless the caller pauses the stream. */
export function h2Watch(session: ClientHttp2Session, path: string): H2Watch {
  const stream = session.request({ ":method": "GET", ":path": path, accept: "application/json" });
  const events: H2Watch["events"] = [];
  let buf = "";
  stream.setEncoding("utf8");
  stream.on("data", (c: string) => {
    buf += c;
    for (let i = buf.indexOf("\n"); i >= 0; i = buf.indexOf("\n")) {
      events.push(JSON.parse(buf.slice(0, i)) as H2Watch["events"][number]);
      buf = buf.slice(i + 1);
    }
  });
  stream.on("error", () => {});
  const started = new Promise<Record<string, string | string[] | undefined>>((resolve, reject) => {
    stream.once("response", resolve);
    stream.once("close", () => reject(new Error(`watch ${path} closed before its response (code ${stream.rstCode})`)));
  });
  started.catch(() => {});
  return { stream, events, started };
}
