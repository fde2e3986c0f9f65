// Metrics of the SQLite storage's durability (docs/kubernetes-api.md#metrics): how long each
// fdatasync of the WAL takes, the counterpart of etcd's etcd_disk_wal_fsync_duration_seconds, and
// how many writes each one made durable (group commit). A write is answered only after its sync.
import { Histogram, type Registry } from "prom-client";

/** etcd's buckets for its WAL fsync: 1 ms doubling to 8.192 s. */
const FSYNC_BUCKETS = Array.from({ length: 14 }, (_, i) => 0.001 * 2 ** i);
const WRITES_BUCKETS = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512];

/** Registers the histograms on `registry`; returns what SQLiteStorage calls after each sync. */
export function sqliteSyncMetrics(registry: Registry): (seconds: number, writes: number) => void {
  const registers = [registry];
  const duration = new Histogram({
    name: "gardener_apiserver_sqlite_wal_fsync_duration_seconds",
    help: "Time from the start of an fdatasync of the SQLite WAL until the server's event loop learned it completed, in seconds.",
    buckets: FSYNC_BUCKETS,
    registers,
  });
  const writes = new Histogram({
    name: "gardener_apiserver_sqlite_writes_per_fsync",
    help: "Writes made durable by one fdatasync of the SQLite WAL (writes that come together share one).",
    buckets: WRITES_BUCKETS,
    registers,
  });
  return (seconds, n) => {
    duration.observe(seconds);
    writes.observe(n);
  };
}
