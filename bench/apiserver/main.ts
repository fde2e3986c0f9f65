// bench/apiserver: creates/s, updates/s, gets/s, lists/s at 16 concurrent clients and watch
// delivery latency with 500 watchers, for the SQLite- and the etcd-backed server, next to raw
// etcd puts/s measured on the same machine in the same run (the reference, measured again right
// before each server so that load changes on a shared machine hit both sides); every figure is
// durable (fsync before the answer) except the extra SQLite run with --sqlite-fsync=false; then the server's
// peak RSS and other clients' latency while 1000 watchers never read and a 1 MB object is
// written 100 times.
//   npm run bench:apiserver [-- --duration-ms 5000 --watchers 500 --clients 16 --slow-watchers 1000 --slow-writes 100]
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { Etcd3 } from "etcd3";
import { startEtcd } from "../../src/host/etcd.ts";
import { startApiServerProcess } from "../../test/support/apiserver.ts";
import { rate, table } from "../support/stats.ts";
import { measureCreates, measureServer, processCpuMs, type PhaseOptions, type ServerFigures } from "./phases.ts";
import { measureSlowWatchers, type SlowWatcherFigures, type SlowWatcherOptions, writeSlowWatcherTokens } from "./slow-watchers.ts";

const { values } = parseArgs({
  options: {
    "duration-ms": { type: "string", default: "5000" },
    watchers: { type: "string", default: "500" },
    clients: { type: "string", default: "16" },
    "watch-writes": { type: "string", default: "100" },
    "slow-watchers": { type: "string", default: "1000" },
    "slow-writes": { type: "string", default: "100" },
    "slow-object-bytes": { type: "string", default: "1000000" },
  },
});
const slow: SlowWatcherOptions = {
  watchers: Number(values["slow-watchers"]),
  writes: Number(values["slow-writes"]),
  objectBytes: Number(values["slow-object-bytes"]),
  users: 4,
};
const opts: PhaseOptions = {
  durationMs: Number(values["duration-ms"]),
  watchers: Number(values.watchers),
  clients: Number(values.clients),
  watchWrites: Number(values["watch-writes"]),
};

/** Raw etcd puts/s; `cpu` collects etcd's CPU ms per put. */
async function rawEtcdPuts(endpoint: string, etcdPid: number, cpu: number[]): Promise<number> {
  const client = new Etcd3({ hosts: endpoint });
  const before = processCpuMs(etcdPid);
  let puts = 0;
  const value = JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "x" }, data: { k: "v" } });
  try {
    return await rate(opts.clients, opts.durationMs, async (i) => {
      await client.put(`/raw/${i}`).value(value);
      puts++;
    });
  } finally {
    cpu.push((processCpuMs(etcdPid) - before) / Math.max(1, puts));
    client.close();
  }
}

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), "bench-apiserver-"));
  const etcd = await startEtcd({ dataDir: join(work, "etcd") });
  const results: Record<string, ServerFigures> = {};
  const slowResults: Record<string, SlowWatcherFigures> = {};
  const tokenAuthFile = writeSlowWatcherTokens(join(work, "tokens.csv"), slow.users);
  try {
    const rawPuts: number[] = [];
    const rawCpu: number[] = [];
    for (const storage of ["sqlite", "etcd"] as const) {
      console.error(`raw etcd puts (${opts.clients} clients, ${opts.durationMs} ms) ...`);
      rawPuts.push(await rawEtcdPuts(etcd.endpoint, etcd.pid, rawCpu));
      console.error(`${storage}-backed server ...`);
      const server = await startApiServerProcess({
        storage,
        dataDir: join(work, storage),
        tokenAuthFile,
        ...(storage === "etcd" ? { etcdEndpoint: etcd.endpoint } : {}),
      });
      try {
        results[storage] = await measureServer(server.kubeconfig, server.child.pid!, opts);
        console.error(`${storage}-backed server: ${slow.watchers} watchers that never read, ${slow.writes} writes of ${slow.objectBytes} bytes ...`);
        slowResults[storage] = await measureSlowWatchers(server, slow);
      } finally {
        await server.stop();
      }
    }
    console.error("sqlite-backed server with --sqlite-fsync=false (creates only) ...");
    const volatile = await startApiServerProcess({ storage: "sqlite", dataDir: join(work, "sqlite-nofsync"), extraArgs: ["--sqlite-fsync=false"] });
    let volatileCreates: number;
    try {
      volatileCreates = await measureCreates(volatile.kubeconfig, opts);
    } finally {
      await volatile.stop();
    }
    const etcdPuts = (rawPuts[0]! + rawPuts[1]!) / 2;
    const rows: (string | number)[][] = [["figure", "sqlite", "etcd", "sqlite/raw-etcd", "etcd/raw-etcd"]];
    const ratio = (n: number) => `${(n / etcdPuts).toFixed(2)}x`;
    const add = (label: string, key: keyof ServerFigures, withRatio: boolean) =>
      rows.push([label, results.sqlite![key], results.etcd![key], withRatio ? ratio(results.sqlite![key]) : "", withRatio ? ratio(results.etcd![key]) : ""]);
    add("creates/s", "createsPerSec", true);
    add("server CPU ms per create", "cpuMsPerCreate", false);
    add("updates/s", "updatesPerSec", true);
    add("gets/s", "getsPerSec", true);
    add("lists/s (100 items)", "listsPerSec", true);
    add(`watch p50 ms (${opts.watchers} watchers)`, "watchP50Ms", false);
    add(`watch p99 ms (${opts.watchers} watchers)`, "watchP99Ms", false);
    add("watch events received", "watchEvents", false);
    const slowRow = (label: string, key: keyof SlowWatcherFigures) => rows.push([label, slowResults.sqlite![key], slowResults.etcd![key], "", ""]);
    slowRow("slow watchers: server RSS before, MiB", "baseRssMiB");
    slowRow("slow watchers: server peak RSS, MiB", "peakRssMiB");
    slowRow("slow watchers: others' p50 ms", "othersP50Ms");
    slowRow("slow watchers: others' p99 ms", "othersP99Ms");
    slowRow("slow watchers: others' max ms", "othersMaxMs");
    slowRow("slow watchers: others' requests", "othersRequests");
    slowRow("slow watchers: watches left open", "watchesLeft");
    slowRow("slow watchers: seconds for the writes", "writeSeconds");
    console.log(`raw etcd puts/s (reference, ${opts.clients} clients): ${etcdPuts.toFixed(0)} (${rawPuts.map((r) => r.toFixed(0)).join(" before the SQLite server, ")} before the etcd-backed server)`);
    console.log(`etcd CPU ms per raw put: ${((rawCpu[0]! + rawCpu[1]!) / 2).toFixed(3)} (etcd's own process; the servers' figure below is the API server process alone)`);
    console.log("durability: raw etcd puts and the etcd-backed server: etcd's raft log fsync'ed before the answer; sqlite: WAL fdatasync'ed before the answer (group commit)");
    console.log(`sqlite with --sqlite-fsync=false (in the OS only: survives a process crash, not a power loss): ${volatileCreates.toFixed(0)} creates/s, ${ratio(volatileCreates)} raw etcd`);
    console.log(table(rows));
    const goalCreate = results.sqlite!.createsPerSec / etcdPuts >= 1;
    const goalEtcd = results.etcd!.createsPerSec / etcdPuts >= 0.5;
    const goalWatch = results.sqlite!.watchP99Ms < 50;
    console.log(`goal durable sqlite creates >= 1.0x raw etcd puts: ${goalCreate ? "met" : "NOT met"} (${ratio(results.sqlite!.createsPerSec)})`);
    console.log(`goal etcd-backed creates >= 0.5x raw etcd puts: ${goalEtcd ? "met" : "NOT met"} (${ratio(results.etcd!.createsPerSec)})`);
    console.log(`goal watch p99 < 50 ms (sqlite): ${goalWatch ? "met" : "NOT met"}`);
    for (const storage of ["sqlite", "etcd"] as const) {
      const f = slowResults[storage]!;
      console.log(`goal ${slow.watchers} slow watchers (${storage}): peak RSS < 1 GiB ${f.peakRssMiB < 1024 ? "met" : "NOT met"}, others' p99 < 100 ms ${f.othersP99Ms < 100 ? "met" : "NOT met"}`);
    }
  } finally {
    await etcd.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

await main();
