// /metrics of `--workers N` (docs/high-availability.md#workers): the primary gathers every worker's
// metrics (prom-client's JSON) and adds them up, so a scrape through any connection sees the
// server as one: request counts and latency histograms summed over the workers, as one process
// would count them. Metrics of the process itself (process_*: CPU, memory, file descriptors,
// start time) are the same in every thread and are taken once; Node's per-thread ones (heap, event
// loop lag) use prom-client's own rules (sums, averages).
import { AggregatorRegistry, type MetricObjectWithValues, type MetricValue, type Registry } from "prom-client";

export type WorkerMetrics = MetricObjectWithValues<MetricValue<string>>[];

/** The exposition text of the workers' metrics together. */
export async function aggregateWorkerMetrics(perWorker: WorkerMetrics[]): Promise<string> {
  const adjusted = perWorker.map((metrics) => metrics.map((m) => (m.name.startsWith("process_") ? { ...m, aggregator: "first" as const } : m)));
  return AggregatorRegistry.aggregate(adjusted).metrics();
}

/** A worker as the gatherer sees it: something to post collect-metrics to. */
export interface MetricsSource {
  postMessage(message: { type: "collect-metrics"; id: number }): void;
}

interface Collection {
  waiting: Set<MetricsSource>;
  got: WorkerMetrics[];
  done: () => void;
}

/**
 * The primary's side: asks every running worker for its metrics and adds up the answers. A worker
 * that does not answer within `timeoutMs` (or exits meanwhile) is left out of that scrape.
 */
export class MetricsGatherer {
  private readonly collections = new Map<number, Collection>();
  private nextId = 1;

  constructor(private readonly timeoutMs = 5000) {}

  /** `own`: the primary's metrics (the SQLite database it owns), added to the workers'. */
  async gather(workers: MetricsSource[], own?: Registry): Promise<string> {
    const id = this.nextId++;
    const got: WorkerMetrics[] = [];
    let timer: NodeJS.Timeout | undefined;
    await new Promise<void>((resolve) => {
      this.collections.set(id, { waiting: new Set(workers), got, done: resolve });
      timer = setTimeout(resolve, this.timeoutMs);
      for (const w of workers) w.postMessage({ type: "collect-metrics", id });
      if (workers.length === 0) resolve();
    });
    clearTimeout(timer);
    this.collections.delete(id);
    if (own) got.push((await own.getMetricsAsJSON()) as WorkerMetrics);
    return aggregateWorkerMetrics(got);
  }

  /** A worker's answer to collection `id`. */
  answer(from: MetricsSource, id: number, metrics: WorkerMetrics): void {
    const c = this.collections.get(id);
    if (!c?.waiting.delete(from)) return;
    c.got.push(metrics);
    if (c.waiting.size === 0) c.done();
  }

  /** The worker exited: no answer will come from it. */
  gone(worker: MetricsSource): void {
    for (const c of this.collections.values()) if (c.waiting.delete(worker) && c.waiting.size === 0) c.done();
  }
}
