// bench/workloads: the node agent's pod runtime in a real worker machine (root only): pod create -> running
// p50/p99 one at a time and 20 at once, exec round trip p50/p99, memory per running pod (PSS of the
// machine's processes, and MemAvailable, which also counts tmpfs and kernel memory), and how many pods run
// on one worker (default goal 100).
//   node --import tsx bench/workloads/main.ts [--pods 100]
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { LinuxHost } from "../../src/host/index.ts";

const { values } = parseArgs({ options: { pods: { type: "string", default: "100" } } });
if (process.getuid?.() !== 0) {
  process.stderr.write("bench/workloads needs root (it starts a worker machine)\n");
  process.exit(2);
}
const here = dirname(fileURLToPath(import.meta.url));
const REPO = resolve(here, "..", "..");
const stateDir = await mkdtemp(join(tmpdir(), "ga-bench-workloads-"));
const host = new LinuxHost({ stateDir, prefix: "gbw-" });
try {
  const binds = ["bin", "src", "node_modules", "package.json", "tsconfig.json", "bench/workloads"].map((p) => join(REPO, p));
  const m = await host.startMachine({ name: "worker", networks: [], readOnlyBinds: binds, sshd: { hostKeyTypes: ["ed25519"], listenAddresses: ["127.0.0.1"] }, userData: "#!/bin/sh\nsystemctl start sshd\n", readyTimeoutMs: 60_000 });
  const r = await host.execInMachine(m.name, "sh", ["-c", `cd ${REPO} && exec node --import tsx ${join(here, "driver.ts")} /var/lib/gardener-node-agent/host ${Number(values.pods)}`], { timeoutMs: 1_800_000 });
  const out = JSON.parse(r.stdout.trim().split("\n").pop() ?? "{}") as Record<string, Record<string, number>>;
  const ms = (x: number | undefined) => `${(x ?? NaN).toFixed(0)} ms`;
  const lines = [
    ["pod create -> running, one at a time", `p50 ${ms(out.createSerial?.p50)}, p99 ${ms(out.createSerial?.p99)}`],
    ["pod create -> running, 20 at once", `p50 ${ms(out.create20AtOnce?.p50)}, p99 ${ms(out.create20AtOnce?.p99)}`],
    ["exec round trip (true)", `p50 ${ms(out.exec?.p50)}, p99 ${ms(out.exec?.p99)}`],
    ["pods running on one worker", `${out.scale?.running} of ${out.scale?.requested} (${out.scale?.seconds?.toFixed(1)} s, waves of 10)`],
    ["memory per running pod", `PSS ${out.scale?.pssKiBPerPod} KiB, MemAvailable ${out.scale?.memAvailableKiBPerPod} KiB`],
    ["cleanup of all pods", `${(out as unknown as { cleanupSecondsAll: number }).cleanupSecondsAll?.toFixed(1)} s`],
  ];
  for (const [k, v] of lines) process.stdout.write(`${k.padEnd(40)} ${v}\n`);
} finally {
  await host.removeAll();
  await rm(stateDir, { recursive: true, force: true });
}
