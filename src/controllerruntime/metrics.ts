// Prometheus metrics of the runtime, named as controller-runtime and client-go name them so
// existing dashboards and alerts apply. One RuntimeMetrics per registry (per manager).
import { Counter, Gauge, Histogram, type Registry } from "prom-client";
import type { QueueMetrics } from "./workqueue/queue.ts";

export type ReconcileOutcome = "success" | "error" | "requeue" | "requeue_after";

export interface ControllerMetrics {
  reconciled(outcome: ReconcileOutcome, seconds: number): void;
  terminalError(): void;
  activeWorkers(delta: number): void;
  queue: QueueMetrics;
}

export interface InformerMetrics {
  relisted(): void;
  rewatched(): void;
}

const latencyBuckets = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

export class RuntimeMetrics {
  private readonly reconcileTotal: Counter<"controller" | "result">;
  private readonly reconcileErrors: Counter<"controller">;
  private readonly terminalErrors: Counter<"controller">;
  private readonly reconcileTime: Histogram<"controller">;
  private readonly maxConcurrent: Gauge<"controller">;
  private readonly activeWorkers: Gauge<"controller">;
  private readonly depth: Gauge<"name">;
  private readonly adds: Counter<"name">;
  private readonly retries: Counter<"name">;
  private readonly queueDuration: Histogram<"name">;
  private readonly workDuration: Histogram<"name">;
  private readonly relists: Counter<"resource">;
  private readonly rewatches: Counter<"resource">;
  readonly leader: Gauge<"name">;

  constructor(readonly registry: Registry) {
    const registers = [registry];
    this.reconcileTotal = new Counter({ name: "controller_runtime_reconcile_total", help: "Total number of reconciliations per controller", labelNames: ["controller", "result"], registers });
    this.reconcileErrors = new Counter({ name: "controller_runtime_reconcile_errors_total", help: "Total number of reconciliation errors per controller", labelNames: ["controller"], registers });
    this.terminalErrors = new Counter({ name: "controller_runtime_terminal_reconcile_errors_total", help: "Total number of terminal reconciliation errors per controller", labelNames: ["controller"], registers });
    this.reconcileTime = new Histogram({ name: "controller_runtime_reconcile_time_seconds", help: "Length of time per reconciliation per controller", labelNames: ["controller"], buckets: latencyBuckets, registers });
    this.maxConcurrent = new Gauge({ name: "controller_runtime_max_concurrent_reconciles", help: "Maximum number of concurrent reconciles per controller", labelNames: ["controller"], registers });
    this.activeWorkers = new Gauge({ name: "controller_runtime_active_workers", help: "Number of currently used workers per controller", labelNames: ["controller"], registers });
    this.depth = new Gauge({ name: "workqueue_depth", help: "Current depth of workqueue", labelNames: ["name"], registers });
    this.adds = new Counter({ name: "workqueue_adds_total", help: "Total number of adds handled by workqueue", labelNames: ["name"], registers });
    this.retries = new Counter({ name: "workqueue_retries_total", help: "Total number of retries handled by workqueue", labelNames: ["name"], registers });
    this.queueDuration = new Histogram({ name: "workqueue_queue_duration_seconds", help: "How long in seconds an item stays in workqueue before being requested", labelNames: ["name"], buckets: latencyBuckets, registers });
    this.workDuration = new Histogram({ name: "workqueue_work_duration_seconds", help: "How long in seconds processing an item from workqueue takes", labelNames: ["name"], buckets: latencyBuckets, registers });
    this.relists = new Counter({ name: "informer_relists_total", help: "Full lists an informer made (start, 410 Expired)", labelNames: ["resource"], registers });
    this.rewatches = new Counter({ name: "informer_watch_restarts_total", help: "Watches an informer reopened after a stream ended or failed", labelNames: ["resource"], registers });
    this.leader = new Gauge({ name: "leader_election_master_status", help: "1 if this process holds the named lease, 0 otherwise", labelNames: ["name"], registers });
  }

  forController(controller: string, maxConcurrentReconciles: number): ControllerMetrics {
    this.maxConcurrent.set({ controller }, maxConcurrentReconciles);
    this.activeWorkers.set({ controller }, 0);
    this.reconcileErrors.inc({ controller }, 0);
    this.terminalErrors.inc({ controller }, 0);
    const name = controller;
    return {
      reconciled: (outcome, seconds) => {
        this.reconcileTotal.inc({ controller, result: outcome });
        if (outcome === "error") this.reconcileErrors.inc({ controller });
        this.reconcileTime.observe({ controller }, seconds);
      },
      terminalError: () => this.terminalErrors.inc({ controller }),
      activeWorkers: (delta) => this.activeWorkers.inc({ controller }, delta),
      queue: {
        add: () => this.adds.inc({ name }),
        depth: (n) => this.depth.set({ name }, n),
        retry: () => this.retries.inc({ name }),
        queueLatency: (ms) => this.queueDuration.observe({ name }, ms / 1000),
        workDuration: (ms) => this.workDuration.observe({ name }, ms / 1000),
      },
    };
  }

  forInformer(resource: string): InformerMetrics {
    return {
      relisted: () => this.relists.inc({ resource }),
      rewatched: () => this.rewatches.inc({ resource }),
    };
  }
}
