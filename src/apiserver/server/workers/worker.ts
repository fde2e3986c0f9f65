// A worker thread of --workers (docs/high-availability.md#workers): a full API server whose
// connections come from the primary, whose audit events go to the primary's one log, and which
// stops (draining its connections) when the primary says so. Its watch counts are the shared
// tally; its metrics are gathered with every other worker's for /metrics.
import { type MessagePort, parentPort, workerData } from "node:worker_threads";
import type { Registry } from "prom-client";
import { newServiceUnavailable } from "../../../apimachinery/errors.ts";
import type { AuditSink } from "../../audit/log.ts";
import { type RunningServer, type StartDeps, startApiServer } from "../server.ts";
import type { PrimaryCommand, WorkerData, WorkerStatus } from "./primary.ts";
import { SharedTally, type SharedTallyData } from "./shared-tally.ts";

/** Audit events posted to the primary, which writes (and rotates) the log. */
class PostedAuditSink implements AuditSink {
  readonly dropped = 0;
  constructor(private readonly port: MessagePort) {}
  write(event: object): boolean {
    this.port.postMessage(event);
    return true;
  }
  async flush(): Promise<void> {}
  async close(): Promise<void> {
    this.port.close();
  }
}

/** The worker's data, or undefined when this is not a worker thread of the primary. */
type Ports = { connections: MessagePort; audit?: MessagePort; storage?: MessagePort; tally: SharedTallyData };

/** How long a worker waits for the primary's gathered metrics. */
const GATHER_TIMEOUT_MS = 10_000;

export function workerRole(): (WorkerData & Ports) | undefined {
  const d = workerData as (WorkerData & Partial<Ports>) | null;
  return parentPort && d?.connections ? (d as WorkerData & Ports) : undefined;
}

/** Starts this thread's server and follows the primary's stop; `deps` is what the composition root wires. */
export async function serveAsWorker(deps: Omit<StartDeps, "worker">): Promise<void> {
  const role = workerRole();
  if (!role || !parentPort) throw new Error("not a worker thread of gardener-apiserver --workers");
  const parent = parentPort;
  const status = (s: WorkerStatus) => parent.postMessage(s);
  let running: RunningServer | undefined;
  let stopping = false;
  let started = () => {};
  const go = new Promise<void>((resolve) => (started = resolve));
  let local: Registry | undefined;
  const gathering = new Map<number, (text: string) => void>();
  let nextGather = 1;
  const shareMetrics = (registry: Registry) => {
    local = registry;
    return () =>
      new Promise<string>((resolve, reject) => {
        const id = nextGather++;
        const timer = setTimeout(() => {
          gathering.delete(id);
          reject(newServiceUnavailable("the workers' metrics did not arrive in time"));
        }, GATHER_TIMEOUT_MS);
        gathering.set(id, (text) => {
          clearTimeout(timer);
          gathering.delete(id);
          resolve(text);
        });
        status({ type: "gather-metrics", id });
      });
  };
  parent.on("message", (m: PrimaryCommand) => {
    if (m.type === "go") return started();
    if (m.type === "collect-metrics") {
      const answer = (metrics: Awaited<ReturnType<Registry["getMetricsAsJSON"]>>) => status({ type: "metrics", id: m.id, metrics });
      void (local ? local.getMetricsAsJSON() : Promise.resolve([])).then(answer, () => answer([]));
      return;
    }
    if (m.type === "gathered-metrics") return gathering.get(m.id)?.(m.text);
    // Stopped while starting: nothing to drain yet.
    if (!running) process.exit(0);
    if (stopping) return;
    stopping = true;
    running.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  });
  await go;
  try {
    running = await startApiServer(role.options, {
      ...deps,
      worker: {
        index: role.index,
        port: role.port,
        connections: role.connections,
        auditSink: role.audit ? new PostedAuditSink(role.audit) : undefined,
        storage: role.storage,
        watchTally: SharedTally.attach(role.tally, role.index),
        shareMetrics,
      },
    });
  } catch (err) {
    status({ type: "failed", message: (err as Error).message });
    process.exit(1);
  }
  status({ type: "ready" });
}
