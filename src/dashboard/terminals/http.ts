// `POST /api/terminals` (docs/dashboard.md#terminals): `{method, params}` in, the method's result or
// a Kubernetes `Status` out. The user is whoever the garden says the bearer token belongs to; whether
// they are an operator is the garden's answer to a SelfSubjectAccessReview (`get` secrets everywhere).
import type { IncomingMessage, ServerResponse } from "node:http";
import { StatusError } from "../../apimachinery/errors.ts";
import { isAdmin, whoAmI } from "../identity.ts";

export { isAdmin };
import { listRecordings } from "../recordings/http.ts";
import type { RecordingStore } from "../recordings/store.ts";
import { writeStatus } from "../static.ts";
import type { TerminalService, User } from "./service.ts";

const MAX_BODY = 64 * 1024;
const METHODS = new Set(["create", "fetch", "list", "remove", "heartbeat", "config", "listRecordings"]);

function bearer(req: IncomingMessage): string | undefined {
  const m = /^Bearer ([^\s]{1,16384})$/.exec(String(req.headers.authorization ?? ""));
  return m?.[1];
}

function readBody(req: IncomingMessage): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY) {
        reject(new StatusError(413, "RequestEntityTooLarge", `the request body is larger than ${MAX_BODY} bytes`));
        req.destroy();
      } else chunks.push(c);
    });
    req.on("error", reject);
    req.on("end", () => {
      try {
        resolve(JSON.parse(Buffer.concat(chunks).toString("utf8")));
      } catch {
        reject(new StatusError(400, "BadRequest", "the body must be JSON: {\"method\": ..., \"params\": {...}}"));
      }
    });
  });
}

const NAME = /^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/;

/** Names end up in request paths: each must be a DNS name, or absent. */
function checkNames(params: Record<string, unknown>): void {
  const coordinate = (typeof params.coordinate === "object" && params.coordinate !== null ? params.coordinate : {}) as Record<string, unknown>;
  const named = { name: params.name, namespace: params.namespace, "coordinate.name": coordinate.name, "coordinate.namespace": coordinate.namespace, node: params.node };
  for (const [field, v] of Object.entries(named)) {
    if (v !== undefined && (typeof v !== "string" || !NAME.test(v))) throw new StatusError(422, "Invalid", `${field} must be a DNS name`);
  }
}

async function handle(api: { url: string; caPem?: string }, service: TerminalService, req: IncomingMessage, recordings?: RecordingStore): Promise<unknown> {
  if (req.method !== "POST") throw new StatusError(405, "MethodNotAllowed", `${req.method} is not allowed: POST {method, params}`);
  if (req.headers["x-requested-with"] !== "XMLHttpRequest") throw new StatusError(403, "Forbidden", "Request has been blocked by CSRF protection");
  const token = bearer(req);
  if (!token) throw new StatusError(401, "Unauthorized", "No authorization token was found");
  const body = (await readBody(req)) as { method?: unknown; params?: unknown } | null;
  const method = typeof body?.method === "string" ? body.method : "";
  const params = (typeof body?.params === "object" && body.params !== null ? body.params : {}) as Record<string, never>;
  checkNames(params);
  if (!METHODS.has(method)) throw new StatusError(422, "Invalid", `${method.slice(0, 64)} not allowed for terminals`);
  // Who the token belongs to and whether they are an operator: two questions to the garden, asked at once.
  const [who, admin] = await Promise.all([whoAmI(api, token), isAdmin(api, token).then((a) => ({ ok: true as const, a }), (err: unknown) => ({ ok: false as const, err }))]);
  if (who.kind === "error") throw new StatusError(who.code, who.reason as never, who.message);
  if (!admin.ok) throw admin.err;
  const user: User = { name: who.username, token, isAdmin: admin.a };
  switch (method) {
    case "create": return service.create(user, params as never);
    case "fetch": return service.fetch(user, params);
    case "list": return service.list(user, params);
    case "remove": return service.remove(user, params);
    case "heartbeat": return service.heartbeat(user, params);
    case "listRecordings": return listRecordings(recordings, user, params);
    default: return service.config(user);
  }
}

/** Answers one `/api/terminals` request; never a stack trace. */
export function serveTerminals(api: { url: string; caPem?: string }, service: TerminalService, req: IncomingMessage, res: ServerResponse, recordings?: RecordingStore): void {
  handle(api, service, req, recordings).then(
    (out) => {
      const text = JSON.stringify(out ?? {});
      res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(text), "cache-control": "no-store" });
      res.end(text);
    },
    (err: unknown) => {
      if (err instanceof StatusError) return writeStatus(res, err.code, err.reason, err.message);
      writeStatus(res, 500, "InternalError", "the terminal request failed");
    },
  );
}
