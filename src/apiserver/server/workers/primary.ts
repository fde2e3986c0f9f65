// --workers N (docs/high-availability.md#workers): the primary thread generates the PKI, listens on
// --secure-port, owns the audit log and (SQLite) the database, and starts N worker threads, each a full API server (its own
// storage client and watch cache, admission, controllers) that serves the connections the primary
// hands it in turn. The primary restarts a worker that exits or crashes; its connections are cut
// (clients reconnect and land on another worker). Ending the process ends every worker with it.
import { mkdir } from "node:fs/promises";
import { MessageChannel, type Worker } from "node:worker_threads";
import type { Logger } from "pino";
import { Registry } from "prom-client";
import type { AuditLog } from "../../audit/log.ts";
import type { Storage } from "../../storage/interface.ts";
import { type StorageService, serveStorage } from "../../storage/remote/service.ts";
import { openAuditLog } from "../audit.ts";
import { openSQLite } from "../storage.ts";
import type { ApiServerOptions } from "../options.ts";
import { clientHost, hostPort, loadTls } from "../tls.ts";
import { MetricsGatherer, type WorkerMetrics } from "./metrics.ts";
import { ConnectionRelay } from "./relay-primary.ts";
import { SharedTally } from "./shared-tally.ts";
import { startModuleThread } from "../../../utils/module-thread.ts";

/** What a worker thread finds in workerData (besides the transferred ports). */
export interface WorkerData {
  options: ApiServerOptions;
  index: number;
  port: number;
  /** The module the worker runs (a composition root in src/cmd/). */
  entry: string;
  /** tsx's registration module, for a thread started without tsx's loader. */
  tsx?: string;
}

/**
 * What the primary posts to a worker: start serving (workers after the first wait for it), stop,
 * send your metrics (for the gathering `id`), or the gathered metrics a worker asked for.
 */
export type PrimaryCommand = { type: "go" } | { type: "stop" } | { type: "collect-metrics"; id: number } | { type: "gathered-metrics"; id: number; text: string };

/** Messages a worker posts to the primary on its parentPort (metrics: its answer to collect-metrics). */
export type WorkerStatus =
  | { type: "ready" }
  | { type: "failed"; message: string }
  | { type: "stopped" }
  | { type: "gather-metrics"; id: number }
  | { type: "metrics"; id: number; metrics: WorkerMetrics };

export interface PrimaryOptions {
  /** The worker's entry module (file URL). */
  entry: string;
  logger: Logger;
  /** First restart delay after a worker exits, doubling to 10 s; reset after 30 s of running. Default 200 ms. */
  restartDelayMs?: number;
}

export interface RunningWorkers {
  url: string;
  port: number;
  caPem: string;
  /** The relay, for tests: which worker serves which connection. */
  relay: ConnectionRelay;
  /** Ends worker i as a crash would (the primary restarts it). */
  kill(index: number): Promise<void>;
  /** Resolves when worker i is serving (again). */
  ready(index: number): Promise<void>;
  /** How often each worker was started. */
  starts(): number[];
  /** Stops accepting, lets each worker stop (draining its connections), closes the audit log. */
  stop(): Promise<void>;
}

const MAX_RESTART_DELAY_MS = 10_000;
const STABLE_MS = 30_000;
const STOP_GRACE_MS = 15_000;

interface Slot {
  index: number;
  worker?: Worker;
  ready: Promise<void>;
  startedAt: number;
  starts: number;
  delayMs: number;
}

export async function startWorkers(o: ApiServerOptions, p: PrimaryOptions): Promise<RunningWorkers> {
  const log = p.logger;
  await mkdir(o.dataDir, { recursive: true, mode: 0o700 });
  // The PKI exists before any worker reads it.
  const tls = await loadTls(o);
  const relay = new ConnectionRelay({ key: tls.key, cert: tls.cert, ca: tls.clientCAs });
  const port = await relay.listen(o.securePort, o.bindAddress);
  const url = `https://${hostPort(clientHost(o), port)}`;
  const audit: AuditLog | undefined = o.auditPolicyFile && o.auditLogPath ? await openAuditLog(o, o.auditLogPath, log) : undefined;
  // SQLite: one owner of the database (group commit, the watch hub); workers call it over a port.
  // Its sync metrics join the workers' in /metrics.
  const ownMetrics = new Registry();
  const database: Storage | undefined = o.etcdServers.length === 0 ? openSQLite(o, ownMetrics) : undefined;
  // The watch counts every worker shares; the metrics every worker's /metrics adds up.
  const tally = SharedTally.create(o.workers);
  const gatherer = new MetricsGatherer();
  const baseDelay = p.restartDelayMs ?? 200;
  let stopping = false;
  const slots: Slot[] = [];

  // Workers load their modules at once; all but the first begin serving once the first serves.
  let firstServing = false;
  const waitingForFirst: Worker[] = [];
  const go = (w: Worker) => w.postMessage({ type: "go" } satisfies PrimaryCommand);

  const start = (slot: Slot): Promise<void> => {
    const connections = new MessageChannel();
    const auditChannel = audit ? new MessageChannel() : undefined;
    auditChannel?.port1.on("message", (event: object) => audit!.write(event));
    const storageChannel = database ? new MessageChannel() : undefined;
    const service: StorageService | undefined = storageChannel && database ? serveStorage(database, storageChannel.port1) : undefined;
    const data: Omit<WorkerData, "entry" | "tsx"> = { options: o, index: slot.index, port };
    const transfer = [connections.port2, ...(auditChannel ? [auditChannel.port2] : []), ...(storageChannel ? [storageChannel.port2] : [])];
    const worker = startModuleThread(p.entry, {
      workerData: { ...data, connections: connections.port2, audit: auditChannel?.port2, storage: storageChannel?.port2, tally: tally.shared },
      transferList: transfer,
    });
    slot.worker = worker;
    if (slot.index === 0 || firstServing) go(worker);
    else waitingForFirst.push(worker);
    slot.starts++;
    slot.startedAt = Date.now();
    relay.attach(slot.index, connections.port1);
    let settled = false;
    return new Promise<void>((resolve, reject) => {
      worker.on("message", (m: WorkerStatus) => {
        if (m.type === "gather-metrics") {
          const live = slots.flatMap((s) => (s.worker ? [s.worker] : []));
          void gatherer.gather(live, ownMetrics).then(
            (text) => worker.postMessage({ type: "gathered-metrics", id: m.id, text } satisfies PrimaryCommand),
            (err: unknown) => log.warn({ err }, "gathering the workers' metrics failed"),
          );
        } else if (m.type === "metrics") {
          gatherer.answer(worker, m.id, m.metrics);
        } else if (m.type === "ready" && !settled) {
          settled = true;
          log.info({ worker: slot.index }, "worker serving");
          if (slot.index === 0 && !firstServing) {
            firstServing = true;
            for (const w of waitingForFirst.splice(0)) go(w);
          }
          resolve();
        } else if (m.type === "failed" && !settled) {
          settled = true;
          reject(new Error(`worker ${slot.index}: ${m.message}`));
        }
      });
      worker.on("error", (err) => log.error({ err, worker: slot.index }, "worker failed"));
      worker.on("exit", (code) => {
        relay.detach(slot.index);
        // Its watches are gone: they stop counting before its successor starts.
        tally.forget(slot.index);
        gatherer.gone(worker);
        connections.port1.close();
        auditChannel?.port1.close();
        service?.close();
        if (slot.worker === worker) slot.worker = undefined;
        if (!settled) {
          settled = true;
          reject(new Error(`worker ${slot.index} exited with ${code} while starting`));
        }
        if (stopping) return;
        slot.delayMs = Date.now() - slot.startedAt > STABLE_MS ? baseDelay : Math.min(slot.delayMs * 2, MAX_RESTART_DELAY_MS);
        log.warn({ worker: slot.index, code, restartInMs: slot.delayMs }, "worker exited, restarting it");
        const restart = new Promise((r) => setTimeout(r, slot.delayMs)).then(() => (stopping ? undefined : start(slot)));
        restart.catch((err: unknown) => log.error({ err, worker: slot.index }, "restarted worker failed to start"));
        slot.ready = restart;
      });
    });
  };

  const stopSlot = async (slot: Slot): Promise<void> => {
    const w = slot.worker;
    if (!w) return;
    const exited = new Promise<void>((resolve) => w.once("exit", () => resolve()));
    w.postMessage({ type: "stop" } satisfies PrimaryCommand);
    const timer = setTimeout(() => void w.terminate(), STOP_GRACE_MS);
    await exited;
    clearTimeout(timer);
  };

  const stopAll = async () => {
    stopping = true;
    await relay.stopAccepting();
    await Promise.all(slots.map(stopSlot));
    relay.closeAll();
    await audit?.close();
    await database?.close();
  };

  try {
    for (let i = 0; i < o.workers; i++) slots.push({ index: i, ready: Promise.resolve(), startedAt: 0, starts: 0, delayMs: baseDelay });
    // The first worker creates the bootstrap objects alone; the others start serving once it serves.
    for (const s of slots) s.ready = start(s);
    await Promise.all(slots.map((s) => s.ready));
  } catch (err) {
    await stopAll();
    throw err;
  }
  log.info({ url, workers: o.workers }, "workers serving");

  let stopped: Promise<void> | undefined;
  return {
    url,
    port,
    caPem: tls.serverCaPem,
    relay,
    starts: () => slots.map((s) => s.starts),
    ready: (i) => slots[i]!.ready,
    async kill(i) {
      const w = slots[i]?.worker;
      if (!w) return;
      const exited = new Promise<void>((resolve) => w.once("exit", () => resolve()));
      await w.terminate();
      await exited;
    },
    stop: () => (stopped ??= stopAll()),
  };
}
