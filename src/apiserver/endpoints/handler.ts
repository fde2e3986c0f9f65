// The request pipeline: request id -> metrics timer -> exception guard -> body limit ->
// authentication -> impersonation -> authorization -> routing (resources, discovery, OpenAPI,
// health, version, metrics). Every failure is a Status; unexpected exceptions are logged with
// their stack and answered 500 without it. Upgrades (watch over WebSocket, connect subresources
// such as pods/exec) pass the same authentication and authorization.
import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Duplex } from "node:stream";
import { isStatusError, type StatusError } from "../../apimachinery/errors.ts";
import type { RequestAudit } from "../audit/recorder.ts";
import type { UserInfo } from "../authentication/types.ts";
import { DEFAULT_MAX_BODY_BYTES, tooLarge } from "./body.ts";
import type { HandlerDeps } from "./deps.ts";
import { DEFAULT_VERSION_INFO, metricVerb, type MetricLabels, RequestMetrics } from "./nonresource.ts";
import { OpenAPIService } from "./openapi.ts";
import { admit, type AdmitHooks } from "./pipeline.ts";
import { isHttp2, protocolOf } from "./connection.ts";
import { parseRequestUrl, type RequestUrl } from "./request-url.ts";
import { parseRequestInfo, type RequestInfo } from "./requestinfo.ts";
import { serveResource } from "./resource.ts";
import { writeError } from "./responses.ts";
import { type NonResourceDeps, serveNonResource } from "./routes.ts";
import { UpgradeHandler } from "./upgrade.ts";
import { WatchTracker } from "./watch.ts";
import { WatchBudget } from "./watch-budget.ts";

export interface ApiHandler {
  request(req: IncomingMessage, res: ServerResponse): void;
  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void;
  /** Makes /readyz fail and ends all running watches cleanly (clients re-watch elsewhere/later). */
  shutdown(): void;
  readonly activeWatches: number;
}

/** Per-request state shared by the pipeline steps. */
export interface RequestState {
  id: string;
  url: RequestUrl;
  info: RequestInfo;
  labels: MetricLabels;
  user?: UserInfo;
  /** When the request arrived (ms since the epoch). */
  receivedAt: number;
  audit?: RequestAudit;
}

/** The access steps' hooks of one request: they start its audit event and record who it acts as. */
class AuditHooks implements AdmitHooks {
  constructor(
    private readonly deps: HandlerDeps,
    private readonly req: IncomingMessage,
    private readonly res: ServerResponse,
    private readonly st: RequestState,
  ) {}

  onAuthenticated(authenticated: UserInfo): void {
    const { req, res, st } = this;
    st.audit = this.deps.audit?.begin({ req, res, id: st.id, info: st.info, user: authenticated, receivedAt: st.receivedAt });
  }

  onIdentified(acting: UserInfo): void {
    this.st.user = acting;
    if (this.st.audit && !Object.is(acting, this.st.audit.user)) this.st.audit.impersonated(acting);
  }

  onAllowed(): void {
    this.st.audit?.allowed();
  }
}

export function createHandler(deps: HandlerDeps): ApiHandler {
  const metrics = new RequestMetrics(deps.metrics);
  const watches = new WatchTracker();
  const watchBudget = new WatchBudget(deps.watchLimits, deps.watchTally);
  const maxBodyBytes = deps.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  let shuttingDown = false;
  let lastHost = "127.0.0.1:6443";
  const nonResource: NonResourceDeps = {
    registry: deps.registry,
    openapi: new OpenAPIService(deps.registry, { title: "Kubernetes", version: (deps.version ?? DEFAULT_VERSION_INFO).gitVersion }),
    version: deps.version ?? DEFAULT_VERSION_INFO,
    healthChecks: deps.healthChecks ?? (() => Promise.resolve([])),
    metrics,
    gatherMetrics: deps.gatherMetrics,
    serverAddress: deps.serverAddress ?? (() => lastHost),
    shuttingDown: () => shuttingDown,
  };
  const upgrades = new UpgradeHandler(deps, metrics, watches, watchBudget);

  function begin(req: IncomingMessage): RequestState {
    const url = parseRequestUrl(req.url ?? "/");
    const info = parseRequestInfo(req.method ?? "GET", url);
    const headerId = req.headers["x-request-id"];
    const id = typeof headerId === "string" && headerId.length <= 128 ? headerId : randomUUID();
    const host = req.headers.host ?? req.headers[":authority"];
    if (typeof host === "string") lastHost = host;
    return { id, url, info, labels: { verb: metricVerb("", req.method ?? "GET"), group: "", resource: "", subresource: "" }, receivedAt: performance.timeOrigin + performance.now() };
  }

  async function handle(req: IncomingMessage, res: ServerResponse, st: RequestState): Promise<void> {
    const declared = Number(req.headers["content-length"]);
    if (Number.isFinite(declared) && declared > maxBodyBytes) throw tooLarge(maxBodyBytes);
    const { user, def } = await admit(deps, req, st.info, new AuditHooks(deps, req, res, st));
    const { info } = st;
    if (!def) return serveNonResource(nonResource, req, res, st.url);
    st.labels = { verb: metricVerb(info.verb, req.method ?? "GET"), group: def.group, resource: def.plural, subresource: info.subresource };
    const stopGauge = info.verb === "watch" ? metrics.longRunningStarted(st.labels) : undefined;
    try {
      await serveResource({
        req,
        res,
        url: st.url,
        info,
        def,
        store: deps.storeFor(def),
        ctx: { user, namespace: def.namespaced && info.namespace ? info.namespace : undefined, clock: deps.clock, dryRun: st.url.searchParams.getAll("dryRun").length > 0, warnings: [] },
        clock: deps.clock,
        maxBodyBytes,
        watches,
        watchBudget,
        minRequestTimeoutSeconds: deps.minRequestTimeoutSeconds,
        labels: st.labels,
      });
    } finally {
      stopGauge?.();
    }
  }

  function fail(req: IncomingMessage, res: ServerResponse, st: RequestState, err: unknown): void {
    if (!isStatusError(err)) {
      deps.logger.error({ err, requestId: st.id, method: req.method, path: st.url.pathname }, "unexpected error while serving request");
    }
    const headers: Record<string, string> = {};
    // HTTP/1.1: the rest of the body would have to be read first. HTTP/2 forbids the header; node
    // resets a stream whose body was left unread once its response is sent.
    if ((err as StatusError | undefined)?.code === 413 && !isHttp2(req)) headers.Connection = "close";
    st.audit?.failed(err);
    writeError(res, err, headers);
  }

  return {
    request(req, res) {
      const started = performance.now();
      let st: RequestState;
      try {
        st = begin(req);
      } catch (err) {
        writeError(res, err);
        return;
      }
      res.setHeader("Audit-Id", st.id);
      metrics.protocol(protocolOf(req));
      res.once("close", () => {
        const seconds = (performance.now() - started) / 1000;
        metrics.observe(st.labels, res.statusCode, seconds);
        deps.logger.debug({ requestId: st.id, method: req.method, path: st.url.pathname, code: res.statusCode, user: st.user?.username, ms: Math.round(seconds * 1000) }, "request");
      });
      handle(req, res, st).catch((err: unknown) => fail(req, res, st, err));
    },
    upgrade(req, socket, head) {
      upgrades.handle(req, socket, head);
    },
    shutdown() {
      shuttingDown = true;
      watches.endAll();
      upgrades.closeAll();
    },
    get activeWatches() {
      return watches.size;
    },
  };
}
