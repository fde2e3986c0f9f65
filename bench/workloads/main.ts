// bench/workloads: pods on a real worker machine (root only). In the machine, one driver measures the
// pod runtime alone (driver.ts: the reference), another an API server, the scheduler and the node agent as
// kubelet with its kubelet server, through the API and real kubectl 1.33 (api-driver.ts): pod create ->
// Running p50/p99 one at a time and 20 at once, `kubectl exec POD -- true` and each layer under it,
// `kubectl run -it` -> prompt through a pty, memory per running pod, and how many pods run on one worker
// (default goal 100). Results: docs/kubelet.md#measured.
//   node --import tsx bench/workloads/main.ts [--pods 100]
import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { LinuxHost } from "../../src/host/index.ts";
import { benchArgs } from "../support/args.ts";

const args = benchArgs(
  "node --import tsx bench/workloads/main.ts",
  "Pods on a real worker machine (root): create -> Running one at a time and 20 at once, kubectl exec and run -it, memory per pod, how many pods one worker runs.",
  { pods: { type: "string", default: "100", help: "pods to run on the worker at once, the goal" } },
);
if (process.getuid?.() !== 0) {
  process.stderr.write("bench/workloads needs root (it starts a worker machine)\n");
  process.exit(2);
}
type P = { p50: number; p99: number; n?: number };
type Out = Record<string, P | undefined> & { error?: string; scale?: P & Record<string, number> & { createRunning: P }; deleteAllSeconds?: number };
const here = dirname(fileURLToPath(import.meta.url));
const REPO = resolve(here, "..", "..");
const load = () => readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
const stateDir = await mkdtemp(join(tmpdir(), "ga-bench-workloads-"));
const host = new LinuxHost({ stateDir, prefix: "gbw-" });
const loadBefore = load();
try {
  const binds = ["bin", "src", "node_modules", "package.json", "tsconfig.json", "bench", "test/support"].map((p) => join(REPO, p));
  const m = await host.startMachine({ name: "worker", networks: [], readOnlyBinds: binds, sshd: { hostKeyTypes: ["ed25519"], listenAddresses: ["127.0.0.1"] }, userData: "#!/bin/sh\nsystemctl start sshd\n", readyTimeoutMs: 60_000 });
  const drive = async (file: string, arg: string): Promise<Out> => {
    const r = await host.execInMachine(m.name, "sh", ["-c", `cd ${REPO} && exec node --import tsx ${join(here, file)} ${arg}`], { timeoutMs: 1_800_000 });
    const out = JSON.parse(r.stdout.trim().split("\n").pop() ?? "{}") as Out;
    if (out.error) process.stderr.write(`${file}: ${out.error}\n${r.stderr.slice(-3000)}\n`);
    return out;
  };
  const rt = await drive("driver.ts", "/var/lib/gardener-node-agent/host 0");
  const api = await drive("api-driver.ts", String(args.count("pods", 1)));
  const ms = (x: number | undefined) => `${(x ?? NaN).toFixed(0)} ms`;
  const pp = (x: P | undefined) => `p50 ${ms(x?.p50)}, p99 ${ms(x?.p99)}`;
  const ratio = (a: P | undefined, b: P | undefined) => `${((a?.p50 ?? NaN) / (b?.p50 ?? NaN)).toFixed(1)}x`;
  const s = api.scale;
  const signed = (x: number | undefined) => `${(x ?? NaN) >= 0 ? "+" : ""}${x}`;
  const rows = [
    ["pod create -> Running, one at a time", pp(api.createSerial), `runtime alone ${pp(rt.createSerial)} (${ratio(api.createSerial, rt.createSerial)})`],
    ["  seen bound to the node (scheduler)", pp(api.serial_bound), ""],
    ["  handed to the runtime (kubelet)", pp(api.serial_syncStart), ""],
    ["  runtime's sync returned", pp(api.serial_syncEnd), ""],
    ["pod create -> Running, 20 at once", pp(api.create20AtOnce), `runtime alone ${pp(rt.create20AtOnce)} (${ratio(api.create20AtOnce, rt.create20AtOnce)})`],
    ["kubectl exec POD -- true", pp(api.kubectlExec), `kubectl get pod (start + 1 request) ${pp(api.kubectlGet)}`],
    ["  exec through the API server (client-node)", pp(api.execApiServer), `${ratio(api.execApiServer, api.execKubelet)} of the kubelet server`],
    ["  exec at the kubelet server (mTLS WebSocket)", pp(api.execKubelet), `${ratio(api.execKubelet, api.execRuntime)} of the runtime`],
    ["  exec in the runtime (process spawn)", pp(api.execRuntime), ""],
    ["kubectl run -it --rm -> prompt (pty)", pp(api.runItPrompt), ""],
    ["pods Running on one worker", `${s?.running} of ${s?.requested} in ${s?.seconds?.toFixed(1)} s`, `create -> Running ${pp(s?.createRunning)}`],
    ["memory per running pod", `RSS ${s?.podRssKiB} KiB (PSS ${s?.podPssKiB} KiB, ${s?.processes} processes)`, `agent/API server process RSS ${signed(s?.selfRssKiBPerPod)} KiB; MemAvailable ${signed(-(s?.memAvailableKiBPerPod ?? NaN))} KiB`],
    ["delete all pods", `${api.deleteAllSeconds?.toFixed(1)} s`, ""],
  ];
  const w = Math.max(...rows.map((r) => r[0]!.length));
  for (const [k, v, ref] of rows) process.stdout.write(`${k!.padEnd(w)}  ${v}${ref ? `   [${ref}]` : ""}\n`);
  process.stdout.write(`load average (1/5/15 min) before ${loadBefore}, after ${load()}; ${(await import("node:os")).cpus().length} cores\n`);
} finally {
  await host.removeAll();
  await rm(stateDir, { recursive: true, force: true });
}
