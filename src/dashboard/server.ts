// The dashboard backend: serves the built frontend and, at /api/terminal/attach, relays a terminal
// between the browser and a pod. It acts as the user: the browser's bearer token is what it presents
// to the API server, which decides (authentication and RBAC on pods/attach, pods/exec). See
// docs/dashboard.md.
import { createServer as createHttpServer, type IncomingMessage, type Server } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import type { Duplex } from "node:stream";
import { WebSocketServer, type WebSocket } from "ws";
import { realClock, type Clock } from "../utils/clock.ts";
import { isBrowsePath, serveBrowse } from "./browse.ts";
import { whoAmI } from "./identity.ts";
import { relay, type RelayLimits, type Target } from "./relay.ts";
import { serveStatic, writeStatus } from "./static.ts";
import { type TerminalConfig, terminalConfig } from "./terminals/config.ts";
import { serveTerminals } from "./terminals/http.ts";
import { type HostResolver, TerminalService, adminKubeconfigHosts } from "./terminals/service.ts";

export const TOKEN_PROTOCOL_PREFIX = "base64url.bearer.authorization.k8s.io.";
export const TERMINAL_PROTOCOL = "terminal.dashboard.gardener.cloud";

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
}

export interface Dashboard {
  url: string;
  /** Open sessions per user name. */
  sessions(): Map<string, number>;
  close(): Promise<void>;
}

const NAME = /^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/;

function reject(socket: Duplex, code: number, reason: string, message: string): void {
  const body = JSON.stringify({ kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", reason, message, code });
  socket.end(`HTTP/1.1 ${code} ${reason}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`);
}

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

function tokenFrom(req: IncomingMessage): string | undefined {
  const offered = String(req.headers["sec-websocket-protocol"] ?? "").split(",").map((p) => p.trim());
  const entry = offered.find((p) => p.startsWith(TOKEN_PROTOCOL_PREFIX));
  if (!entry) return undefined;
  const token = Buffer.from(entry.slice(TOKEN_PROTOCOL_PREFIX.length), "base64url").toString("utf8");
  return token.length > 0 && token.length <= 16 * 1024 && !/[\s]/.test(token) ? token : undefined;
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
  const terminals = new TerminalService(terminalConfig({ ...opts.terminals?.config, garden: opts.apiServer }), opts.terminals?.hosts ?? adminKubeconfigHosts(opts.apiServer), clock);
  const onRequest = (req: IncomingMessage, res: import("node:http").ServerResponse) => {
    const path = req.url?.split("?")[0] ?? "/";
    if (path === "/api/terminals") return serveTerminals(opts.apiServer, terminals, req, res);
    if (isBrowsePath(path)) return serveBrowse(opts.apiServer, req, res, path);
    if (req.url?.startsWith("/api/")) return writeStatus(res, 404, "NotFound", "the terminal endpoint is a WebSocket: /api/terminal/attach");
    serveStatic(opts.webRoot, req, res).catch(() => writeStatus(res, 500, "InternalError", "cannot read the frontend"));
  };
  const server: Server = opts.tls ? createHttpsServer({ cert: opts.tls.certPem, key: opts.tls.keyPem }, onRequest) : createHttpServer(onRequest);
  const sockets = new Set<WebSocket>();

  server.on("upgrade", (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    void (async () => {
      const url = new URL(req.url ?? "/", "http://x");
      if (url.pathname !== "/api/terminal/attach") return reject(socket, 404, "NotFound", `${url.pathname} not found`);
      const target = parseTarget(url);
      if (typeof target === "string") return reject(socket, 400, "BadRequest", target);
      const token = tokenFrom(req);
      if (!token) return reject(socket, 401, "Unauthorized", `a bearer token is required (WebSocket subprotocol ${TOKEN_PROTOCOL_PREFIX}<base64url token>)`);
      const who = await whoAmI(opts.apiServer, token);
      if (who.kind === "error") return reject(socket, who.code, who.reason, who.message);
      const user = who.username;
      const open = sessions.get(user) ?? 0;
      if (open >= limits.sessionsPerUser) return reject(socket, 429, "TooManyRequests", `user ${user} already has ${open} open terminal sessions (at most ${limits.sessionsPerUser})`);
      sessions.set(user, open + 1);
      wss.handleUpgrade(req, socket, head, (ws) => {
        sockets.add(ws);
        void relay(ws, { ...opts.apiServer, token }, target, limits, clock).finally(() => {
          sockets.delete(ws);
          const n = (sessions.get(user) ?? 1) - 1;
          if (n > 0) sessions.set(user, n);
          else sessions.delete(user);
        });
      });
    })().catch(() => reject(socket, 500, "InternalError", "the terminal could not be opened"));
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
      wss.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
