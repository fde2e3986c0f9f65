// One webhook call (docs/admission-webhooks.md#the-call): POST an admission.k8s.io/v1
// AdmissionReview over HTTPS, trusting only the configuration's caBundle (the system roots when
// none), within timeoutSeconds, reading at most MAX_RESPONSE_BYTES, and checking the answer's
// apiVersion, kind and uid. Any failure is a CallError: the failure policy decides. With a dialer (the
// egress selector's `cluster`, for webhooks served in the cluster) the connection is opened through it
// and TLS runs inside, verified the same way.
import { Agent, request } from "node:https";
import type { Duplex } from "node:stream";
import { connect as tlsConnect } from "node:tls";
import type { Dialer } from "../../egressselector/egressselector.ts";
import type { AdmissionRequest, AdmissionResponse, AdmissionReview } from "../../../apis/admission/v1/types.ts";
import { API_VERSION } from "../../../apis/admission/v1/types.ts";
import type { WebhookTarget } from "./resolve.ts";

/** The largest AdmissionReview answer read (a patch of a 3 MiB object fits). */
export const MAX_RESPONSE_BYTES = 4 * 1024 * 1024;

/** A call that failed (connect, TLS, timeout, status, body, uid): the failure policy applies. */
export class CallError extends Error {}

export interface CallOptions {
  target: WebhookTarget;
  /** PEM; undefined: the system's roots. */
  ca: string | undefined;
  timeoutMs: number;
  maxResponseBytes?: number;
  /** Opens the connection (the egress proxy); undefined: direct. */
  dial?: Dialer;
}

export async function callWebhook(opts: CallOptions, review: AdmissionRequest): Promise<AdmissionResponse> {
  const body = JSON.stringify({ apiVersion: API_VERSION, kind: "AdmissionReview", request: review } satisfies AdmissionReview);
  const post = `Post "${opts.target.url}?timeout=${Math.round(opts.timeoutMs / 1000)}s"`;
  let text: string;
  try {
    text = await post_(opts, body);
  } catch (err) {
    throw new CallError(`failed to call webhook: ${post}: ${(err as Error).message}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new CallError("received invalid webhook response: the body is not JSON");
  }
  const r = parsed as AdmissionReview | null;
  if (!r || typeof r !== "object" || r.kind !== "AdmissionReview" || r.apiVersion !== API_VERSION) {
    throw new CallError(`received invalid webhook response: expected ${API_VERSION}, Kind=AdmissionReview`);
  }
  const resp = r.response;
  if (!resp || typeof resp !== "object") throw new CallError("received invalid webhook response: webhook response was absent");
  if (resp.uid !== review.uid) throw new CallError(`expected response.uid="${review.uid}", got "${String(resp.uid)}"`);
  if (typeof resp.allowed !== "boolean") throw new CallError("received invalid webhook response: response.allowed is not a boolean");
  return resp;
}

const isAddress = (name: string) => /^[\d.]+$|:/.test(name);

/** The dialer's stream within the call's deadline; a stream that arrives too late is closed. */
function dialWithin(dial: Dialer, host: string, port: number, signal: AbortSignal): Promise<Duplex> {
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(new Error("context deadline exceeded"));
    signal.addEventListener("abort", onAbort, { once: true });
    dial(host, port).then(
      (s) => {
        signal.removeEventListener("abort", onAbort);
        if (signal.aborted) s.destroy();
        else resolve(s);
      },
      (err: Error) => {
        signal.removeEventListener("abort", onAbort);
        reject(err);
      },
    );
  });
}

/**
 * Direct calls keep their connections open between calls, as kube-apiserver's cached webhook transports
 * do: a create of a Terminal and its controller's first update each call two webhooks, and a TLS
 * handshake per call cost both sides CPU and a round trip. Node's agent keeps a pool per host, port,
 * servername and CA, so a connection is only reused for the same trust. Idle connections are closed
 * after 4 s, before a Node server's default 5 s keep-alive timeout closes them under a request.
 */
const keepAlive = new Agent({ keepAlive: true, timeout: 4_000, maxFreeSockets: 16, scheduling: "lifo" });

async function post_(opts: CallOptions, body: string): Promise<string> {
  const signal = AbortSignal.timeout(opts.timeoutMs);
  try {
    return await postOnce(opts, body, signal);
  } catch (err) {
    // A kept connection the server closed just as it was reused: nothing reached the webhook, send again.
    if (!(err instanceof ReusedSocketReset)) throw err;
    return postOnce(opts, body, signal);
  }
}

class ReusedSocketReset extends Error {}

async function postOnce(opts: CallOptions, body: string, signal: AbortSignal): Promise<string> {
  const limit = opts.maxResponseBytes ?? MAX_RESPONSE_BYTES;
  const t = opts.target;
  const servername = isAddress(t.servername) ? undefined : t.servername;
  const raw = opts.dial ? await dialWithin(opts.dial, t.host, t.port, signal) : undefined;
  const connection = raw ? { createConnection: () => tlsConnect({ socket: raw, host: t.host, servername, ...(opts.ca ? { ca: opts.ca } : {}) }) } : { agent: keepAlive };
  return new Promise((resolve, reject) => {
    const req = request(
      {
        method: "POST",
        host: t.host,
        port: t.port,
        path: `${t.path}${t.path.includes("?") ? "&" : "?"}timeout=${Math.round(opts.timeoutMs / 1000)}s`,
        servername,
        ...(opts.ca ? { ca: opts.ca } : {}),
        ...connection,
        headers: { "content-type": "application/json", accept: "application/json", "content-length": Buffer.byteLength(body) },
        signal,
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on("data", (c: Buffer) => {
          size += c.length;
          if (size > limit) {
            req.destroy(new Error(`the response is larger than ${limit} bytes`));
            return;
          }
          chunks.push(c);
        });
        res.on("end", () => {
          if (res.statusCode !== 200) reject(new Error(`the server responded with status ${res.statusCode}`));
          else resolve(Buffer.concat(chunks).toString("utf8"));
        });
        res.on("error", reject);
      },
    );
    req.on("error", (err: Error) => {
      if (req.reusedSocket && (err as NodeJS.ErrnoException).code === "ECONNRESET" && !signal.aborted) return reject(new ReusedSocketReset(err.message));
      reject(err.name === "AbortError" ? new Error("context deadline exceeded") : err);
    });
    req.end(body);
  });
}
