// Probes of the workloads bench: an exec straight at the kubelet server (as the API server's proxy does it,
// with the kubelet-client certificate) and the memory of what runs on the machine.
import { readdirSync, readFileSync } from "node:fs";
import WebSocket from "ws";

/** `command` through the kubelet server's /exec (WebSocket v5); resolves when the server closes the stream. */
export function kubeletExec(port: number, tls: { ca: string; cert: string; key: string }, ns: string, pod: string, container: string, command: string[]): Promise<void> {
  const q = new URLSearchParams([...command.map((c): [string, string] => ["command", c]), ["stdout", "1"], ["stderr", "1"]]);
  const ws = new WebSocket(`wss://127.0.0.1:${port}/exec/${ns}/${pod}/${container}?${q}`, ["v5.channel.k8s.io"], { ca: tls.ca, cert: tls.cert, key: tls.key });
  return new Promise((resolve, reject) => {
    ws.on("message", () => undefined);
    ws.once("error", reject);
    ws.once("close", () => resolve());
  });
}

function kib(pid: string, field: "Rss" | "Pss"): number {
  try {
    return Number(new RegExp(`^${field}:\\s+(\\d+)`, "m").exec(readFileSync(`/proc/${pid}/smaps_rollup`, "utf8"))?.[1] ?? 0);
  } catch {
    return 0;
  }
}

const pids = () => readdirSync("/proc").filter((x) => /^\d+$/.test(x));

export interface Memory {
  /** RSS and PSS of the processes that were not there at the baseline (the pods' shims and processes). */
  newRssKiB: number;
  newPssKiB: number;
  newProcesses: number;
  /** RSS of this process (API server, scheduler and node agent with its kubelet). */
  selfRssKiB: number;
  availableKiB: number;
}

/** Memory now; processes in `baseline` (and this one) do not count as new. */
export function memory(baseline: ReadonlySet<string>): Memory {
  const fresh = pids().filter((p) => !baseline.has(p) && Number(p) !== process.pid);
  return {
    newRssKiB: fresh.reduce((s, p) => s + kib(p, "Rss"), 0),
    newPssKiB: fresh.reduce((s, p) => s + kib(p, "Pss"), 0),
    newProcesses: fresh.filter((p) => kib(p, "Rss") > 0).length,
    selfRssKiB: kib(String(process.pid), "Rss"),
    availableKiB: Number(/MemAvailable:\s+(\d+)/.exec(readFileSync("/proc/meminfo", "utf8"))?.[1] ?? 0),
  };
}

export const processIds = (): Set<string> => new Set(pids());
