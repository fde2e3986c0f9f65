// `/api/terminals/attach/<namespace>/<name>` (docs/dashboard.md#attaching-to-a-terminal): the browser
// attaches to a Terminal's pod on its host cluster through the dashboard. Who may is decided from the
// garden's stored Terminal, read with the user's own token: its `gardener.cloud/created-by`
// annotation (set by the mutating webhook from the authenticated creator) must name the user the
// garden says the token belongs to. The attach itself uses a short-lived token of the Terminal's
// attach ServiceAccount, which never leaves the dashboard. Every session is recorded.
import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import type { WebSocket } from "ws";
import type { Terminal } from "../apis/dashboard/v1alpha1/types.ts";
import { StatusError } from "../apimachinery/errors.ts";
import { Terminals } from "../client/garden.ts";
import type { Clock } from "../utils/clock.ts";
import type { RecordingStore } from "./recordings/store.ts";
import { type RelayLimits, relay } from "./relay.ts";
import { clientFor } from "./terminals/hosts.ts";
import { ANNOTATION_IDENTIFIER, type TerminalService, creator } from "./terminals/service.ts";
import { type Admit, admitUser, reject, tokenFrom } from "./upgrade.ts";

export const ATTACH_PREFIX = "/api/terminals/attach/";
const NAMESPACE = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;
const NAME = /^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/;

export interface AttachContext {
  garden: { url: string; caPem?: string };
  terminals: TerminalService;
  recordings?: RecordingStore;
  limits: RelayLimits;
  clock: Clock;
  admit: Admit;
  /** Completes the WebSocket upgrade and runs the session on it; `end` runs once after it, or when the upgrade never completes. */
  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer, run: (ws: WebSocket) => Promise<void>, end: () => unknown): void;
}

function parsePath(url: URL): { namespace: string; name: string } | string {
  const parts = url.pathname.slice(ATTACH_PREFIX.length).split("/");
  if (parts.length !== 2) return `the path is ${ATTACH_PREFIX}<namespace>/<name>`;
  const [namespace = "", name = ""] = parts.map((p) => {
    try {
      return decodeURIComponent(p);
    } catch {
      return "";
    }
  });
  if (!NAMESPACE.test(namespace)) return "namespace must be a DNS label";
  if (!NAME.test(name)) return "name must be a DNS subdomain";
  const container = url.searchParams.get("container");
  if (container !== null && container !== "terminal") return "container must be terminal";
  return { namespace, name };
}

/** The Terminal read with the token (settled, so it may be read while the token's user is asked for). */
async function readTerminal(ctx: AttachContext, token: string, key: { namespace: string; name: string }): Promise<{ t: Terminal } | { err: unknown }> {
  const c = clientFor(ctx.garden, { token });
  try {
    return { t: await c.get(Terminals, key) };
  } catch (err) {
    return { err };
  } finally {
    c.close();
  }
}

/** The Terminal, read as the user, if it is theirs and ready; else the refusal. */
async function ownReadyTerminal(read: Promise<{ t: Terminal } | { err: unknown }>, user: string, key: { namespace: string; name: string }): Promise<Terminal> {
  const got = await read;
  if ("err" in got) throw got.err;
  const { t } = got;
  if (creator(t) !== user) throw new StatusError(403, "Forbidden", "You are not the user who created the terminal resource");
  if (!t.status?.podName || !t.status.attachServiceAccountName || t.metadata.deletionTimestamp) throw new StatusError(409, "Conflict", `Terminal ${key.name} is not ready`);
  return t;
}

export async function attachTerminal(ctx: AttachContext, req: IncomingMessage, socket: Duplex, head: Buffer, url: URL): Promise<void> {
  const key = parsePath(url);
  if (typeof key === "string") return reject(socket, 400, "BadRequest", key);
  // The Terminal is read with the token while the garden says whose token it is; it is used only once that
  // user is known and named by its created-by annotation.
  const offered = tokenFrom(req);
  const read = offered ? readTerminal(ctx, offered, key) : undefined;
  const admitted = await admitUser(req, socket, ctx.garden, ctx.admit);
  if (!admitted) return;
  const { token, user, release } = admitted;
  let handedOff = false;
  try {
    const t = await ownReadyTerminal(read ?? readTerminal(ctx, token, key), user, key);
    const host = await ctx.terminals.attachSessionFor({ name: user, token, isAdmin: false }, t);
    const hostNs = t.spec.host.namespace ?? "";
    const pod = t.status?.podName ?? "";
    const rec = await ctx.recordings?.start({
      namespace: key.namespace,
      terminal: { name: key.name, uid: t.metadata.uid, identifier: t.metadata.annotations?.[ANNOTATION_IDENTIFIER] },
      user,
      host: { namespace: hostNs, pod },
    }).catch(() => Promise.reject(new StatusError(503, "ServiceUnavailable", "the session cannot be recorded")));
    handedOff = true;
    const target = { namespace: hostNs, pod, container: "terminal", mode: "attach" as const, command: [] };
    const connected = rec ? { recording: { id: rec.meta.id, input: rec.meta.input } } : undefined;
    ctx.upgrade(req, socket, head, (ws) => relay(ws, { url: host.url, caPem: host.caPem, token: host.token }, target, ctx.limits, ctx.clock, { tap: rec, connected }), () => {
      release();
      return rec?.close();
    });
  } catch (err) {
    if (err instanceof StatusError && err.code >= 400 && err.code < 500) return reject(socket, err.code, err.reason || "BadRequest", err.message);
    if (err instanceof StatusError && err.code === 503) return reject(socket, 503, "ServiceUnavailable", err.message);
    return reject(socket, 503, "ServiceUnavailable", "the terminal's host cluster cannot be reached");
  } finally {
    if (!handedOff) release();
  }
}
