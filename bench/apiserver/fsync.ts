// The WAL fsyncs behind the benchmark's writes, from /metrics: the SQLite server's own histogram
// (gardener_apiserver_sqlite_wal_fsync_duration_seconds, docs/kubernetes-api.md#metrics) and etcd's
// etcd_disk_wal_fsync_duration_seconds, both with etcd's buckets (1 ms doubling). A meter takes
// the histogram before and after each measured slice, so only the slices' syncs count.
import { type IncomingMessage, request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import { readKubeconfig } from "../../test/support/kubeconfig.ts";

export const SQLITE_FSYNC = "gardener_apiserver_sqlite_wal_fsync_duration_seconds";
export const ETCD_FSYNC = "etcd_disk_wal_fsync_duration_seconds";

export interface Histogram {
  count: number;
  /** Seconds. */
  sum: number;
  /** Upper bound (seconds; Infinity for +Inf) to the cumulative count at or below it. */
  buckets: Map<number, number>;
}

const empty = (): Histogram => ({ count: 0, sum: 0, buckets: new Map() });

/** The unlabelled histogram `name` in Prometheus' text format; an empty one when it is not there. */
export function parseHistogram(text: string, name: string): Histogram {
  const h = empty();
  for (const line of text.split("\n")) {
    if (!line.startsWith(name)) continue;
    const rest = line.slice(name.length);
    const value = Number(rest.slice(rest.lastIndexOf(" ") + 1));
    if (rest.startsWith("_count ")) h.count = value;
    else if (rest.startsWith("_sum ")) h.sum = value;
    else if (rest.startsWith("_bucket{")) {
      const le = /le="([^"]+)"/.exec(rest)?.[1];
      if (le !== undefined) h.buckets.set(le === "+Inf" ? Infinity : Number(le), value);
    }
  }
  return h;
}

/** b - a, bucket by bucket (b was taken after a from the same counter). */
export function histogramDelta(a: Histogram, b: Histogram): Histogram {
  const buckets = new Map<number, number>();
  for (const [le, n] of b.buckets) buckets.set(le, n - (a.buckets.get(le) ?? 0));
  return { count: b.count - a.count, sum: b.sum - a.sum, buckets };
}

function add(into: Histogram, d: Histogram): void {
  into.count += d.count;
  into.sum += d.sum;
  for (const [le, n] of d.buckets) into.buckets.set(le, (into.buckets.get(le) ?? 0) + n);
}

/** The upper bound (ms) of the bucket holding quantile q: the quantile is at most this. NaN without samples. */
export function bucketBoundMs(h: Histogram, q: number): number {
  if (h.count === 0) return NaN;
  for (const le of [...h.buckets.keys()].sort((x, y) => x - y)) if (h.buckets.get(le)! >= q * h.count) return le * 1000;
  return Infinity;
}

export interface FsyncFigures {
  syncs: number;
  meanMs: number;
  /** The p99 is at most this (a bucket's upper bound). */
  p99AtMostMs: number;
  /** The slices' operations (creates or puts) per sync. */
  opsPerSync: number;
}

/** Accumulates one histogram over the slices it is wrapped around. */
export class FsyncMeter {
  private readonly total = empty();
  private ops = 0;
  private before: Histogram | undefined;

  constructor(
    private readonly scrape: () => Promise<string>,
    private readonly metric: string,
  ) {}

  async start(): Promise<void> {
    this.before = parseHistogram(await this.scrape(), this.metric);
  }

  /** Ends a slice that made `ops` operations. */
  async stop(ops: number): Promise<void> {
    if (!this.before) throw new Error("FsyncMeter.stop without start");
    add(this.total, histogramDelta(this.before, parseHistogram(await this.scrape(), this.metric)));
    this.ops += ops;
    this.before = undefined;
  }

  figures(): FsyncFigures {
    const h = this.total;
    return { syncs: h.count, meanMs: h.count ? (h.sum * 1000) / h.count : NaN, p99AtMostMs: bucketBoundMs(h, 0.99), opsPerSync: h.count ? this.ops / h.count : NaN };
  }
}

function readAll(res: IncomingMessage, resolve: (s: string) => void): void {
  let text = "";
  res.setEncoding("utf8");
  res.on("data", (c: string) => (text += c));
  res.on("end", () => resolve(text));
}

/** /metrics of an API server, with its admin kubeconfig's client certificate. */
export function apiServerMetrics(kubeconfig: string): () => Promise<string> {
  const kc = readKubeconfig(kubeconfig);
  const url = new URL(kc.server);
  return () =>
    new Promise((resolve, reject) => {
      const req = httpsRequest({ host: url.hostname, port: url.port, path: "/metrics", ca: kc.caPem, cert: kc.certPem, key: kc.keyPem, agent: false }, (res) => readAll(res, resolve));
      req.on("error", reject);
      req.end();
    });
}

/** /metrics of etcd on its client URL (plain HTTP, as the benchmark's etcd listens). */
export function etcdMetrics(endpoint: string): () => Promise<string> {
  const url = new URL("/metrics", endpoint);
  return () =>
    new Promise((resolve, reject) => {
      const req = httpRequest(url, { agent: false }, (res) => readAll(res, resolve));
      req.on("error", reject);
      req.end();
    });
}
