// The slow-watcher phase: watchers that never read (raw TLS connections that send their request
// and stop reading, spread over a few users) while one large object is written again and again.
// Measures the server's RSS (peak, sampled from /proc) and the latency other clients see (small
// GETs, sequential per client) during the writes. Its reference: raw etcd's own reads while the
// same writes go to etcd directly (a consistent read of the etcd-backed server asks etcd first).
import { readFileSync } from "node:fs";
import type { Etcd3 } from "etcd3";
import { connect, type TLSSocket } from "node:tls";
import type { ApiServerProcess } from "../../test/support/apiserver.ts";
import { writeTokenAuthFile } from "../../test/support/kubeconfig.ts";
import { summarize } from "../support/stats.ts";
import { benchClient, expectStatus } from "./client.ts";
import { apiServerMetrics } from "./fsync.ts";

export interface SlowWatcherOptions {
  watchers: number;
  writes: number;
  objectBytes: number;
  /** Users the watchers are spread over (each opens watchers / users). */
  users: number;
}

export interface SlowWatcherFigures {
  /** Peak RSS of the server process during the phase, in MiB. */
  peakRssMiB: number;
  /** RSS before the watchers connected, in MiB. */
  baseRssMiB: number;
  othersP50Ms: number;
  othersP99Ms: number;
  othersMaxMs: number;
  othersRequests: number;
  /** Others' requests that failed (their latency is left out); the first error's message, if any. */
  othersFailed: number;
  othersFirstError?: string;
  /** Watches the server still had open after the writes (the stalled ones it ended are gone). */
  watchesLeft: number;
  writeSeconds: number;
}

const NS = "bench-slow";
const tokenOf = (i: number) => `bench-slow-watcher-${i}`;

/** Writes the token file the phase's users need (in system:masters: no RBAC to set up). */
export function writeSlowWatcherTokens(path: string, users: number): string {
  return writeTokenAuthFile(
    path,
    Array.from({ length: users }, (_, i) => ({ token: tokenOf(i), user: `bench-slow-${i}`, uid: `bench-slow-${i}`, groups: ["system:masters"] })),
  );
}

interface ReadFigures {
  latencies: number[];
  failed: number;
  firstError?: string;
}

/**
 * Four readers, each one `read` after the other (5 ms apart), until stop(): the latency other
 * clients see while the phase's writes go on. stop() resolves with every successful read's latency
 * in ms and the failed reads: one failure (a keep-alive connection the server closed as it was
 * reused, say) is counted, not a reason to abandon the phase.
 */
export function readersDuring(read: () => Promise<void>): { stop(): Promise<ReadFigures> } {
  const figures: ReadFigures = { latencies: [], failed: 0 };
  let reading = true;
  const readers = Array.from({ length: 4 }, async () => {
    while (reading) {
      const t = performance.now();
      try {
        await read();
        figures.latencies.push(performance.now() - t);
      } catch (err) {
        figures.failed++;
        figures.firstError ??= (err as Error).message;
      }
      await new Promise((r) => setTimeout(r, 5));
    }
  });
  return {
    stop: async () => {
      reading = false;
      await Promise.all(readers);
      return figures;
    },
  };
}

function rssMiB(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return m ? Number(m[1]) / 1024 : 0;
}

function stalledWatch(server: ApiServerProcess, token: string, path: string): Promise<TLSSocket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: "127.0.0.1", port: server.port, ca: server.caPem }, () => {
      socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\nAuthorization: Bearer ${token}\r\nAccept: application/json\r\n\r\n`);
      socket.pause();
      resolve(socket);
    });
    socket.once("error", reject);
  });
}

/** Watches of configmaps the server has open (its apiserver_longrunning_requests gauge). */
async function openWatches(server: ApiServerProcess): Promise<number> {
  const text = await apiServerMetrics(server.kubeconfig)();
  const line = text.split("\n").find((l) => l.startsWith("apiserver_longrunning_requests{") && l.includes('resource="configmaps"'));
  return line ? Number(line.split(" ").pop()) : 0;
}

export async function measureSlowWatchers(server: ApiServerProcess, o: SlowWatcherOptions): Promise<SlowWatcherFigures> {
  const pid = server.child.pid as number;
  const c = benchClient(server.kubeconfig, 8);
  const sockets: TLSSocket[] = [];
  try {
    expectStatus(await c.call("POST", "/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: NS } }), [201, 409], "namespace");
    const cm = (name: string, v: string, rv?: string) => ({ apiVersion: "v1", kind: "ConfigMap", metadata: { name, ...(rv ? { resourceVersion: rv } : {}) }, data: { v } });
    expectStatus(await c.call("POST", `/api/v1/namespaces/${NS}/configmaps`, cm("small", "x")), [201], "small object");
    const created = await c.call("POST", `/api/v1/namespaces/${NS}/configmaps`, cm("big", "0"));
    expectStatus(created, [201], "big object");
    let rv = (created.json.metadata as { resourceVersion: string }).resourceVersion;

    const baseRssMiB = rssMiB(pid);
    let peak = baseRssMiB;
    const sampler = setInterval(() => (peak = Math.max(peak, rssMiB(pid))), 50);
    const path = `/api/v1/namespaces/${NS}/configmaps?watch=true&resourceVersion=${rv}&timeoutSeconds=3600`;
    for (let i = 0; i < o.watchers; i++) sockets.push(await stalledWatch(server, tokenOf(i % o.users), path));

    // Others: small GETs for as long as the writes go on.
    const others = readersDuring(async () => {
      expectStatus(await c.call("GET", `/api/v1/namespaces/${NS}/configmaps/small`), [200], "bystander get");
    });
    let reads: ReadFigures = { latencies: [], failed: 0 };
    const started = performance.now();
    try {
      for (let n = 1; n <= o.writes; n++) {
        const r = await c.call("PUT", `/api/v1/namespaces/${NS}/configmaps/big`, cm("big", String(n % 10).repeat(o.objectBytes), rv));
        expectStatus(r, [200], "write big object");
        rv = (r.json.metadata as { resourceVersion: string }).resourceVersion;
      }
    } finally {
      reads = await others.stop();
      clearInterval(sampler);
    }
    const writeSeconds = (performance.now() - started) / 1000;
    const watchesLeft = await openWatches(server);
    const s = summarize(reads.latencies);
    return {
      peakRssMiB: peak,
      baseRssMiB,
      othersP50Ms: s.p50,
      othersP99Ms: s.p99,
      othersMaxMs: s.max,
      othersRequests: s.n,
      othersFailed: reads.failed,
      ...(reads.firstError ? { othersFirstError: reads.firstError } : {}),
      watchesLeft,
      writeSeconds,
    };
  } finally {
    for (const s of sockets) s.destroy();
    c.close();
  }
}

export interface RawReadFigures {
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  reads: number;
  failed: number;
}

/**
 * The reference for the etcd-backed server's others' latency: 4 clients reading (a linearizable
 * count of a prefix, the read a consistent GET of ours starts with), each one after the other,
 * while o.writes puts of an o.objectBytes value go to etcd directly.
 */
export async function measureRawEtcdReads(client: Etcd3, o: SlowWatcherOptions): Promise<RawReadFigures> {
  const value = "x".repeat(o.objectBytes);
  const readers = readersDuring(async () => void (await client.getAll().prefix("/raw-slow/").count()));
  let reads: ReadFigures = { latencies: [], failed: 0 };
  try {
    for (let n = 0; n < o.writes; n++) await client.put("/raw-slow/big").value(value);
  } finally {
    reads = await readers.stop();
  }
  await client.delete().prefix("/raw-slow/");
  const s = summarize(reads.latencies);
  return { p50Ms: s.p50, p99Ms: s.p99, maxMs: s.max, reads: s.n, failed: reads.failed };
}
