// HTTP upgrades: watch over WebSocket (one JSON event per message) and connect-style
// subresources (pods/exec, pods/attach), which get the raw request, socket and head after
// authentication and authorization. Browsers' bearer token subprotocol is read by the bearer
// authenticator and stripped before the handshake (docs/kubernetes-api.md#websocket-upgrades). Failures before the upgrade are written as a raw HTTP Status.
import { STATUS_CODES, type IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import { WebSocketServer } from "ws";
import { newBadRequest, newPathNotFound, toStatusError } from "../../apimachinery/errors.ts";
import { stripWebSocketTokenProtocol } from "../authentication/bearer.ts";
import type { HandlerDeps } from "./deps.ts";
import { protocolOf } from "./connection.ts";
import { metricVerb, type RequestMetrics } from "./nonresource.ts";
import { parseListOptions, storeWatchOptions } from "./params.ts";
import { admit, checkAccess } from "./pipeline.ts";
import { parseRequestInfo } from "./requestinfo.ts";
import { watchTransform } from "./resource.ts";
import { negotiateOutput } from "./negotiation.ts";
import { serveWatch, type WatchTracker, webSocketWatchOutput } from "./watch.ts";
import type { WatchBudget } from "./watch-budget.ts";

/**
 * Removes a browser's bearer-token subprotocol (base64url.bearer.authorization.k8s.io.<token>)
 * after authentication read it, so it is never echoed back in the handshake (docs/kubernetes-api.md#websocket-upgrades).
 */
export function stripBearerProtocol(req: IncomingMessage): void {
  const protocols = stripWebSocketTokenProtocol(req.headers["sec-websocket-protocol"]);
  if (protocols.length) req.headers["sec-websocket-protocol"] = protocols.join(", ");
  else delete req.headers["sec-websocket-protocol"];
}

/** Writes a Status as a plain HTTP response on a not-yet-upgraded socket, then closes it. */
export function writeRawError(socket: Duplex, err: unknown): void {
  if (socket.destroyed || !socket.writable) return;
  const se = toStatusError(err);
  const body = JSON.stringify(se.toStatus());
  socket.end(
    `HTTP/1.1 ${se.code} ${STATUS_CODES[se.code] ?? "Error"}\r\n` +
      "Content-Type: application/json\r\n" +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      "Connection: close\r\n\r\n" +
      body,
  );
}

export class UpgradeHandler {
  private readonly wss = new WebSocketServer({
    noServer: true,
    perMessageDeflate: false,
    // Choose explicitly: the first offered protocol (the bearer pseudo-protocol was removed already).
    handleProtocols: (protocols) => [...protocols][0] ?? false,
  });

  constructor(
    private readonly deps: HandlerDeps,
    private readonly metrics: RequestMetrics,
    private readonly watches: WatchTracker,
    private readonly watchBudget?: WatchBudget,
  ) {}

  handle(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    this.metrics.protocol(protocolOf(req));
    socket.on("error", () => socket.destroy());
    this.serve(req, socket, head).catch((err: unknown) => {
      if (!(err instanceof Error && err.name === "StatusError")) this.deps.logger.error({ err, path: req.url }, "unexpected error during upgrade");
      writeRawError(socket, err);
    });
  }

  closeAll(): void {
    for (const ws of this.wss.clients) ws.close(1001, "server shutting down");
  }

  private async serve(req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    const url = new URL(req.url ?? "/", "https://apiserver.local");
    const info = parseRequestInfo(req.method ?? "GET", url);
    const isWebSocket = (req.headers.upgrade ?? "").toLowerCase() === "websocket";
    const { user, def } = await admit(this.deps, req, info);
    if (isWebSocket) stripBearerProtocol(req);
    if (!def) throw newPathNotFound();
    const labels = { verb: metricVerb(info.verb, req.method ?? "GET"), group: def.group, resource: def.plural, subresource: info.subresource };
    const ctx = { user, namespace: def.namespaced && info.namespace ? info.namespace : undefined, clock: this.deps.clock, dryRun: false };

    if (info.subresource) {
      const handler = def.subresources?.[info.subresource];
      if (!handler?.connect || !info.nameInPath) throw newPathNotFound();
      // A WebSocket GET is authorized as "get"; also require "create", as kube-apiserver 1.35 does (docs/kubernetes-api.md#authorization-of-requests).
      if (info.verb !== "create") await checkAccess(this.deps, info, user, "create");
      this.metrics.observe({ ...labels, verb: "CONNECT" }, 101, 0);
      await handler.connect({ ctx, verb: info.verb, namespace: ctx.namespace, name: info.name, query: url.searchParams, upgrade: { req, socket, head } });
      return;
    }

    if (!isWebSocket) throw newBadRequest("only WebSocket upgrades are supported");
    if (info.verb !== "watch" && info.verb !== "list") throw newBadRequest("only watch requests can be upgraded to a WebSocket");
    if (info.nameInPath && info.verb !== "watch") throw newPathNotFound();
    const opts = parseListOptions(url.searchParams, true);
    if (info.nameInPath) {
      const byName = `metadata.name=${info.name}`;
      opts.fieldSelector = opts.fieldSelector ? `${opts.fieldSelector},${byName}` : byName;
    }
    const format = negotiateOutput(req.headers.accept, { table: true, partial: true });
    const store = this.deps.storeFor(def);
    const transform = watchTransform(def, format, url.searchParams, this.deps.clock);
    this.watchBudget?.admit(user.username);
    this.wss.handleUpgrade(req, socket, head, (ws) => {
      const stop = this.metrics.longRunningStarted({ ...labels, verb: "WATCH" });
      this.metrics.observe({ ...labels, verb: "WATCH" }, 101, 0);
      serveWatch(webSocketWatchOutput(ws), (sink) => store.watch(ctx, storeWatchOptions(opts), sink), {
        clock: this.deps.clock,
        timeoutSeconds: opts.timeoutSeconds,
        minRequestTimeoutSeconds: this.deps.minRequestTimeoutSeconds,
        budget: this.watchBudget,
        user: user.username,
        transform,
        sameObjects: format.kind !== "table" && format.kind !== "partial",
        tracker: this.watches,
      }).then(stop, (err: unknown) => {
        stop();
        const status = toStatusError(err).toStatus();
        if (ws.readyState === ws.OPEN) ws.send(JSON.stringify({ type: "ERROR", object: status }));
        ws.close(1000);
      });
    });
  }
}
