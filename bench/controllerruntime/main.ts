// bench/controllerruntime: events/s through informer + work queue + a no-op reconciler with
// 10,000 ConfigMaps (initial list, a burst of updates through the watch, and the runtime alone
// from memory), and the time from a write to the reconciler seeing it at 200 writes/s.
//   node --import tsx bench/controllerruntime/main.ts [--objects 10000 --rate 200 --duration-ms 10000 --storage sqlite|etcd]
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isAlreadyExists } from "../../src/apimachinery/errors.ts";
import { ConfigMaps, Namespaces } from "../../src/client/builtins.ts";
import { Client } from "../../src/client/client.ts";
import { type RunningEtcd, startEtcd } from "../../src/host/etcd.ts";
import { startApiServerProcess } from "../../test/support/apiserver.ts";
import { table } from "../support/stats.ts";
import { benchArgs } from "../support/args.ts";
import { forEachConcurrent, inMemoryEventsPerSec, measureAgainstServer } from "./phases.ts";

const args = benchArgs(
  "node --import tsx bench/controllerruntime/main.ts",
  "Events/s through informer, work queue and a no-op reconciler (initial list, a burst of updates, the runtime alone), and write -> reconciler latency at a steady rate.",
  {
    objects: { type: "string", default: "10000", help: "ConfigMaps in the informer" },
    rate: { type: "string", default: "200", help: "writes per second of the latency phase" },
    "duration-ms": { type: "string", default: "10000", help: "length of the latency phase (ms)" },
    concurrency: { type: "string", default: "32", help: "writes in flight" },
    storage: { type: "string", default: "sqlite", help: "the API server's storage: sqlite or etcd" },
  },
);
const objects = args.count("objects", 1);
const rate = args.count("rate", 1);
const durationMs = args.count("duration-ms", 1);
const concurrency = args.count("concurrency", 1);
const storage = args.choice("storage", ["sqlite", "etcd"] as const);

async function main(): Promise<void> {
  console.error(`runtime alone, from memory (${objects} objects) ...`);
  const memoryRate = await inMemoryEventsPerSec(objects);

  const work = mkdtempSync(join(tmpdir(), "bench-controllerruntime-"));
  let etcd: RunningEtcd | undefined;
  try {
    if (storage === "etcd") etcd = await startEtcd({ dataDir: join(work, "etcd") });
    const server = await startApiServerProcess({ storage, dataDir: join(work, "apiserver"), ...(etcd ? { etcdEndpoint: etcd.endpoint } : {}) });
    const writer = Client.fromKubeconfigFile(server.kubeconfig, { fieldManager: "bench-writer" });
    const managerClient = Client.fromKubeconfigFile(server.kubeconfig, { fieldManager: "bench-manager" });
    try {
      const ns = "bench";
      await writer.create(Namespaces, { metadata: { name: ns } }).catch((e: unknown) => {
        if (!isAlreadyExists(e)) throw e;
      });
      console.error(`creating ${objects} ConfigMaps on the ${storage}-backed server ...`);
      await forEachConcurrent(objects, concurrency, async (i) => {
        await writer.create(ConfigMaps, { metadata: { namespace: ns, name: `cm-${i}` }, data: { v: "0" } });
      });
      console.error("measuring through a manager ...");
      const f = await measureAgainstServer(writer, managerClient, ns, { objects, concurrency, rate, durationMs });
      const rows: (string | number)[][] = [
        ["figure", "value"],
        [`runtime alone: events/s (${objects} listed + ${objects} watched, from memory)`, memoryRate],
        [`initial list: objects/s into reconciles (${objects} objects, ${storage})`, f.listEventsPerSec],
        [`watch burst: events/s into reconciles (${objects} updates, ${concurrency} writers)`, f.watchEventsPerSec],
        ["  (server accepted the burst's writes at, writes/s)", f.serverWritesPerSec],
        [`write -> reconcile p50 ms (${rate} writes/s, ${f.latencyWrites} writes)`, f.latency.p50],
        [`write -> reconcile p99 ms`, f.latency.p99],
        [`write -> reconcile max ms`, f.latency.max],
        ["writes seen by the reconciler", `${f.latency.n}/${f.latencyWrites}`],
      ];
      console.log(table(rows));
      const met = f.latency.p99 < 100 && f.latency.n === f.latencyWrites;
      console.log(`goal write -> reconcile p99 < 100 ms at ${rate} writes/s: ${met ? "met" : "NOT met"}`);
    } finally {
      writer.close();
      managerClient.close();
      await server.stop();
    }
  } finally {
    await etcd?.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

await main();
