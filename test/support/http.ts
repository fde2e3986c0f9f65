// A small raw HTTPS client for tests that must control bytes on the wire (bad input, fuzzing)
// and see every status code, header and body exactly as the server sent them.
import { Agent, request as httpsRequest } from "node:https";
import { readKubeconfig } from "./kubeconfig.ts";

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  /** The body parsed as JSON; throws with the raw body when it is not JSON. */
  json<T = unknown>(): T;
}

export interface RawRequest {
  method?: string;
  path: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Abort (and reject) after this long; default 15 s. */
  timeoutMs?: number;
  /** Send the body with Transfer-Encoding: chunked (no Content-Length), in 64 KiB pieces. */
  chunked?: boolean;
}

export interface RawClient {
  request(req: RawRequest): Promise<RawResponse>;
  close(): void;
}

/**
 * A client authenticated as the kubeconfig's user (client certificate or bearer token);
 * with `anonymous` it trusts the kubeconfig's CA but sends no credentials.
 */
export function rawClient(kubeconfigPath: string, opts: { anonymous?: boolean; maxSockets?: number } = {}): RawClient {
  const kc = readKubeconfig(kubeconfigPath);
  const base = new URL(kc.server);
  const creds = opts.anonymous ? {} : { cert: kc.certPem, key: kc.keyPem };
  const agent = new Agent({ keepAlive: true, maxSockets: opts.maxSockets ?? 8, ca: kc.caPem, ...creds });
  const auth: Record<string, string> = kc.token && !opts.anonymous ? { authorization: `Bearer ${kc.token}` } : {};
  return {
    request: (req) =>
      new Promise<RawResponse>((resolve, reject) => {
        const body = req.body === undefined ? undefined : Buffer.isBuffer(req.body) ? req.body : Buffer.from(req.body, "utf8");
        const headers: Record<string, string> = { accept: "application/json", ...auth, ...req.headers };
        if (body && !req.chunked) headers["content-length"] = String(body.length);
        const timeoutMs = req.timeoutMs ?? 15_000;
        const r = httpsRequest(
          { agent, host: base.hostname, port: base.port, method: req.method ?? "GET", path: req.path, headers },
          (res) => {
            const chunks: Buffer[] = [];
            res.on("data", (c: Buffer) => chunks.push(c));
            res.on("error", reject);
            res.on("end", () => {
              clearTimeout(timer);
              const text = Buffer.concat(chunks).toString("utf8");
              resolve({
                status: res.statusCode ?? 0,
                headers: res.headers,
                body: text,
                json: <T>() => {
                  try {
                    return JSON.parse(text) as T;
                  } catch {
                    throw new Error(`${req.method ?? "GET"} ${req.path}: body is not JSON (status ${res.statusCode}): ${text.slice(0, 500)}`);
                  }
                },
              });
            });
          },
        );
        const timer = setTimeout(() => {
          r.destroy(new Error(`${req.method ?? "GET"} ${req.path}: no complete answer within ${timeoutMs} ms`));
        }, timeoutMs);
        r.on("error", (e) => {
          clearTimeout(timer);
          reject(e);
        });
        if (body && req.chunked) {
          for (let i = 0; i < body.length; i += 65536) r.write(body.subarray(i, i + 65536));
          r.end();
        } else {
          r.end(body);
        }
      }),
    close: () => agent.destroy(),
  };
}

/** Polls `fn` until it returns a value other than undefined; rejects after `timeoutMs`. */
export async function eventually<T>(what: string, fn: () => Promise<T | undefined> | T | undefined, timeoutMs = 15_000, everyMs = 50): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastErr: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v !== undefined) return v;
    } catch (e) {
      lastErr = e;
    }
    if (Date.now() > deadline) {
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${lastErr ? `: ${String(lastErr)}` : ""}`);
    }
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
