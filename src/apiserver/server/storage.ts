// The storage stack: SQLite at <data-dir>/state.db, or etcd with --etcd-servers (loaded only then),
// wrapped in the watch cache; and periodic compaction that keeps the newest revisions.
import { join } from "node:path";
import type { MessagePort } from "node:worker_threads";
import type { Logger } from "pino";
import type { Registry } from "prom-client";
import type { Clock, Timer } from "../../utils/clock.ts";
import { Cacher } from "../storage/cacher/cacher.ts";
import type { Storage } from "../storage/interface.ts";
import { RemoteStorage } from "../storage/remote/remote.ts";
import { SQLiteStorage } from "../storage/sqlite/sqlite.ts";
import type { ApiServerOptions } from "./options.ts";
import { sqliteSyncMetrics } from "./storage-metrics.ts";

export interface StorageStack {
  /** What the stores use (the cache, or the backend when the cache is disabled). */
  storage: Storage;
  backend: Storage;
  close(): Promise<void>;
}

/**
 * Object keys already start with /registry/, which is kube's default --etcd-prefix; another prefix
 * is put in front of them so several servers can share one etcd.
 */
export function etcdKeyPrefix(etcdPrefix: string): string {
  const p = etcdPrefix.replace(/\/+$/, "");
  return p === "/registry" || p === "" ? "" : p;
}

/** The etcd client (etcd3 and grpc) is loaded only when --etcd-servers asks for it. */
async function openEtcd(o: ApiServerOptions): Promise<Storage> {
  const { EtcdStorage } = await import("../storage/etcd/etcd.ts");
  return new EtcdStorage({ endpoints: o.etcdServers, prefix: etcdKeyPrefix(o.etcdPrefix) });
}

/** The SQLite database at <data-dir>/state.db; its syncs are measured on `metrics`. */
export function openSQLite(o: ApiServerOptions, metrics?: Registry): SQLiteStorage {
  return new SQLiteStorage({ path: join(o.dataDir, "state.db"), fsync: o.sqliteFsync, ...(metrics ? { onSync: sqliteSyncMetrics(metrics) } : {}) });
}

/** `remote`: a worker of --workers on SQLite reaches the database the primary owns through it. */
export async function openStorage(o: ApiServerOptions, clock: Clock, remote?: MessagePort, metrics?: Registry): Promise<StorageStack> {
  const backend: Storage = remote ? new RemoteStorage(remote) : o.etcdServers.length > 0 ? await openEtcd(o) : openSQLite(o, metrics);
  if (o.watchCacheSize === 0) return { storage: backend, backend, close: () => backend.close() };
  const cacher = new Cacher(backend, { historySize: o.watchCacheSize, clock });
  try {
    await cacher.start();
  } catch (err) {
    await backend.close().catch(() => {});
    throw err;
  }
  return {
    storage: cacher,
    backend,
    // The cache closes its backend.
    close: () => cacher.close(),
  };
}

export interface CompactionOptions {
  intervalMs: number;
  retainedRevisions: number;
  clock: Clock;
  logger: Logger;
}

export interface Compactor {
  /** One pass: compacts up to current - retained when that is above the compacted revision. */
  runOnce(): Promise<number | undefined>;
  stop(): void;
}

/** Compacts every intervalMs (0: never), keeping the newest retainedRevisions revisions. */
export function startCompaction(storage: Storage, o: CompactionOptions): Compactor {
  let timer: Timer | undefined;
  let stopped = false;
  const runOnce = async (): Promise<number | undefined> => {
    const current = await storage.currentRevision();
    const target = current - o.retainedRevisions;
    if (target <= 0 || target <= (await storage.compactedRevision())) return undefined;
    await storage.compact(target);
    o.logger.info({ revision: target, current }, "compacted storage");
    return target;
  };
  const schedule = () => {
    if (stopped || o.intervalMs <= 0) return;
    timer = o.clock.setTimer(o.intervalMs, () => {
      runOnce()
        .catch((err: unknown) => o.logger.warn({ err }, "storage compaction failed"))
        .finally(schedule);
    });
  };
  schedule();
  return {
    runOnce,
    stop() {
      stopped = true;
      timer?.cancel();
    },
  };
}
