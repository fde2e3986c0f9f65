import assert from "node:assert/strict";
import { it } from "node:test";
import { bucketBoundMs, FsyncMeter, histogramDelta, parseHistogram } from "./fsync.ts";

const text = (count: number, sum: number, buckets: [string, number][]) =>
  [
    "# HELP etcd_disk_wal_fsync_duration_seconds The latency distributions of fsync called by WAL.",
    "# TYPE etcd_disk_wal_fsync_duration_seconds histogram",
    ...buckets.map(([le, n]) => `etcd_disk_wal_fsync_duration_seconds_bucket{le="${le}"} ${n}`),
    `etcd_disk_wal_fsync_duration_seconds_sum ${sum}`,
    `etcd_disk_wal_fsync_duration_seconds_count ${count}`,
    "etcd_disk_wal_write_bytes_total 123",
  ].join("\n");

void it("parses a histogram and takes the difference of two scrapes", () => {
  const a = parseHistogram(text(4, 0.004, [["0.001", 2], ["0.002", 4], ["+Inf", 4]]), "etcd_disk_wal_fsync_duration_seconds");
  const b = parseHistogram(text(104, 0.254, [["0.001", 2], ["0.002", 54], ["0.004", 103], ["+Inf", 104]]), "etcd_disk_wal_fsync_duration_seconds");
  assert.equal(a.count, 4);
  assert.equal(b.buckets.get(Infinity), 104);
  const d = histogramDelta(a, b);
  assert.equal(d.count, 100);
  assert.ok(Math.abs(d.sum - 0.25) < 1e-9);
  assert.deepEqual([...d.buckets], [[0.001, 0], [0.002, 50], [0.004, 103], [Infinity, 100]]);
});

void it("bounds a quantile by the bucket that holds it", () => {
  const h = { count: 100, sum: 0.2, buckets: new Map([[0.001, 10], [0.002, 90], [0.004, 99], [0.008, 100], [Infinity, 100]]) };
  assert.equal(bucketBoundMs(h, 0.5), 2);
  assert.equal(bucketBoundMs(h, 0.99), 4);
  assert.equal(bucketBoundMs(h, 1), 8);
  assert.ok(Number.isNaN(bucketBoundMs({ count: 0, sum: 0, buckets: new Map() }, 0.99)));
  assert.equal(parseHistogram("nothing here", "x").count, 0);
});

void it("counts only what happened inside the slices it wraps", async () => {
  const scrapes = [
    text(10, 0.01, [["0.001", 10], ["0.002", 10], ["+Inf", 10]]),
    text(30, 0.05, [["0.001", 20], ["0.002", 30], ["+Inf", 30]]), // slice 1: 20 syncs, 0.04 s
    text(50, 0.1, [["0.001", 20], ["0.002", 50], ["+Inf", 50]]), // between the slices: not counted
    text(60, 0.12, [["0.001", 30], ["0.002", 60], ["+Inf", 60]]), // slice 2: 10 syncs, 0.02 s
  ];
  const meter = new FsyncMeter(async () => scrapes.shift()!, "etcd_disk_wal_fsync_duration_seconds");
  await meter.start();
  await meter.stop(200);
  await meter.start();
  await meter.stop(100);
  const f = meter.figures();
  assert.equal(f.syncs, 30);
  assert.ok(Math.abs(f.meanMs - 2) < 1e-9, String(f.meanMs));
  assert.equal(f.opsPerSync, 10);
  assert.equal(f.p99AtMostMs, 2, "20 of the 30 at or below 1 ms, all 30 at or below 2 ms");
});
