// The frontend's read endpoints (docs/dashboard.md#reading-as-the-user): who the user is, the
// projects they may list and a project's shoots. Every answer is the garden's, asked with the
// user's own bearer token, with one exception: a member who may not list Projects gets the projects
// whose members name them, read with the dashboard's own read-only credential (src/dashboard/projects.ts),
// as upstream's dashboard does. Answers are reduced to what the pages show and bounded in count.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Project, Shoot } from "../apis/gardencore/v1beta1/types.ts";
import { StatusError } from "../apimachinery/errors.ts";
import type { Client } from "../client/client.ts";
import { Projects, Shoots } from "../client/garden.ts";
import { memberProjects } from "./projects.ts";
import { writeStatus } from "./static.ts";
import { clientFor } from "./terminals/hosts.ts";
import { isAdmin } from "./terminals/http.ts";

type Api = { url: string; caPem?: string };

/** At most this many projects or shoots per answer; `truncated` says when there were more. */
export const MAX_ITEMS = 500;
const NAME = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

function bearer(req: IncomingMessage): string | undefined {
  return /^Bearer ([^\s]{1,16384})$/.exec(String(req.headers.authorization ?? ""))?.[1];
}

async function as<R>(api: Api, token: string, fn: (c: Client) => Promise<R>): Promise<R> {
  const c = clientFor(api, { token });
  try {
    return await fn(c);
  } finally {
    c.close();
  }
}

interface Review {
  status?: { userInfo?: { username?: string; groups?: string[] } };
}

async function user(api: Api, token: string, admin = true) {
  const review = await as(api, token, (c) => c.transport.request<Review>({
    method: "POST",
    path: "/apis/authentication.k8s.io/v1/selfsubjectreviews",
    body: { apiVersion: "authentication.k8s.io/v1", kind: "SelfSubjectReview" },
    timeoutMs: 10_000,
  }));
  const info = review.status?.userInfo;
  if (!info?.username) throw new StatusError(502, "InternalError", "the garden did not name the user");
  return { username: info.username, groups: (info.groups ?? []).slice(0, 100), isAdmin: admin ? await isAdmin(api, token) : false };
}

function project(p: Project) {
  return { name: p.metadata.name ?? "", namespace: p.spec?.namespace ?? "", phase: p.status?.phase ?? "", description: (p.spec?.description ?? "").slice(0, 1024) };
}

/**
 * Projects the user may list; a user who may not list them gets the projects whose members name them
 * (`membership: true`) when the dashboard has its own garden client, else `allowed: false` and no items.
 */
async function projects(api: Api, token: string, own?: Client) {
  const sorted = (items: Project[]) => items.map(project).sort((a, b) => a.name.localeCompare(b.name));
  try {
    const list = await as(api, token, (c) => c.list(Projects, { limit: MAX_ITEMS, timeoutMs: 10_000 }));
    return { allowed: true, items: sorted(list.items), truncated: Boolean(list.metadata?.continue) };
  } catch (err) {
    if (!(err instanceof StatusError && err.code === 403)) throw err;
  }
  if (!own) return { allowed: false, items: [], truncated: false };
  const who = await user(api, token, false);
  const mine = await memberProjects(own, { username: who.username, groups: who.groups }, MAX_ITEMS);
  return { allowed: true, membership: true, items: sorted(mine.items), truncated: mine.truncated };
}

/** At most this many conditions per shoot, and this many characters of a message or description. */
const MAX_CONDITIONS = 20;
const MAX_TEXT = 512;
const text = (v: unknown) => (typeof v === "string" ? v.slice(0, MAX_TEXT) : "");

/** What the Shoots page shows of a Shoot: Gardener's dashboard's version, status and readiness inputs. */
function shoot(s: Shoot) {
  const status = s.status ?? {};
  const op = status.lastOperation as { type?: unknown; state?: unknown; progress?: unknown; description?: unknown } | undefined;
  const conditions = Array.isArray(status.conditions) ? status.conditions.slice(0, MAX_CONDITIONS) : [];
  const ignore = s.metadata.annotations?.["shoot.gardener.cloud/ignore"] ?? "";
  return {
    name: s.metadata.name ?? "",
    namespace: s.metadata.namespace ?? "",
    seedName: s.spec.seedName ?? status.seedName ?? "",
    kubernetesVersion: s.spec.kubernetes?.version ?? "",
    workers: (s.spec.provider?.workers ?? []).length,
    hibernated: s.spec.hibernation?.enabled === true,
    statusHibernated: status.hibernated === true,
    reconciliationDeactivated: ["1", "t", "T", "true", "TRUE", "True"].includes(ignore),
    technicalID: status.technicalID ?? "",
    lastOperation: op ? { type: text(op.type), state: text(op.state), progress: typeof op.progress === "number" ? op.progress : 0, description: text(op.description) } : undefined,
    lastErrors: Array.isArray(status.lastErrors) ? status.lastErrors.length : 0,
    conditions: conditions.map((c) => ({ type: text(c.type), status: text(c.status), reason: text(c.reason), message: text(c.message) })),
    createdAt: s.metadata.creationTimestamp ?? "",
  };
}

async function shoots(api: Api, token: string, namespace: string) {
  const list = await as(api, token, (c) => c.list(Shoots, { namespace, limit: MAX_ITEMS, timeoutMs: 10_000 }));
  return { items: list.items.map(shoot).sort((a, b) => a.name.localeCompare(b.name)), truncated: Boolean(list.metadata?.continue) };
}

/** The route of a read request, or undefined when the path is none of this file's. */
function route(path: string): { kind: "user" } | { kind: "projects" } | { kind: "shoots"; namespace: string } | undefined {
  if (path === "/api/user") return { kind: "user" };
  if (path === "/api/projects") return { kind: "projects" };
  const m = /^\/api\/namespaces\/([^/]*)\/shoots$/.exec(path);
  if (!m) return undefined;
  let namespace = "";
  try {
    namespace = decodeURIComponent(m[1] ?? "");
  } catch {
    /* checked below */
  }
  if (!NAME.test(namespace)) throw new StatusError(400, "BadRequest", "the namespace must be a DNS label");
  return { kind: "shoots", namespace };
}

export function isBrowsePath(path: string): boolean {
  return path === "/api/user" || path === "/api/projects" || /^\/api\/namespaces\/[^/]*\/shoots$/.test(path);
}

async function handle(api: Api, req: IncomingMessage, path: string, own?: Client): Promise<unknown> {
  if (req.method !== "GET") throw new StatusError(405, "MethodNotAllowed", `${req.method} is not allowed: GET`);
  const r = route(path);
  if (!r) throw new StatusError(404, "NotFound", `${path} not found`);
  const token = bearer(req);
  if (!token) throw new StatusError(401, "Unauthorized", "No authorization token was found");
  if (r.kind === "user") return user(api, token);
  if (r.kind === "projects") return projects(api, token, own);
  return shoots(api, token, r.namespace);
}

/** Answers `GET /api/user`, `/api/projects` and `/api/namespaces/<ns>/shoots`; errors are `Status` objects. */
export function serveBrowse(api: Api, req: IncomingMessage, res: ServerResponse, path: string, own?: Client): void {
  handle(api, req, path, own).then(
    (out) => {
      const text = JSON.stringify(out);
      res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(text), "cache-control": "no-store" });
      res.end(text);
    },
    (err: unknown) => {
      if (err instanceof StatusError) return writeStatus(res, err.code, err.reason, err.message);
      writeStatus(res, 503, "ServiceUnavailable", "the garden could not be reached");
    },
  );
}
