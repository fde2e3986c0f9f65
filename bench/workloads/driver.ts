// Runs inside the worker machine (started by main.ts): measures the pod runtime and prints JSON.
// usage: node --import tsx driver.ts <stateDir> <pods>
import { readFileSync, readdirSync } from "node:fs";
import { LinuxHost } from "../../src/host/index.ts";
import { NestedExec } from "../../src/host/nested-exec.ts";
import { PodRuntime } from "../../src/nodeagent/kubelet/runtime/runtime.ts";
import type { Pod } from "../../src/nodeagent/kubelet/runtime/types.ts";

const [stateDir, podsArg] = process.argv.slice(2) as [string, string];
const host = new LinuxHost({ stateDir, prefix: "gb-", exec: new NestedExec() });
const rt = new PodRuntime({ host, podCIDR: "10.97.0.0/23" });
// As the kubelet does when it starts: the container helpers are built before the first pod.
await rt.prepare();
let n = 0;
const pod = (): Pod => ({ metadata: { name: `p${n}`, namespace: "bench", uid: `bench-${(n++).toString().padStart(5, "0")}` }, spec: { containers: [{ name: "c", image: "busybox", command: ["sleep", "3600"] }] } });
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!;
const running = async (p: Pod) => (await rt.status(p)).containerStatuses.every((c) => c.state.running);

async function createTimed(p: Pod): Promise<number> {
  const t = performance.now();
  await rt.sync(p);
  while (!(await running(p))) await new Promise((r) => setTimeout(r, 5));
  return performance.now() - t;
}

function pss(pid: string): number {
  try {
    return Number(/^Pss:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, "utf8"))?.[1] ?? 0);
  } catch {
    return 0;
  }
}
/** KiB of PSS of every process of the machine except this driver, and tmpfs/slab via MemAvailable. */
function memory(): { pssKiB: number; availableKiB: number } {
  const pssKiB = readdirSync("/proc").filter((x) => /^\d+$/.test(x) && Number(x) !== process.pid).reduce((s, p) => s + pss(p), 0);
  const availableKiB = Number(/MemAvailable:\s+(\d+)/.exec(readFileSync("/proc/meminfo", "utf8"))?.[1] ?? 0);
  return { pssKiB, availableKiB };
}

const out: Record<string, unknown> = {};
const all: Pod[] = [];
const serial: number[] = [];
for (let i = 0; i < 20; i++) {
  const p = pod();
  all.push(p);
  serial.push(await createTimed(p));
}
out.createSerial = { p50: pct(serial, 50), p99: pct(serial, 99) };
const batch = Array.from({ length: 20 }, pod);
all.push(...batch);
const parallel = await Promise.all(batch.map(createTimed));
out.create20AtOnce = { p50: pct(parallel, 50), p99: pct(parallel, 99) };
const execs: number[] = [];
for (let i = 0; i < 50; i++) {
  const t = performance.now();
  const s = await rt.exec(all[0]!, "c", ["true"]);
  s.stdout.resume();
  s.stderr?.resume();
  await s.exit;
  execs.push(performance.now() - t);
}
out.exec = { p50: pct(execs, 50), p99: pct(execs, 99) };
for (const p of all) await rt.cleanup(p.metadata.uid);
all.length = 0;

const target = Number(podsArg);
const before = memory();
let ok = 0;
const t0 = performance.now();
for (let i = 0; i < target; i += 10) {
  const wave = Array.from({ length: Math.min(10, target - i) }, pod);
  all.push(...wave);
  const r = await Promise.allSettled(wave.map((p) => rt.sync(p)));
  ok += r.filter((x) => x.status === "fulfilled").length;
}
let runningPods = 0;
for (const p of all) if (await running(p)) runningPods++;
const afterMem = memory();
out.scale = {
  requested: target,
  synced: ok,
  running: runningPods,
  seconds: (performance.now() - t0) / 1000,
  pssKiBPerPod: Math.round((afterMem.pssKiB - before.pssKiB) / Math.max(1, runningPods)),
  memAvailableKiBPerPod: Math.round((before.availableKiB - afterMem.availableKiB) / Math.max(1, runningPods)),
};
const t1 = performance.now();
for (const p of all) await rt.cleanup(p.metadata.uid);
out.cleanupSecondsAll = (performance.now() - t1) / 1000;
rt.close();
process.stdout.write(`${JSON.stringify(out)}\n`);
process.exit(0);
