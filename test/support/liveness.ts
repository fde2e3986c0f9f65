// A bystander for attack tests: while an attack runs, another client keeps asking the server a
// cheap question and records how long each answer took. The attack tests assert that the
// bystander was always answered, within a bound (1 s), so "the server survived" means "others
// were served throughout", not only "the process is still there at the end". On a machine so busy
// that every process waits for a core, the bound grows by the longest stall an idle thread of the
// test's process saw meanwhile (a worker thread doing nothing but timing itself, so the test's own
// work does not count), so what fails is the server stalling, not the machine.
import { once } from "node:events";
import { Worker } from "node:worker_threads";
import { rawClient } from "./http.ts";

/** An idle thread that reports the longest delay of its own event loop when asked. */
const STALL_WATCH = `
const { parentPort } = require("node:worker_threads");
const { monitorEventLoopDelay } = require("node:perf_hooks");
const h = monitorEventLoopDelay({ resolution: 10 });
h.enable();
parentPort.on("message", () => { h.disable(); parentPort.postMessage(h.max / 1e6); });
`;

export interface LivenessReport {
  /** Requests sent by the bystander. */
  count: number;
  /** Slowest answer, in milliseconds (a request that failed or timed out counts as its time). */
  maxMs: number;
  /** Requests that failed or did not get a 200. */
  failures: string[];
  /** Longest delay of an idle thread's event loop meanwhile, in milliseconds: the machine's stall, not the server's. */
  hostStallMs: number;
}

export interface Bystander {
  /** Stops probing and returns what was seen. */
  stop(): Promise<LivenessReport>;
}

/**
 * Starts probing `path` (default `/api/v1/namespaces/default`) as the kubeconfig's user every
 * `everyMs` (default 100 ms), one request at a time, each allowed `timeoutMs` (default 5 s).
 */
export function startBystander(kubeconfig: string, opts: { path?: string; everyMs?: number; timeoutMs?: number } = {}): Bystander {
  const client = rawClient(kubeconfig, { maxSockets: 1 });
  const path = opts.path ?? "/api/v1/namespaces/default";
  const everyMs = opts.everyMs ?? 100;
  const report: LivenessReport = { count: 0, maxMs: 0, failures: [], hostStallMs: 0 };
  const stalls = new Worker(STALL_WATCH, { eval: true });
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      const started = performance.now();
      try {
        const r = await client.request({ path, timeoutMs: opts.timeoutMs ?? 5_000 });
        if (r.status !== 200) report.failures.push(`GET ${path}: ${r.status} ${r.body.slice(0, 200)}`);
      } catch (e) {
        report.failures.push(`GET ${path}: ${(e as Error).message}`);
      }
      const ms = performance.now() - started;
      report.count++;
      report.maxMs = Math.max(report.maxMs, ms);
      if (!stopped) await new Promise((r) => setTimeout(r, everyMs));
    }
  })();
  return {
    stop: async () => {
      stopped = true;
      await loop;
      client.close();
      stalls.postMessage("stop");
      const [maxMs] = (await once(stalls, "message")) as [number];
      report.hostStallMs = maxMs;
      await stalls.terminate();
      return report;
    },
  };
}

/**
 * Throws unless every bystander request was answered with 200 within `boundMs` (default 1 s) plus the
 * longest stall of an idle thread meanwhile (the machine's share of the wait).
 */
export function assertServedThroughout(report: LivenessReport, boundMs = 1_000): void {
  if (report.count === 0) throw new Error("the bystander sent no request");
  if (report.failures.length > 0) throw new Error(`bystander requests failed during the attack: ${report.failures.slice(0, 5).join("; ")}`);
  const bound = boundMs + report.hostStallMs;
  if (report.maxMs > bound) {
    throw new Error(`a bystander request took ${Math.round(report.maxMs)} ms (bound ${boundMs} ms + ${Math.round(report.hostStallMs)} ms an idle thread stalled) during the attack`);
  }
}
