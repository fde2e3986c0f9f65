// A keep-alive HTTPS client for benchmarks, authenticated with the admin kubeconfig's certificate.
import { Agent, request } from "node:https";
import { readKubeconfig } from "../../test/support/kubeconfig.ts";

export interface BenchClient {
  call(method: string, path: string, body?: unknown, contentType?: string): Promise<{ status: number; json: Record<string, unknown> }>;
  /** Opens a watch stream; onLine gets each event line. Resolves once the response headers arrived. */
  watch(path: string, onLine: (line: string) => void): Promise<{ close(): void }>;
  close(): void;
}

export function benchClient(kubeconfig: string, maxSockets: number): BenchClient {
  const kc = readKubeconfig(kubeconfig);
  const url = new URL(kc.server);
  const agent = new Agent({ keepAlive: true, maxSockets, ca: kc.caPem, cert: kc.certPem, key: kc.keyPem });
  const watchAgent = new Agent({ keepAlive: false, maxSockets: Infinity, ca: kc.caPem, cert: kc.certPem, key: kc.keyPem });
  const base = { host: url.hostname, port: url.port };
  return {
    call: (method, path, body, contentType = "application/json") =>
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
            const text = Buffer.concat(chunks).toString("utf8");
            try {
              resolve({ status: res.statusCode ?? 0, json: JSON.parse(text) as Record<string, unknown> });
            } catch {
              reject(new Error(`${method} ${path}: ${res.statusCode} non-JSON body: ${text.slice(0, 200)}`));
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
      agent.destroy();
      watchAgent.destroy();
    },
  };
}

export function expectStatus(r: { status: number; json: Record<string, unknown> }, ok: number[], what: string): void {
  if (!ok.includes(r.status)) throw new Error(`${what}: HTTP ${r.status}: ${JSON.stringify(r.json).slice(0, 300)}`);
}
