// The dashboard backend: serves the built frontend and, at /api/terminal/attach, relays a terminal
// between the browser and a pod. It acts as the user: the browser's bearer token is what it presents
// to the API server, which decides (authentication and RBAC on pods/attach, pods/exec). See
// docs/dashboard.md.
import { createServer as createHttpServer, type IncomingMessage, type Server } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import type { Duplex } from "node:stream";
import { WebSocketServer, type WebSocket } from "ws";
import type { Client } from "../client/client.ts";
import { realClock, type Clock } from "../utils/clock.ts";
import { isBrowsePath, serveBrowse } from "./browse.ts";
import { relay, type RelayLimits, type Target } from "./relay.ts";
import { RECORDINGS_PREFIX, serveRecording } from "./recordings/http.ts";
import { type RecordingOptions, RecordingStore } from "./recordings/store.ts";
import { serveStatic, writeStatus } from "./static.ts";
import { ATTACH_PREFIX, attachTerminal } from "./terminal-attach.ts";
import { type TerminalConfig, terminalConfig } from "./terminals/config.ts";
import { serveTerminals } from "./terminals/http.ts";
import { type HostResolver, userHosts } from "./terminals/hosts.ts";
import { TerminalService } from "./terminals/service.ts";

import { TERMINAL_PROTOCOL, TOKEN_PROTOCOL_PREFIX, admitUser, originAllowed, reject } from "./upgrade.ts";
import { trackConnections } from "../utils/connections.ts";

export { TERMINAL_PROTOCOL, TOKEN_PROTOCOL_PREFIX };

export interface DashboardOptions {
  /** The API server the terminals' pods live on, and the CA that signed its serving certificate. */
  apiServer: { url: string; caPem?: string };
  /** The built frontend (src/dashboard/web/dist). */
  webRoot: string;
  address?: string;
  port?: number;
  /** HTTPS when given; plain HTTP only on loopback. */
  tls?: { certPem: string; keyPem: string };
  limits?: Partial<RelayLimits & { sessionsPerUser: number }>;
  clock?: Clock;
  /** `POST /api/terminals` (docs/dashboard.md#terminals); the garden is `apiServer`. */
  terminals?: { config?: Partial<Omit<TerminalConfig, "garden">>; hosts?: HostResolver };
  /**
   * The dashboard's own read-only garden client, used only to list Projects for members who may not
   * (docs/dashboard.md#reading-as-the-user); without it they open projects by namespace.
   */
  projectReader?: Client;
  /** Where sessions are recorded (docs/dashboard.md#recordings); without it nothing is recorded. */
  recordings?: RecordingOptions;
}

export interface Dashboard {
  url: string;
  /** Open sessions per user name. */
  sessions(): Map<string, number>;
  close(): Promise<void>;
}

const NAME = /^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/;

function parseTarget(url: URL): Target | string {
  const namespace = url.searchParams.get("namespace") ?? "";
  const pod = url.searchParams.get("pod") ?? "";
  const container = url.searchParams.get("container") ?? undefined;
  const mode = url.searchParams.get("mode") ?? "attach";
  if (!NAME.test(namespace) || namespace.length > 63) return "namespace must be a DNS label";
  if (!NAME.test(pod)) return "pod must be a DNS subdomain";
  if (container !== undefined && (!NAME.test(container) || container.length > 63)) return "container must be a DNS label";
  if (mode !== "attach" && mode !== "exec") return "mode must be attach or exec";
  const command = url.searchParams.getAll("command");
  if (command.length > 32 || command.some((c) => c.length > 1024)) return "command is too long";
  return { namespace, pod, container, mode, command: command.length ? command : ["sh"] };
}

export async function startDashboard(opts: DashboardOptions): Promise<Dashboard> {
  const limits = { maxMessageBytes: 64 * 1024, idleMs: 30 * 60_000, sessionsPerUser: 5, ...opts.limits };
  const clock = opts.clock ?? realClock;
  const address = opts.address ?? "127.0.0.1";
  if (!opts.tls && address !== "127.0.0.1" && address !== "::1") throw new Error("plain HTTP is only served on loopback; give a TLS certificate");
  const sessions = new Map<string, number>();
  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: limits.maxMessageBytes,
    handleProtocols: (protocols) => (protocols.has(TERMINAL_PROTOCOL) ? TERMINAL_PROTOCOL : false),
  });
  const recordings = opts.recordings ? new RecordingStore(opts.recordings, clock) : undefined;
  const terminals = new TerminalService(terminalConfig({ ...opts.terminals?.config, garden: opts.apiServer }), opts.terminals?.hosts ?? userHosts(opts.apiServer, clock), clock);
  const onRequest = (req: IncomingMessage, res: import("node:http").ServerResponse) => {
    const path = req.url?.split("?")[0] ?? "/";
    if (path === "/api/terminals") return serveTerminals(opts.apiServer, terminals, req, res, recordings);
    if (path.startsWith(RECORDINGS_PREFIX)) return serveRecording(opts.apiServer, recordings, req, res);
    if (isBrowsePath(path)) return serveBrowse(opts.apiServer, req, res, path, opts.projectReader);
    if (path.startsWith("/api/")) return writeStatus(res, 404, "NotFound", `${path.slice(0, 200)} not found`);
    serveStatic(opts.webRoot, req, res).catch(() => writeStatus(res, 500, "InternalError", "cannot read the frontend"));
  };
  const server: Server = opts.tls ? createHttpsServer({ cert: opts.tls.certPem, key: opts.tls.keyPem }, onRequest) : createHttpServer(onRequest);
  const connections = trackConnections(server);
  const sockets = new Set<WebSocket>();
  const ending = new Set<Promise<unknown>>();

  /** One of the user's session slots, or why not. */
  const admit = (user: string): (() => void) | string => {
    const open = sessions.get(user) ?? 0;
    if (open >= limits.sessionsPerUser) return `user ${user} already has ${open} open terminal sessions (at most ${limits.sessionsPerUser})`;
    sessions.set(user, open + 1);
    return () => {
      const n = (sessions.get(user) ?? 1) - 1;
      if (n > 0) sessions.set(user, n);
      else sessions.delete(user);
    };
  };
  /** Runs the session once upgraded; `end` (the slot, the recording) runs once after it, or when the browser went away before the upgrade completed. */
  const upgrade = (req: IncomingMessage, socket: Duplex, head: Buffer, run: (ws: WebSocket) => Promise<unknown>, end: () => unknown) => {
    let upgraded = false;
    socket.once("close", () => void (upgraded || end()));
    wss.handleUpgrade(req, socket, head, (ws) => {
      upgraded = true;
      sockets.add(ws);
      const session = run(ws).catch(() => undefined).finally(() => {
        sockets.delete(ws);
        ending.delete(session);
        return end();
      });
      ending.add(session);
    });
  };
  const attachCtx = { garden: opts.apiServer, terminals, recordings, limits, clock, admit, upgrade };

  /** /api/terminal/attach: a pod the browser names, as the user. */
  const attachPod = async (req: IncomingMessage, socket: Duplex, head: Buffer, url: URL) => {
    const target = parseTarget(url);
    if (typeof target === "string") return reject(socket, 400, "BadRequest", target);
    const admitted = await admitUser(req, socket, opts.apiServer, admit);
    if (!admitted) return;
    const { token, user, release } = admitted;
    const rec = await recordings?.start({ namespace: target.namespace, user, host: { namespace: target.namespace, pod: target.pod } }).catch(() => null);
    if (rec === null) {
      release();
      return reject(socket, 503, "ServiceUnavailable", "the session cannot be recorded");
    }
    const connected = rec ? { recording: { id: rec.meta.id, input: rec.meta.input } } : undefined;
    upgrade(req, socket, head, (ws) => relay(ws, { ...opts.apiServer, token }, target, limits, clock, { tap: rec, connected }), () => {
      release();
      return rec?.close();
    });
  };

  server.on("upgrade", (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    // every upgrade path, before the path is even parsed: a page of another origin gets nothing
    if (!originAllowed(req)) return reject(socket, 403, "Forbidden", "Origin not allowed");
    const url = new URL(req.url ?? "/", "http://x");
    const run = url.pathname === "/api/terminal/attach" ? attachPod(req, socket, head, url)
      : url.pathname.startsWith(ATTACH_PREFIX) ? attachTerminal(attachCtx, req, socket, head, url)
      : Promise.resolve(reject(socket, 404, "NotFound", `${url.pathname.slice(0, 200)} not found`));
    run.catch(() => reject(socket, 500, "InternalError", "the terminal could not be opened"));
  });

  await new Promise<void>((resolve, rejectListen) => {
    server.once("error", rejectListen);
    server.listen(opts.port ?? 0, address, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const host = address.includes(":") ? `[${address}]` : address;
  return {
    url: `${opts.tls ? "https" : "http"}://${host}:${port}`,
    sessions: () => new Map(sessions),
    async close() {
      for (const ws of sockets) ws.terminate();
      await Promise.all([...ending]);
      wss.close();
      await connections.close();
    },
  };
}
