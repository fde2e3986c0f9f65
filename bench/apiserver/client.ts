// A keep-alive HTTPS client for benchmarks, authenticated with the admin kubeconfig's certificate:
// HTTP/1.1 (one connection per client in flight) or HTTP/2 (one session per `clientsPerSession`
// clients, each request a stream: client-go's one connection). Watches always use HTTP/1.1
// connections of their own (hundreds of them would pass a session's stream limit).
import { type ClientHttp2Session, connect } from "node:http2";
import { Agent, request } from "node:https";
import { readKubeconfig } from "../../test/support/kubeconfig.ts";

export interface BenchClient {
  call(method: string, path: string, body?: unknown, contentType?: string): Promise<{ status: number; json: Record<string, unknown> }>;
  /** Opens a watch stream; onLine gets each event line. Resolves once the response headers arrived. */
  watch(path: string, onLine: (line: string) => void): Promise<{ close(): void }>;
  close(): void;
}

export type Protocol = "http/1.1" | "h2";

export interface BenchClientOptions {
  protocol?: Protocol;
  /** h2: clients sharing one session (default: all of them, one connection). */
  clientsPerSession?: number;
}

type Reply = { status: number; json: Record<string, unknown> };

function parseReply(method: string, path: string, status: number, chunks: Buffer[]): Reply {
  const text = Buffer.concat(chunks).toString("utf8");
  try {
    return { status, json: JSON.parse(text) as Record<string, unknown> };
  } catch {
    throw new Error(`${method} ${path}: ${status} non-JSON body: ${text.slice(0, 200)}`);
  }
}

/** Where an HTTP/2 caller connects: the server, its CA, and the client certificate when the server asks for one. */
export interface H2Target {
  server: string;
  caPem: string;
  certPem?: string;
  keyPem?: string;
}

/** Requests as streams of `sessions` HTTP/2 sessions, taken in turn. */
export function h2Caller(kc: H2Target, sessions: number): { call: BenchClient["call"]; close(): void } {
  const open: ClientHttp2Session[] = [];
  for (let i = 0; i < sessions; i++) {
    const s = connect(kc.server, { ca: kc.caPem, cert: kc.certPem, key: kc.keyPem });
    s.on("error", () => undefined);
    open.push(s);
  }
  let next = 0;
  return {
    call: (method, path, body, contentType = "application/json") =>
      new Promise((resolve, reject) => {
        const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
        const headers: Record<string, string> = { ":method": method, ":path": path, accept: "application/json" };
        if (payload) {
          headers["content-type"] = contentType;
          headers["content-length"] = String(payload.length);
        }
        const stream = open[next++ % open.length]!.request(headers, { endStream: !payload });
        let status = 0;
        const chunks: Buffer[] = [];
        stream.on("response", (h) => (status = Number(h[":status"])));
        stream.on("data", (c: Buffer) => chunks.push(c));
        stream.on("end", () => {
          try {
            resolve(parseReply(method, path, status, chunks));
          } catch (err) {
            reject(err as Error);
          }
        });
        stream.on("error", reject);
        if (payload) stream.end(payload);
      }),
    close: () => {
      for (const s of open) s.close();
    },
  };
}

export function benchClient(kubeconfig: string, maxSockets: number, o: BenchClientOptions = {}): BenchClient {
  const kc = readKubeconfig(kubeconfig);
  const url = new URL(kc.server);
  const agent = new Agent({ keepAlive: true, maxSockets, ca: kc.caPem, cert: kc.certPem, key: kc.keyPem });
  const watchAgent = new Agent({ keepAlive: false, maxSockets: Infinity, ca: kc.caPem, cert: kc.certPem, key: kc.keyPem });
  const base = { host: url.hostname, port: url.port };
  const h2 = o.protocol === "h2" ? h2Caller(kc, Math.ceil(maxSockets / Math.max(1, o.clientsPerSession ?? maxSockets))) : undefined;
  return {
    call: h2
      ? h2.call
      : (method, path, body, contentType = "application/json") =>
      new Promise((resolve, reject) => {
        const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
        const headers: Record<string, string> = { accept: "application/json" };
        if (payload) {
          headers["content-type"] = contentType;
          headers["content-length"] = String(payload.length);
        }
        const req = request({ ...base, agent, method, path, headers }, (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (c: Buffer) => chunks.push(c));
          res.on("end", () => {
            try {
              resolve(parseReply(method, path, res.statusCode ?? 0, chunks));
            } catch (err) {
              reject(err as Error);
            }
          });
          res.on("error", reject);
        });
        req.on("error", reject);
        req.end(payload);
      }),
    watch: (path, onLine) =>
      new Promise((resolve, reject) => {
        const req = request({ ...base, agent: watchAgent, method: "GET", path, headers: { accept: "application/json" } }, (res) => {
          if (res.statusCode !== 200) return reject(new Error(`watch ${path}: ${res.statusCode}`));
          let buf = "";
          res.setEncoding("utf8");
          res.on("data", (chunk: string) => {
            buf += chunk;
            let nl: number;
            while ((nl = buf.indexOf("\n")) >= 0) {
              onLine(buf.slice(0, nl));
              buf = buf.slice(nl + 1);
            }
          });
          res.on("error", () => undefined);
          resolve({ close: () => req.destroy() });
        });
        req.on("error", (e) => reject(e));
        req.end();
      }),
    close: () => {
      h2?.close();
      agent.destroy();
      watchAgent.destroy();
    },
  };
}

export function expectStatus(r: { status: number; json: Record<string, unknown> }, ok: number[], what: string): void {
  if (!ok.includes(r.status)) throw new Error(`${what}: HTTP ${r.status}: ${JSON.stringify(r.json).slice(0, 300)}`);
}
