// A worker thread of --workers (docs/high-availability.md#workers): a full API server whose
// connections come from the primary, whose audit events go to the primary's one log, and which
// stops (draining its connections) when the primary says so.
import { type MessagePort, parentPort, workerData } from "node:worker_threads";
import type { AuditSink } from "../../audit/log.ts";
import { type RunningServer, type StartDeps, startApiServer } from "../server.ts";
import type { WorkerData, WorkerStatus } from "./primary.ts";

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
export function workerRole(): (WorkerData & { connections: MessagePort; audit?: MessagePort }) | undefined {
  const d = workerData as (WorkerData & { connections?: MessagePort; audit?: MessagePort }) | null;
  return parentPort && d?.connections ? (d as WorkerData & { connections: MessagePort; audit?: MessagePort }) : undefined;
}

/** Starts this thread's server and follows the primary's stop; `deps` is what the composition root wires. */
export async function serveAsWorker(deps: Omit<StartDeps, "worker">): Promise<void> {
  const role = workerRole();
  if (!role || !parentPort) throw new Error("not a worker thread of gardener-apiserver --workers");
  const parent = parentPort;
  const status = (s: WorkerStatus) => parent.postMessage(s);
  let running: RunningServer;
  try {
    running = await startApiServer(role.options, {
      ...deps,
      worker: { index: role.index, port: role.port, connections: role.connections, auditSink: role.audit ? new PostedAuditSink(role.audit) : undefined },
    });
  } catch (err) {
    status({ type: "failed", message: (err as Error).message });
    process.exit(1);
  }
  status({ type: "ready" });
  parent.on("message", (m: { type: string }) => {
    if (m.type !== "stop") return;
    running.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  });
}
