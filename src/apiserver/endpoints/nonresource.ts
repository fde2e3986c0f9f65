// Non-resource endpoints: /version, /healthz|/livez|/readyz (with ?verbose and per-check paths)
// and the request metrics served on /metrics.
import { Counter, Gauge, Histogram, type Registry } from "prom-client";

/** k8s.io/apimachinery/pkg/version.Info */
export interface VersionInfo {
  major: string;
  minor: string;
  gitVersion: string;
  gitCommit: string;
  gitTreeState: string;
  buildDate: string;
  goVersion: string;
  compiler: string;
  platform: string;
}

/**
 * kubectl warns on `kubectl version` when the minor skew exceeds ±1 (it parses gitVersion, which
 * must be valid semver). We serve the 1.27-1.33 range, so we claim the middle, 1.30: at most
 * 3 minors of skew either way, and the gcloud kubectl dispatcher picks kubectl 1.30.
 */
export const DEFAULT_VERSION_INFO: VersionInfo = {
  major: "1",
  minor: "30",
  gitVersion: "v1.30.0-gardener-access",
  gitCommit: "0000000000000000000000000000000000000000",
  gitTreeState: "clean",
  buildDate: "2025-01-01T00:00:00Z",
  goVersion: `node${process.versions.node}`,
  compiler: "tsx",
  platform: `${process.platform}/${process.arch === "x64" ? "amd64" : process.arch}`,
};

export interface HealthCheckResult {
  name: string;
  ok: boolean;
  message?: string;
}

export type HealthChecks = () => Promise<HealthCheckResult[]>;

export interface HealthResponse {
  status: number;
  text: string;
}

/**
 * Renders a health endpoint as kube-apiserver does: "ok" when all pass; the `[+]/[-]` listing
 * with `?verbose` or on failure (500). `check` selects one check (`/healthz/<check>`); `exclude`
 * names checks to skip.
 */
export function renderHealth(endpoint: string, results: HealthCheckResult[], q: URLSearchParams, check?: string): HealthResponse | undefined {
  const excluded = new Set(q.getAll("exclude"));
  const all: HealthCheckResult[] = [{ name: "ping", ok: true }, ...results];
  if (check !== undefined) {
    const one = all.find((r) => r.name === check);
    if (!one) return undefined;
    return one.ok ? { status: 200, text: "ok" } : { status: 500, text: `internal server error: ${one.message ?? "check failed"}\n` };
  }
  const used = all.filter((r) => !excluded.has(r.name));
  const failed = used.some((r) => !r.ok);
  const verbose = q.has("verbose");
  if (!failed && !verbose) return { status: 200, text: "ok" };
  const lines = used.map((r) => (r.ok ? `[+]${r.name} ok` : `[-]${r.name} failed: reason withheld`));
  for (const name of excluded) lines.push(`[+]${name} excluded: ok`);
  lines.push(failed ? `${endpoint} check failed` : `${endpoint} check passed`);
  return { status: failed ? 500 : 200, text: lines.join("\n") + "\n" };
}

const BUCKETS = [0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60];

/** Request metrics, registered on the given prom-client registry. */
export class RequestMetrics {
  private readonly total: Counter<"verb" | "group" | "resource" | "subresource" | "code">;
  private readonly duration: Histogram<"verb" | "group" | "resource" | "subresource">;
  private readonly longRunning: Gauge<"verb" | "group" | "resource">;
  private readonly protocols: Counter<"protocol">;

  constructor(readonly registry: Registry) {
    const registers = [registry];
    this.total = new Counter({
      name: "apiserver_request_total",
      help: "Counter of apiserver requests broken out for each verb, group, resource, subresource and HTTP response code.",
      labelNames: ["verb", "group", "resource", "subresource", "code"],
      registers,
    });
    this.duration = new Histogram({
      name: "apiserver_request_duration_seconds",
      help: "Response latency distribution in seconds for each verb, group, resource and subresource (watches excluded).",
      labelNames: ["verb", "group", "resource", "subresource"],
      buckets: BUCKETS,
      registers,
    });
    this.longRunning = new Gauge({
      name: "apiserver_longrunning_requests",
      help: "Gauge of all active long-running apiserver requests (watches) broken out by verb, group and resource.",
      labelNames: ["verb", "group", "resource"],
      registers,
    });
    this.protocols = new Counter({
      name: "gardener_apiserver_requests_by_protocol_total",
      help: "Counter of requests (upgrades included) by the HTTP version that carried them: HTTP/2.0 or HTTP/1.1.",
      labelNames: ["protocol"],
      registers,
    });
  }

  /** Counts a request by its protocol (docs/kubernetes-api.md#http2). */
  protocol(protocol: string): void {
    this.protocols.inc({ protocol });
  }

  observe(l: MetricLabels, code: number, seconds: number): void {
    this.total.inc({ verb: l.verb, group: l.group, resource: l.resource, subresource: l.subresource, code: String(code) });
    if (l.verb !== "WATCH" && l.verb !== "CONNECT") {
      this.duration.observe({ verb: l.verb, group: l.group, resource: l.resource, subresource: l.subresource }, seconds);
    }
  }

  longRunningStarted(l: MetricLabels): () => void {
    const labels = { verb: l.verb, group: l.group, resource: l.resource };
    this.longRunning.inc(labels);
    let done = false;
    return () => {
      if (done) return;
      done = true;
      this.longRunning.dec(labels);
    };
  }
}

export interface MetricLabels {
  verb: string;
  group: string;
  resource: string;
  subresource: string;
}

const METRIC_VERBS: Record<string, string> = {
  get: "GET",
  list: "LIST",
  watch: "WATCH",
  create: "POST",
  update: "PUT",
  patch: "PATCH",
  delete: "DELETE",
  deletecollection: "DELETECOLLECTION",
};

/** kube's metric verb: LIST/WATCH/APPLY are told apart from GET/PATCH. */
export function metricVerb(verb: string, method: string, apply = false): string {
  if (apply) return "APPLY";
  return METRIC_VERBS[verb] ?? method.toUpperCase();
}
