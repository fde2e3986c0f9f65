// The measurements of bench/controllerruntime, one function per phase.
import type { KubeList, KubeObject, WatchEvent } from "../../src/apis/meta/v1/types.ts";
import { type ConfigMap, ConfigMaps } from "../../src/client/builtins.ts";
import type { Client } from "../../src/client/client.ts";
import { Informer, type ListerWatcher } from "../../src/controllerruntime/cache/informer.ts";
import { Controller } from "../../src/controllerruntime/controller.ts";
import { kindSource } from "../../src/controllerruntime/source.ts";
import { enqueueForObject } from "../../src/controllerruntime/handlers.ts";
import { newControllerManagedBy } from "../../src/controllerruntime/builder.ts";
import { Manager } from "../../src/controllerruntime/manager.ts";
import { summarize } from "../support/stats.ts";

export const sentAtAnnotation = "bench.gardener.cloud/sent-at";

/** Runs fn for i in [0, n) with `concurrency` loops. */
export async function forEachConcurrent(n: number, concurrency: number, fn: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < n) await fn(next++);
    }),
  );
}

/** Resolves when cond() holds, checking every few ms; rejects after timeoutMs. */
export async function until(what: string, cond: () => boolean, timeoutMs: number): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 2));
  }
}

/** The runtime alone: list + watch events from memory through informer, queue and a no-op reconciler. */
export async function inMemoryEventsPerSec(objects: number): Promise<number> {
  const items: KubeObject[] = Array.from({ length: objects }, (_, i) => ({ metadata: { namespace: "bench", name: `cm-${i}`, resourceVersion: "1" } }));
  let emit: ((ev: WatchEvent) => void) | undefined;
  const lw: ListerWatcher<KubeObject> = {
    list: async (): Promise<KubeList> => ({ metadata: { resourceVersion: "1" }, items }),
    watch: (_rv, onEvent, signal) =>
      new Promise<void>((resolve) => {
        emit = onEvent;
        signal.addEventListener("abort", () => resolve(), { once: true });
      }),
  };
  const informer = new Informer(lw);
  let reconciled = 0;
  const controller = new Controller({ name: "noop", maxConcurrentReconciles: 4 }, async () => {
    reconciled++;
  });
  controller.watch(kindSource(informer, enqueueForObject()));
  const t0 = performance.now();
  informer.start();
  await controller.start();
  await until("in-memory list reconciled", () => reconciled >= objects, 60_000);
  await until("watch open", () => emit !== undefined, 10_000);
  for (let i = 0; i < objects; i++) emit!({ type: "MODIFIED", object: { metadata: { namespace: "bench", name: `cm-${i}`, resourceVersion: "2" } } });
  await until("in-memory watch events reconciled", () => reconciled >= 2 * objects, 60_000);
  const secs = (performance.now() - t0) / 1000;
  await controller.stop();
  await informer.stop();
  return (2 * objects) / secs;
}

export interface ServerFigures {
  listEventsPerSec: number;
  watchEventsPerSec: number;
  serverWritesPerSec: number;
  latency: { n: number; p50: number; p99: number; max: number };
  latencyWrites: number;
}

/**
 * Against the real server: a manager with a no-op controller over `objects` ConfigMaps. Measures
 * the initial list flowing into reconciles, a burst of updates flowing through the watch, and the
 * write-to-reconcile latency at a fixed write rate.
 */
export async function measureAgainstServer(
  writer: Client,
  managerClient: Client,
  ns: string,
  opts: { objects: number; concurrency: number; rate: number; durationMs: number },
): Promise<ServerFigures> {
  const mgr = new Manager({ client: managerClient, server: false, defaultMetrics: false });
  const seen = new Set<string>();
  let reconciles = 0;
  const latencies: number[] = [];
  const store = mgr.cache.informerFor(ConfigMaps).store;
  newControllerManagedBy(mgr)
    .named("noop")
    .for(ConfigMaps)
    .withOptions({ maxConcurrentReconciles: 4 })
    .complete(async (req) => {
      const key = `${req.namespace}/${req.name}`;
      reconciles++;
      seen.add(key);
      const sent = Number(store.get(key)?.metadata.annotations?.[sentAtAnnotation] ?? NaN);
      if (Number.isFinite(sent)) latencies.push(performance.now() - sent);
    });

  const t0 = performance.now();
  await mgr.start();
  await until("all objects reconciled once", () => seen.size >= opts.objects, 300_000);
  const listEventsPerSec = opts.objects / ((performance.now() - t0) / 1000);

  // A burst of updates, as fast as the server takes them; the reconciles trail the writes.
  const before = reconciles;
  const t1 = performance.now();
  await forEachConcurrent(opts.objects, opts.concurrency, async (i) => {
    await writer.patch(ConfigMaps, { namespace: ns, name: `cm-${i}` }, { type: "merge", body: { data: { v: "burst" } } });
  });
  const writeSecs = (performance.now() - t1) / 1000;
  await until("burst reconciled", () => reconciles - before >= opts.objects, 300_000);
  const watchEventsPerSec = opts.objects / ((performance.now() - t1) / 1000);
  latencies.length = 0;

  // Fixed-rate writes (open loop: one every 1000/rate ms, whatever the answers take), each to another object.
  const total = Math.round((opts.rate * opts.durationMs) / 1000);
  const interval = 1000 / opts.rate;
  const start = performance.now();
  const inflight: Promise<unknown>[] = [];
  for (let i = 0; i < total; i++) {
    const due = start + i * interval;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const cm: Partial<ConfigMap> = { metadata: { annotations: { [sentAtAnnotation]: String(performance.now()) } } };
    inflight.push(writer.patch(ConfigMaps, { namespace: ns, name: `cm-${i % opts.objects}` }, { type: "merge", body: cm }));
  }
  await Promise.all(inflight);
  await until("fixed-rate writes reconciled", () => latencies.length >= total, 60_000).catch(() => undefined);
  await mgr.stop();
  return {
    listEventsPerSec,
    watchEventsPerSec,
    serverWritesPerSec: opts.objects / writeSecs,
    latency: summarize(latencies),
    latencyWrites: total,
  };
}
