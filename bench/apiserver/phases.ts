// The measured phases of the API server benchmark, each against one running server.
import { benchClient, expectStatus, type BenchClient, type Protocol } from "./client.ts";
import { readFileSync } from "node:fs";
import { rate, summarize } from "../support/stats.ts";
import type { FsyncFigures, FsyncMeter } from "./fsync.ts";
import { CpuTally, parseStatCpuMs, sampleCpu, type SliceCpu } from "./cpu-budget.ts";

/** CPU time (user + system) a process used so far, in ms (/proc/<pid>/stat, USER_HZ = 100). */
export function processCpuMs(pid: number): number {
  return parseStatCpuMs(readFileSync(`/proc/${pid}/stat`, "utf8"));
}

export interface ServerFigures {
  createsPerSec: number;
  /** Raw etcd puts/s measured in slices alternating with this server's creates (the reference of every ratio). */
  rawPutsPerSec: number;
  /** The server process's CPU per create, in ms: moves less with other load on the machine than the rates. */
  cpuMsPerCreate: number;
  /** Creates/s during the unmeasured warm-up (a fresh server's JIT compiles as it goes). */
  warmupCreatesPerSec: number;
  updatesPerSec: number;
  getsPerSec: number;
  listsPerSec: number;
  watchP50Ms: number;
  watchP99Ms: number;
  watchEvents: number;
  /** The WAL fsyncs during the measured creates (the SQLite server's, or etcd's for the etcd-backed one). */
  fsync: FsyncFigures | undefined;
  /** The machine's CPU during the measured raw etcd puts and during the creates. */
  cpu: { raw: SliceCpu; creates: SliceCpu };
}

export interface PhaseOptions {
  clients: number;
  durationMs: number;
  /** The create phase alternates this many slices of raw etcd puts and of the server's creates. */
  slices: number;
  /** Unmeasured creates (and raw etcd puts) before the measured slices: the JIT reaches its steady state. */
  warmupMs: number;
  watchers: number;
  watchWrites: number;
  /**
   * The requests' protocol outside the protocol comparison: HTTP/2 as client-go and kubectl speak it
   * (`clientsPerSession` clients as streams of one session), or HTTP/1.1 (a connection per client).
   */
  protocol: Protocol;
  clientsPerSession: number;
}

/** The phases' client: o.protocol with o.clientsPerSession clients per HTTP/2 session. */
function phaseClient(kubeconfig: string, o: PhaseOptions): BenchClient {
  return benchClient(kubeconfig, o.clients, { protocol: o.protocol, clientsPerSession: o.clientsPerSession });
}

const cmPath = (ns: string, name = "") => `/api/v1/namespaces/${ns}/configmaps${name ? `/${name}` : ""}`;

async function namespace(c: BenchClient, name: string): Promise<void> {
  const r = await c.call("POST", "/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name } });
  expectStatus(r, [201, 409], `create namespace ${name}`);
}

function configMap(name: string, data: Record<string, string>, rv?: string) {
  return { apiVersion: "v1", kind: "ConfigMap", metadata: { name, ...(rv ? { resourceVersion: rv } : {}) }, data };
}

function rvOf(json: Record<string, unknown>): string {
  return (json.metadata as { resourceVersion: string }).resourceVersion;
}

/** Runs `clients` loops of an operation for `durationMs`; returns how many completed and how long it took. */
export type Slice = (durationMs: number) => Promise<{ ops: number; ms: number }>;

/** Loops of `worker` over `clients` connections, numbering operations from `next()`. */
function slice(clients: number, next: () => number, worker: (i: number) => Promise<void>): Slice {
  return async (durationMs) => {
    const started = performance.now();
    let ops = 0;
    await rate(clients, durationMs, async () => {
      await worker(next());
      ops++;
    });
    return { ops, ms: performance.now() - started };
  };
}

/**
 * Creates/s, alternating o.slices slices of raw etcd puts (`reference`) and of the server's creates,
 * so that the load of other processes on a shared machine hits both figures alike, after an
 * unmeasured warm-up of each; the server's CPU counts during its own slices only.
 */
async function interleavedCreates(
  c: BenchClient,
  serverPid: number | undefined,
  o: PhaseOptions,
  reference: Slice,
  onCreated: (i: number, rv: string) => void,
  meter?: FsyncMeter,
) {
  let seq = 0;
  const creates = slice(o.clients, () => seq++, async (i) => {
    const r = await c.call("POST", cmPath("bench"), configMap(`cm-${i}`, { k: "v" }));
    expectStatus(r, [201], "create");
    onCreated(i, rvOf(r.json));
  });
  // Unmeasured first: JIT and connections warm on both sides (a fresh server needs seconds of load).
  await reference(o.warmupMs);
  const warm = await creates(o.warmupMs);
  const raw = { ops: 0, ms: 0 };
  const own = { ops: 0, ms: 0, cpuMs: 0 };
  const rawCpu = new CpuTally();
  const ownCpu = new CpuTally();
  for (let s = 0; s < o.slices; s++) {
    const rawBefore = sampleCpu();
    const ref = await reference(o.durationMs / o.slices);
    rawCpu.add(rawBefore, sampleCpu(), ref.ops, ref.ms);
    raw.ops += ref.ops;
    raw.ms += ref.ms;
    await meter?.start();
    const cpuBefore = serverPid === undefined ? 0 : processCpuMs(serverPid);
    const ownBefore = sampleCpu(serverPid);
    const mine = await creates(o.durationMs / o.slices);
    ownCpu.add(ownBefore, sampleCpu(serverPid), mine.ops, mine.ms);
    own.cpuMs += serverPid === undefined ? 0 : processCpuMs(serverPid) - cpuBefore;
    await meter?.stop(mine.ops);
    own.ops += mine.ops;
    own.ms += mine.ms;
  }
  return {
    createsPerSec: (own.ops * 1000) / own.ms,
    rawPutsPerSec: (raw.ops * 1000) / raw.ms,
    cpuMsPerCreate: own.cpuMs / Math.max(1, own.ops),
    warmupCreatesPerSec: warm.ops > 0 ? (warm.ops * 1000) / warm.ms : 0,
    fsync: meter?.figures(),
    cpu: { raw: rawCpu.figures(), creates: ownCpu.figures() },
  };
}

/** `meter`: the WAL fsyncs behind the server's writes, taken around each measured create slice. */
export async function measureServer(kubeconfig: string, serverPid: number, o: PhaseOptions, reference: Slice, meter?: FsyncMeter): Promise<ServerFigures> {
  const c = phaseClient(kubeconfig, o);
  try {
    await namespace(c, "bench");
    const versions: string[] = [];
    const { createsPerSec, rawPutsPerSec, cpuMsPerCreate, warmupCreatesPerSec, fsync, cpu } = await interleavedCreates(c, serverPid, o, reference, (i, rv) => (versions[i] = rv), meter);
    const created = versions.length;
    // Each client updates its own slice of the objects, so PUTs with resourceVersion never conflict.
    const cursor = Array.from({ length: o.clients }, (_, w) => w);
    let worker = 0;
    const updatesPerSec = await rate(o.clients, o.durationMs, async () => {
      const w = worker++ % o.clients;
      const i = cursor[w]! % created;
      cursor[w]! += o.clients;
      const r = await c.call("PUT", cmPath("bench", `cm-${i}`), configMap(`cm-${i}`, { k: `v${cursor[w]}` }, versions[i]));
      expectStatus(r, [200], "update");
      versions[i] = rvOf(r.json);
    });
    const getsPerSec = await rate(o.clients, o.durationMs, async (i) => {
      expectStatus(await c.call("GET", cmPath("bench", `cm-${i % created}`)), [200], "get");
    });
    await namespace(c, "bench-list");
    for (let i = 0; i < 100; i++) expectStatus(await c.call("POST", cmPath("bench-list"), configMap(`l-${i}`, { k: "v" })), [201], "create");
    const listsPerSec = await rate(o.clients, o.durationMs, async () => {
      expectStatus(await c.call("GET", cmPath("bench-list")), [200], "list");
    });
    const watch = await measureWatch(c, o);
    return { createsPerSec, rawPutsPerSec, cpuMsPerCreate, warmupCreatesPerSec, updatesPerSec, getsPerSec, listsPerSec, watchP50Ms: watch.p50, watchP99Ms: watch.p99, watchEvents: watch.n, fsync, cpu };
  } finally {
    c.close();
  }
}

/** Creates/s alone, interleaved with raw etcd puts as in measureServer (for a server run that measures nothing else). */
export async function measureCreates(
  kubeconfig: string,
  o: PhaseOptions,
  reference: Slice,
  serverPid?: number,
): Promise<{ createsPerSec: number; rawPutsPerSec: number; cpuMsPerCreate: number; warmupCreatesPerSec: number }> {
  const c = phaseClient(kubeconfig, o);
  try {
    await namespace(c, "bench");
    return await interleavedCreates(c, serverPid, o, reference, () => undefined);
  } finally {
    c.close();
  }
}

export interface ProtocolFigures {
  protocol: Protocol;
  createsPerSec: number;
  cpuMsPerCreate: number;
}

/**
 * Creates/s over HTTP/1.1 (one connection per client) and over HTTP/2 (one session for all
 * clients, as client-go), alternating o.slices slices of each after an unmeasured warm-up of both,
 * so the machine's other load hits both alike; the server's CPU counts during each one's slices.
 */
export async function measureProtocols(kubeconfig: string, serverPid: number, o: PhaseOptions): Promise<ProtocolFigures[]> {
  const protocols: Protocol[] = ["http/1.1", "h2"];
  const clients = protocols.map((protocol) => benchClient(kubeconfig, o.clients, { protocol }));
  try {
    await namespace(clients[0]!, "bench-protocols");
    let seq = 0;
    const slices = clients.map((c) =>
      slice(o.clients, () => seq++, async (i) => {
        expectStatus(await c.call("POST", cmPath("bench-protocols"), configMap(`p-${i}`, { k: "v" })), [201], "create");
      }),
    );
    for (const s of slices) await s(o.warmupMs / slices.length);
    const sums = protocols.map(() => ({ ops: 0, ms: 0, cpuMs: 0 }));
    for (let n = 0; n < o.slices; n++) {
      // Each round starts with the other protocol, so neither always follows the same one.
      for (let k = 0; k < slices.length; k++) {
        const p = (n + k) % slices.length;
        const cpuBefore = processCpuMs(serverPid);
        const r = await slices[p]!(o.durationMs / o.slices);
        sums[p]!.cpuMs += processCpuMs(serverPid) - cpuBefore;
        sums[p]!.ops += r.ops;
        sums[p]!.ms += r.ms;
      }
    }
    return protocols.map((protocol, p) => ({ protocol, createsPerSec: (sums[p]!.ops * 1000) / sums[p]!.ms, cpuMsPerCreate: sums[p]!.cpuMs / Math.max(1, sums[p]!.ops) }));
  } finally {
    for (const c of clients) c.close();
  }
}

/** watchers streams on one namespace; one writer stamps each update with its send time. */
async function measureWatch(c: BenchClient, o: PhaseOptions): Promise<{ p50: number; p99: number; n: number }> {
  await namespace(c, "bench-watch");
  const created = await c.call("POST", cmPath("bench-watch"), configMap("w", { t: "0" }));
  expectStatus(created, [201], "create watched object");
  let rv = rvOf(created.json);
  const latencies: number[] = [];
  const streams = [];
  for (let i = 0; i < o.watchers; i++) {
    streams.push(
      await c.watch(`${cmPath("bench-watch")}?watch=true&resourceVersion=${rv}`, (line) => {
        const ev = JSON.parse(line) as { type: string; object: { data?: { t?: string } } };
        const sent = Number(ev.object.data?.t);
        if (ev.type === "MODIFIED" && sent > 0) latencies.push(performance.timeOrigin + performance.now() - sent);
      }),
    );
  }
  for (let n = 0; n < o.watchWrites; n++) {
    const r = await c.call("PUT", cmPath("bench-watch", "w"), configMap("w", { t: String(performance.timeOrigin + performance.now()) }, rv));
    expectStatus(r, [200], "update watched object");
    rv = rvOf(r.json);
    await new Promise((res) => setTimeout(res, 20));
  }
  const expected = o.watchers * o.watchWrites;
  const deadline = Date.now() + 30_000;
  while (latencies.length < expected && Date.now() < deadline) await new Promise((res) => setTimeout(res, 50));
  for (const s of streams) s.close();
  if (latencies.length < expected) throw new Error(`watch: only ${latencies.length} of ${expected} events arrived`);
  const s = summarize(latencies);
  return { p50: s.p50, p99: s.p99, n: s.n };
}
