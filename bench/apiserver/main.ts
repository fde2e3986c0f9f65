// bench/apiserver: creates/s, updates/s, gets/s, lists/s at 16 concurrent clients and watch
// delivery latency with 500 watchers, for the SQLite- and the etcd-backed server, next to raw
// etcd puts/s measured on the same machine in the same run (the reference).
//   npm run bench:apiserver [-- --duration-ms 5000 --watchers 500 --clients 16]
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { Etcd3 } from "etcd3";
import { startEtcd } from "../../src/host/etcd.ts";
import { startApiServerProcess } from "../../test/support/apiserver.ts";
import { rate, table } from "../support/stats.ts";
import { measureServer, type PhaseOptions, type ServerFigures } from "./phases.ts";

const { values } = parseArgs({
  options: {
    "duration-ms": { type: "string", default: "5000" },
    watchers: { type: "string", default: "500" },
    clients: { type: "string", default: "16" },
    "watch-writes": { type: "string", default: "100" },
  },
});
const opts: PhaseOptions = {
  durationMs: Number(values["duration-ms"]),
  watchers: Number(values.watchers),
  clients: Number(values.clients),
  watchWrites: Number(values["watch-writes"]),
};

async function rawEtcdPuts(endpoint: string): Promise<number> {
  const client = new Etcd3({ hosts: endpoint });
  const value = JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "x" }, data: { k: "v" } });
  try {
    return await rate(opts.clients, opts.durationMs, async (i) => {
      await client.put(`/raw/${i}`).value(value);
    });
  } finally {
    client.close();
  }
}

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), "bench-apiserver-"));
  const etcd = await startEtcd({ dataDir: join(work, "etcd") });
  const results: Record<string, ServerFigures> = {};
  try {
    console.error(`raw etcd puts (${opts.clients} clients, ${opts.durationMs} ms) ...`);
    const etcdPuts = await rawEtcdPuts(etcd.endpoint);
    for (const storage of ["sqlite", "etcd"] as const) {
      console.error(`${storage}-backed server ...`);
      const server = await startApiServerProcess({
        storage,
        dataDir: join(work, storage),
        ...(storage === "etcd" ? { etcdEndpoint: etcd.endpoint } : {}),
      });
      try {
        results[storage] = await measureServer(server.kubeconfig, opts);
      } finally {
        await server.stop();
      }
    }
    const rows: (string | number)[][] = [["figure", "sqlite", "etcd", "sqlite/raw-etcd", "etcd/raw-etcd"]];
    const ratio = (n: number) => `${(n / etcdPuts).toFixed(2)}x`;
    const add = (label: string, key: keyof ServerFigures, withRatio: boolean) =>
      rows.push([label, results.sqlite![key], results.etcd![key], withRatio ? ratio(results.sqlite![key]) : "", withRatio ? ratio(results.etcd![key]) : ""]);
    add("creates/s", "createsPerSec", true);
    add("updates/s", "updatesPerSec", true);
    add("gets/s", "getsPerSec", true);
    add("lists/s (100 items)", "listsPerSec", true);
    add(`watch p50 ms (${opts.watchers} watchers)`, "watchP50Ms", false);
    add(`watch p99 ms (${opts.watchers} watchers)`, "watchP99Ms", false);
    add("watch events received", "watchEvents", false);
    console.log(`raw etcd puts/s (reference, ${opts.clients} clients): ${etcdPuts.toFixed(0)}`);
    console.log(table(rows));
    const goalCreate = results.sqlite!.createsPerSec / etcdPuts >= 0.5;
    const goalWatch = results.sqlite!.watchP99Ms < 50;
    console.log(`goal sqlite creates >= 0.5x raw etcd puts: ${goalCreate ? "met" : "NOT met"}`);
    console.log(`goal watch p99 < 50 ms (sqlite): ${goalWatch ? "met" : "NOT met"}`);
  } finally {
    await etcd.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

await main();
