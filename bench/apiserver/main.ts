// bench/apiserver: creates/s, updates/s, gets/s, lists/s at 16 concurrent clients and watch
// delivery latency with 500 watchers, for the SQLite- and the etcd-backed server, next to raw
// etcd puts/s measured on the same machine in the same run (the reference: each server's create
// phase alternates --slices slices of raw etcd puts and of its creates, so that load changes on a
// shared machine hit both sides, and each server's ratios use its own reference); every figure is
// durable (fsync before the answer) except the extra SQLite run with --sqlite-fsync=false, and the WAL
// fsyncs behind each figure are read from /metrics (the SQLite server's own, etcd's); then the server's
// peak RSS and other clients' latency while 1000 watchers never read and a 1 MB object is
// written 100 times. With --workers 1,2 (a list) each server's creates are measured again with
// every further worker count (gardener-apiserver --workers), against its own interleaved reference.
// Requests go over HTTP/2 as client-go's do (--protocol; one session for all clients by default, as the
// raw etcd reference's one gRPC channel), watches
// over HTTP/1.1 connections of their own. The SQLite server's creates are also measured over HTTP/1.1
// and HTTP/2 (one session for all clients), alternating slices of each; --protocols-only measures just that.
//   npm run bench:apiserver [-- --help]
import { mkdtempSync, rmSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { Etcd3 } from "etcd3";
import { startEtcd } from "../../src/host/etcd.ts";
import { startApiServerProcess } from "../../test/support/apiserver.ts";
import { benchArgs } from "../support/args.ts";
import { rate, table } from "../support/stats.ts";
import type { Protocol } from "./client.ts";
import { measureCreates, measureProtocols, measureServer, processCpuMs, type PhaseOptions, type ProtocolFigures, type ServerFigures, type Slice } from "./phases.ts";
import { measureFloor } from "./floor.ts";
import { describeBudget } from "./cpu-budget.ts";
import { apiServerMetrics, ETCD_FSYNC, etcdMetrics, type FsyncFigures, FsyncMeter, SQLITE_FSYNC } from "./fsync.ts";
import { measureRawEtcdReads, measureSlowWatchers, type RawReadFigures, type SlowWatcherFigures, type SlowWatcherOptions, writeSlowWatcherTokens } from "./slow-watchers.ts";

const args = benchArgs(
  "npm run bench:apiserver --",
  "Creates/s, updates/s, gets/s, lists/s and watch latency of the SQLite- and the etcd-backed API server, each against raw etcd puts/s measured in the same run (bench/apiserver/main.ts).",
  {
    "duration-ms": { type: "string", default: "5000", help: "length of each measured phase (ms), split into --slices" },
    slices: { type: "string", default: "5", help: "slices of creates alternating with slices of raw etcd puts" },
    "warmup-ms": { type: "string", default: "6000", help: "unmeasured creates against each fresh server (and raw etcd puts) before its measured slices: a fresh server's JIT needs seconds of load" },
    watchers: { type: "string", default: "500", help: "watchers for the watch delivery latency" },
    clients: { type: "string", default: "16", help: "concurrent clients (also the raw etcd reference's)" },
    "watch-writes": { type: "string", default: "100", help: "writes whose delivery to every watcher is timed" },
    "slow-watchers": { type: "string", default: "1000", help: "watchers that never read, for peak RSS and others' latency" },
    "slow-writes": { type: "string", default: "100", help: "writes of the large object while the slow watchers lag" },
    "slow-object-bytes": { type: "string", default: "1000000", help: "size of that object" },
    workers: { type: "string", default: "1,2", help: "worker counts (gardener-apiserver --workers) to measure creates with; the first gets every phase" },
    protocol: { type: "string", default: "h2", help: "the protocol of every phase but the protocol comparison: h2 (as client-go) or http/1.1" },
    "clients-per-session": { type: "string", default: "0", help: "with h2: clients sharing one session; 0: all of them, one connection as the raw etcd reference's one gRPC channel" },
    "protocols-only": { type: "boolean", default: false, help: "only the SQLite server's creates over HTTP/1.1 against HTTP/2" },
  },
);
const values = args.values;
const slow: SlowWatcherOptions = {
  watchers: args.count("slow-watchers"),
  writes: args.count("slow-writes"),
  objectBytes: args.count("slow-object-bytes", 1),
  users: 4,
};
const opts: PhaseOptions = {
  durationMs: args.count("duration-ms", 1),
  slices: args.count("slices", 1),
  warmupMs: args.count("warmup-ms"),
  watchers: args.count("watchers"),
  clients: args.count("clients", 1),
  watchWrites: args.count("watch-writes"),
  protocol: args.choice("protocol", ["h2", "http/1.1"] as const),
  clientsPerSession: args.count("clients-per-session") || args.count("clients", 1),
};

/** Slices of raw etcd puts through one client; `cpu` sums etcd's CPU ms and the puts, `meter` etcd's WAL fsyncs. */
function rawEtcdPuts(client: Etcd3, etcdPid: number, cpu: { ms: number; puts: number }, meter: FsyncMeter): Slice {
  const value = JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "x" }, data: { k: "v" } });
  return async (durationMs) => {
    await meter.start();
    const before = processCpuMs(etcdPid);
    const started = performance.now();
    let puts = 0;
    await rate(opts.clients, durationMs, async (i) => {
      await client.put(`/raw/${i}`).value(value);
      puts++;
    });
    const ms = performance.now() - started;
    cpu.ms += processCpuMs(etcdPid) - before;
    cpu.puts += puts;
    await meter.stop(puts);
    return { ops: puts, ms };
  };
}

/** The phases' options for a server with this many workers: --workers N > 1 serves HTTP/1.1 only (docs/kubernetes-api.md#http2). */
const optsFor = (workers: number): PhaseOptions => (workers === 1 ? opts : { ...opts, protocol: "http/1.1" });

/** Worker counts to measure creates with; the first gets every phase. */
const workerCounts = args.counts("workers", 1);
/** The worker count of each server's full run (the figures of the main table). */
const firstWorkers = workerCounts[0] ?? 1;

interface WorkerFigure {
  protocol: Protocol;
  storage: string;
  workers: number;
  createsPerSec: number;
  rawPutsPerSec: number;
  cpuMsPerCreate: number;
}

/** The load averages (1, 5, 15 min), as uptime prints them. */
const load = () => loadavg().map((l) => l.toFixed(2)).join(", ");

/** Creates over HTTP/1.1 and HTTP/2 against one SQLite server (one worker). */
async function protocolFigures(dataDir: string): Promise<ProtocolFigures[]> {
  console.error(`sqlite-backed server: creates over HTTP/1.1 and HTTP/2 (${opts.slices} slices each, alternating) ...`);
  const server = await startApiServerProcess({ storage: "sqlite", dataDir });
  try {
    return await measureProtocols(server.kubeconfig, server.child.pid!, opts);
  } finally {
    await server.stop();
  }
}

function printProtocols(figures: ProtocolFigures[]): void {
  const rows: (string | number)[][] = [["sqlite server, creates", "creates/s", "server CPU ms per create"]];
  for (const f of figures) rows.push([f.protocol === "h2" ? `HTTP/2 (one session, ${opts.clients} clients)` : `HTTP/1.1 (${opts.clients} connections)`, f.createsPerSec, f.cpuMsPerCreate]);
  console.log(table(rows));
}

async function protocolsOnly(): Promise<void> {
  const loadBefore = load();
  const work = mkdtempSync(join(tmpdir(), "bench-apiserver-"));
  try {
    const figures = await protocolFigures(join(work, "sqlite-protocols"));
    console.log(`load average (1, 5, 15 min) at the start: ${loadBefore}; at the end: ${load()}`);
    printProtocols(figures);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const loadBefore = load();
  const work = mkdtempSync(join(tmpdir(), "bench-apiserver-"));
  const etcd = await startEtcd({ dataDir: join(work, "etcd") });
  const results: Record<string, ServerFigures> = {};
  const slowResults: Record<string, SlowWatcherFigures> = {};
  let rawReads: RawReadFigures | undefined;
  const tokenAuthFile = writeSlowWatcherTokens(join(work, "tokens.csv"), slow.users);
  const rawClient = new Etcd3({ hosts: etcd.endpoint });
  const perWorkers: WorkerFigure[] = [];
  try {
    const rawCpu = { ms: 0, puts: 0 };
    const rawFsync = new FsyncMeter(etcdMetrics(etcd.endpoint), ETCD_FSYNC);
    const reference = rawEtcdPuts(rawClient, etcd.pid, rawCpu, rawFsync);
    for (const storage of ["sqlite", "etcd"] as const) {
      console.error(`${storage}-backed server (creates alternating with raw etcd puts, ${opts.slices} slices each, ${opts.durationMs} ms in all) ...`);
      const [first, ...more] = workerCounts.length ? workerCounts : [1];
      const server = await startApiServerProcess({
        storage,
        dataDir: join(work, storage),
        tokenAuthFile,
        extraArgs: ["--workers", String(first)],
        ...(storage === "etcd" ? { etcdEndpoint: etcd.endpoint } : {}),
      });
      try {
        const firstOpts = optsFor(first!);
        // The WAL fsyncs its creates wait for: the SQLite server's own, or etcd's.
        const meter = storage === "sqlite" ? new FsyncMeter(apiServerMetrics(server.kubeconfig), SQLITE_FSYNC) : new FsyncMeter(etcdMetrics(etcd.endpoint), ETCD_FSYNC);
        results[storage] = await measureServer(server.kubeconfig, server.child.pid!, firstOpts, reference, meter);
        perWorkers.push({ storage, workers: first!, protocol: firstOpts.protocol, ...results[storage] });
        if (storage === "etcd") {
          console.error(`raw etcd: reads while ${slow.writes} puts of ${slow.objectBytes} bytes (the reference for the etcd-backed server's slow-watcher phase) ...`);
          rawReads = await measureRawEtcdReads(rawClient, slow);
        }
        console.error(`${storage}-backed server: ${slow.watchers} watchers that never read, ${slow.writes} writes of ${slow.objectBytes} bytes ...`);
        slowResults[storage] = await measureSlowWatchers(server, slow);
      } finally {
        await server.stop();
      }
      for (const workers of more) {
        console.error(`${storage}-backed server with --workers ${workers} (creates only) ...`);
        const dataDir = join(work, `${storage}-workers-${workers}`);
        const extraArgs = ["--workers", String(workers), "--etcd-prefix", `/w${workers}`];
        const w = await startApiServerProcess({ storage, dataDir, extraArgs, ...(storage === "etcd" ? { etcdEndpoint: etcd.endpoint } : {}) });
        try {
          const o = optsFor(workers);
          perWorkers.push({ storage, workers, protocol: o.protocol, ...(await measureCreates(w.kubeconfig, o, reference, w.child.pid!)) });
        } finally {
          await w.stop();
        }
      }
    }
    console.error("sqlite-backed server with --sqlite-fsync=false (creates only) ...");
    const volatile = await startApiServerProcess({ storage: "sqlite", dataDir: join(work, "sqlite-nofsync"), extraArgs: ["--sqlite-fsync=false"] });
    let volatileCreates: { createsPerSec: number; rawPutsPerSec: number };
    try {
      volatileCreates = await measureCreates(volatile.kubeconfig, opts, reference);
    } finally {
      await volatile.stop();
    }
    const protocols = await protocolFigures(join(work, "sqlite-protocols"));
    console.error("the floor: a bare TLS + HTTP/2 server in Node, with raw etcd puts just before it ...");
    const floorRef = await reference(opts.durationMs);
    const floor = await measureFloor(opts.clients, opts.clientsPerSession, opts.durationMs);
    const rows: (string | number)[][] = [["figure", "sqlite", "etcd", "sqlite/raw-etcd", "etcd/raw-etcd"]];
    const ratio = (n: number, raw: number) => `${(n / raw).toFixed(2)}x`;
    const sqlite = results.sqlite!;
    const etcdBacked = results.etcd!;
    const add = (label: string, key: Exclude<keyof ServerFigures, "fsync" | "cpu">, withRatio: boolean) =>
      rows.push([label, sqlite[key], etcdBacked[key], withRatio ? ratio(sqlite[key], sqlite.rawPutsPerSec) : "", withRatio ? ratio(etcdBacked[key], etcdBacked.rawPutsPerSec) : ""]);
    add("raw etcd puts/s (reference)", "rawPutsPerSec", false);
    add(`creates/s during the ${opts.warmupMs} ms warm-up (unmeasured)`, "warmupCreatesPerSec", true);
    add("creates/s", "createsPerSec", true);
    add("server CPU ms per create", "cpuMsPerCreate", false);
    const fsyncRow = (label: string, key: keyof FsyncFigures) => rows.push([label, sqlite.fsync?.[key] ?? NaN, etcdBacked.fsync?.[key] ?? NaN, "", ""]);
    // Not the same span: etcd times the fsync call alone, the SQLite server until its event loop ran the callback.
    fsyncRow("WAL fsync during the creates: mean ms (sqlite: call to callback; etcd: etcd's call)", "meanMs");
    fsyncRow("WAL fsync during the creates: p99 at most, ms", "p99AtMostMs");
    fsyncRow("creates per WAL fsync", "opsPerSync");
    add("updates/s", "updatesPerSec", true);
    add("gets/s", "getsPerSec", true);
    add("lists/s (100 items)", "listsPerSec", true);
    add(`watch p50 ms (${opts.watchers} watchers)`, "watchP50Ms", false);
    add(`watch p99 ms (${opts.watchers} watchers)`, "watchP99Ms", false);
    add("watch events received", "watchEvents", false);
    const slowRow = (label: string, key: Exclude<keyof SlowWatcherFigures, "othersFirstError">) => rows.push([label, slowResults.sqlite![key], slowResults.etcd![key], "", ""]);
    slowRow("slow watchers: server RSS before, MiB", "baseRssMiB");
    slowRow("slow watchers: server peak RSS, MiB", "peakRssMiB");
    slowRow("slow watchers: others' p50 ms", "othersP50Ms");
    slowRow("slow watchers: others' p99 ms", "othersP99Ms");
    slowRow("slow watchers: others' max ms", "othersMaxMs");
    rows.push(["slow watchers: raw etcd reads p50 / p99 ms (reference)", "", `${rawReads!.p50Ms.toFixed(1)} / ${rawReads!.p99Ms.toFixed(1)}`, "", ""]);
    slowRow("slow watchers: others' requests", "othersRequests");
    slowRow("slow watchers: others' failed requests", "othersFailed");
    slowRow("slow watchers: watches left open", "watchesLeft");
    slowRow("slow watchers: seconds for the writes", "writeSeconds");
    console.log(`load average (1, 5, 15 min) at the start: ${loadBefore}; at the end: ${load()} (the machine's other load shares its cores with the servers and clients measured)`);
    console.log(`raw etcd puts/s (reference, ${opts.clients} clients), in ${opts.slices} slices alternating with each server's creates: ${sqlite.rawPutsPerSec.toFixed(0)} with the SQLite server, ${etcdBacked.rawPutsPerSec.toFixed(0)} with the etcd-backed server; every ratio below is against its own server's reference`);
    console.log(`etcd CPU ms per raw put: ${(rawCpu.ms / Math.max(1, rawCpu.puts)).toFixed(3)} (etcd's own process; the servers' figure below is the API server process alone)`);
    for (const storage of ["sqlite", "etcd"] as const) {
      const f = results[storage]!;
      // With more than one worker the main thread is the primary, not the thread serving requests.
      const creates = firstWorkers === 1 ? f.cpu.creates : { ...f.cpu.creates, mainThreadUsPerOp: undefined };
      console.log(`CPU budget (${storage}-backed server's create slices against their raw etcd slices): ${describeBudget(f.cpu.raw, creates, f.rawPutsPerSec, cpus().length)}`);
    }
    const raw = rawFsync.figures();
    console.log(`raw etcd's WAL fsyncs during its puts (etcd's /metrics): mean ${raw.meanMs.toFixed(2)} ms, p99 at most ${raw.p99AtMostMs} ms, ${raw.opsPerSync.toFixed(1)} puts per fsync`);
    console.log("durability: raw etcd puts and the etcd-backed server: etcd's raft log fsync'ed before the answer; sqlite: WAL fdatasync'ed before the answer (group commit)");
    console.log(`protocol: ${opts.protocol === "h2" ? `HTTP/2, ${opts.clients} clients as streams of ${Math.ceil(opts.clients / opts.clientsPerSession)} session(s) (client-go and kubectl speak HTTP/2, one session per process)` : `HTTP/1.1, a connection per client`}; raw etcd: gRPC (HTTP/2) through the etcd3 package, one channel`);
    console.log(
      `sqlite with --sqlite-fsync=false (in the OS only: survives a process crash, not a power loss): ${volatileCreates.createsPerSec.toFixed(0)} creates/s, ${ratio(volatileCreates.createsPerSec, volatileCreates.rawPutsPerSec)} raw etcd (${volatileCreates.rawPutsPerSec.toFixed(0)} puts/s alternating with it)`,
    );
    console.log(table(rows));
    console.log(`creates per worker count (gardener-apiserver --workers; CPU is the whole server process, every worker):`);
    const workerRows: (string | number)[][] = [["server", "workers", "protocol", "creates/s", "raw etcd puts/s", "ratio", "server CPU ms per create"]];
    for (const f of perWorkers) workerRows.push([`${f.storage}-backed`, String(f.workers), f.protocol, f.createsPerSec, f.rawPutsPerSec, ratio(f.createsPerSec, f.rawPutsPerSec), f.cpuMsPerCreate]);
    console.log(table(workerRows));
    console.log("creates by protocol (the SQLite server, one worker; slices of each alternating):");
    printProtocols(protocols);
    const bestSqlite = Math.max(...perWorkers.filter((f) => f.storage === "sqlite").map((f) => f.createsPerSec / f.rawPutsPerSec));
    const goalCreate = bestSqlite >= 1;
    const bestEtcd = Math.max(...perWorkers.filter((f) => f.storage === "etcd").map((f) => f.createsPerSec / f.rawPutsPerSec));
    const goalEtcd = bestEtcd >= 0.5;
    const goalWatch = results.sqlite!.watchP99Ms < 50;
    console.log(
      `the floor (Node's TLS and HTTP/2 alone, a bare server answering each POSTed ConfigMap, the phases' protocol): ${floor.requestsPerSec.toFixed(0)} requests/s, ${(floor.requestsPerSec / ((floorRef.ops * 1000) / floorRef.ms)).toFixed(2)}x raw etcd (${((floorRef.ops * 1000) / floorRef.ms).toFixed(0)} puts/s just before); server CPU ${floor.serverCpuMsPerRequest.toFixed(3)} ms, client CPU ${floor.clientCpuMsPerRequest.toFixed(3)} ms per request`,
    );
    console.log(`goal durable sqlite creates >= 1.0x raw etcd puts: ${goalCreate ? "met" : "NOT met"} (${bestSqlite.toFixed(2)}x, the best worker count)`);
    console.log(`goal etcd-backed creates >= 0.5x raw etcd puts: ${goalEtcd ? "met" : "NOT met"} (${bestEtcd.toFixed(2)}x, the best worker count)`);
    console.log(`goal watch p99 < 50 ms (sqlite): ${goalWatch ? "met" : "NOT met"}`);
    for (const storage of ["sqlite", "etcd"] as const) {
      const f = slowResults[storage]!;
      const rawFailed = rawReads!.failed > 0 ? `, ${rawReads!.failed} of them failed` : "";
      const floor = storage === "etcd" ? ` (raw etcd's own reads during the same writes: p99 ${rawReads!.p99Ms.toFixed(1)} ms${rawFailed})` : "";
      console.log(`goal ${slow.watchers} slow watchers (${storage}): peak RSS < 1 GiB ${f.peakRssMiB < 1024 ? "met" : "NOT met"}, others' p99 < 100 ms ${f.othersP99Ms < 100 ? "met" : "NOT met"}${floor}`);
      if (f.othersFirstError) console.log(`slow watchers (${storage}): ${f.othersFailed} of others' requests failed, the first with: ${f.othersFirstError}`);
    }
  } finally {
    rawClient.close();
    await etcd.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

await (values["protocols-only"] ? protocolsOnly() : main());
