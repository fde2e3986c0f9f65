// bench/bastion-local: Bastions on the real local landscape (root; it creates namespaces, machines,
// nftables). Brings the landscape up in a fresh state directory and prints: create -> Ready latency
// one at a time and 10 at a time, `gardenctl ssh NODE -- true` wall time, `up` and `down` time, the
// memory each bastion machine costs, and 1,000 bastions alive at once: create -> all Ready, memory per
// machine, deleting 100 of them -> gone (and creating them again), and `down` with all of them alive.
// `down` runs on every exit path (also on failure and on SIGINT/SIGTERM).
//   sudo node --import tsx bench/bastion-local/main.ts [--sequential 50 --parallel 50 --concurrency 10 --ssh 20 --alive 1000 --delete 100]
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "../../src/client/client.ts";
import { down, up } from "../../src/landscape/control.ts";
import { Layout, PROJECT_NAMESPACE, SHOOT_TECHNICAL_ID } from "../../src/landscape/layout.ts";
import { ReadyWatcher } from "../bastion-control-plane/phases.ts";
import { summarize, table } from "../support/stats.ts";
import { benchArgs } from "../support/args.ts";
import { kernelKiB, machineMemory, perBastion } from "./memory.ts";
import { type Phase, createAll, createWaiting, deleteAndWait, gardenctlSSH, running } from "./phases.ts";
import { componentCpu, cpuDelta, machineCpu, settle } from "./cpu.ts";
import { HopTracer, breakdown } from "./trace.ts";
import { machineName } from "../../src/provider-local/machines/names.ts";
import { DEFAULT_BASTION_POOL_SIZE } from "../../src/provider-local/options.ts";
import { bursts } from "./bursts.ts";

const args = benchArgs(
  "flock /tmp/landscape.lock node --import tsx bench/bastion-local/main.ts",
  "Bastions on the real local landscape (root): create -> Ready one at a time, sustained and in bursts, gardenctl ssh, memory per machine, N alive at once, and down with them alive (bench/bastion-local/README.md).",
  {
    sequential: { type: "string", default: "50", help: "bastions created one at a time" },
    parallel: { type: "string", default: "50", help: "bastions created with --concurrency in flight, sustained" },
    concurrency: { type: "string", default: "10", help: "bastions in flight, and the size of a burst" },
    // Bursts of --concurrency bastions created at once, each once the pool holds its machines (bursts.ts).
    bursts: { type: "string", default: "3", help: "bursts of --concurrency bastions created at once on a full pool" },
    ssh: { type: "string", default: "20", help: "gardenctl ssh NODE -- true round trips" },
    alive: { type: "string", default: "1000", help: "bastions alive at once (0 skips the mass phases)" },
    delete: { type: "string", default: "100", help: "of those, deleted and created again before down with all alive" },
    prefix: { type: "string", default: "glb-", help: "name prefix of the host objects" },
    ports: { type: "string", default: "37443,37444,37445", help: "garden,seed,shoot API server ports" },
    trace: { type: "boolean", default: false, help: "print where each bastion's time goes, milestone by milestone" },
    // provider-local's held bastion machines (docs/adr/0015-bastion-machine-pool.md); its default when unset.
    "pool-size": { type: "string", help: "provider-local's held bastion machines (its default when unset)" },
  },
);
const values = args.values;
const n = (k: "sequential" | "parallel" | "concurrency" | "bursts" | "ssh" | "alive" | "delete" | "pool-size"): number => args.count(k);
for (const k of ["sequential", "parallel", "concurrency", "bursts", "ssh", "alive", "delete"] as const) n(k);
if (values["pool-size"] !== undefined) n("pool-size");

if (process.getuid?.() !== 0) {
  console.error("bench/bastion-local must run as root: the local landscape creates network namespaces, veths, mounts, machines and nftables rules (try: sudo npm run bench:bastion-local)");
  process.exit(2);
}

/** Refuses to start next to another landscape: they would share the host's public-network address. */
function preflight(): void {
  const others = execFileSync("ip", ["netns", "list"], { encoding: "utf8" })
    .split("\n")
    .map((l) => l.split(" ")[0]!)
    .filter((ns) => ns.endsWith("public") && !ns.startsWith(values.prefix));
  if (others.length === 0) return;
  console.error(`bench/bastion-local: another local landscape is running (network namespace ${others.join(", ")}); one landscape per host at a time: wait for it or run \`gardener-local down\` for it`);
  process.exit(2);
}

preflight();

const log = (line: string): void => console.error(`bench: ${line}`);
const mib = (kib: number): number => kib / 1024;
const [garden, seed, shoot] = values.ports.split(",").map(Number) as [number, number, number];
const layout = new Layout(mkdtempSync(join(tmpdir(), "bench-bastion-local-")));
const prefix = values.prefix;
let downMs: number | undefined;
let aliveAtDown = 0;
let downing: Promise<void> | undefined;
let failed = false;

/** `down`; the state directory is removed after a clean run and kept (for its logs) after a failure. */
function tearDown(): Promise<void> {
  downing ??= (async () => {
    const start = performance.now();
    await down(layout, prefix, log).catch((err: unknown) => ((failed = true), log(`down failed: ${String(err)}`)));
    downMs = performance.now() - start;
    if (failed) log(`state directory (logs) kept: ${layout.dir}`);
    else rmSync(layout.dir, { recursive: true, force: true });
  })();
  return downing;
}
for (const sig of ["SIGINT", "SIGTERM"] as const) {
  process.once(sig, () => {
    failed = true;
    log(`caught ${sig}, tearing the landscape down`);
    for (const child of running) child.kill("SIGTERM");
    void tearDown().finally(() => process.exit(130));
  });
}

/**
 * Waits (at most a minute) until less than 30 % of the machine's CPU is busy, so that a figure measures the
 * bastions and not what runs before them; logs and returns the wait (cpu.ts settle).
 */
async function quietMachine(what: string): Promise<number> {
  const s = await settle({ maxBusy: 0.3, windowMs: 1000, timeoutMs: 60_000 });
  log(`  waited ${(s.ms / 1000).toFixed(1)} s for ${what} to end: ${s.quiet ? "machine quiet" : `still ${(s.busy * 100).toFixed(0)} % busy, going on`}`);
  return s.ms;
}

function publicKey(): string {
  const dir = mkdtempSync(join(tmpdir(), "bench-key-"));
  try {
    execFileSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-C", "bench", "-f", join(dir, "id")]);
    return readFileSync(join(dir, "id.pub"), "utf8").trim();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  log(`state directory ${layout.dir}`);
  const upStart = performance.now();
  const pool = values["pool-size"] !== undefined ? { bastionPoolSize: n("pool-size") } : {};
  await up(layout, { prefix, ports: { garden, seed, shoot }, out: log, ...pool }).catch(async (err: unknown) => {
    failed = true;
    await tearDown();
    throw err;
  });
  const upMs = performance.now() - upStart;
  const client = Client.fromKubeconfigFile(layout.memberKubeconfig, { fieldManager: "bench-bastion-local" });
  const watcher = new ReadyWatcher(client, PROJECT_NAMESPACE);
  const p: Phase = { client, watcher, publicKey: publicKey(), readyTimeoutMs: 60_000 };
  const seedClient = values.trace ? Client.fromKubeconfigFile(join(layout.apiServerDir("seed"), "admin.kubeconfig"), { fieldManager: "bench-bastion-local" }) : undefined;
  const tracer = seedClient ? new HopTracer(client, PROJECT_NAMESPACE, seedClient, SHOOT_TECHNICAL_ID) : undefined;
  if (tracer) p.trace = { tracer, hostState: layout.hostState, machineOf: (name) => machineName("bastion", SHOOT_TECHNICAL_ID, name) };
  const rows: (string | number)[][] = [["figure", "value"], ["up: command -> landscape Ready ms", upMs]];
  const goals: [string, boolean][] = [];
  try {
    await watcher.start();
    await tracer?.start();
    const kernelNone = kernelKiB();
    const quiet = await quietMachine("the landscape's start (key and machine pools)");
    rows.push(["wait after up for a quiet machine ms", quiet]);

    log(`sequential: ${n("sequential")} bastions, one at a time ...`);
    // What the components spend with no bastion being made (the VPN's checks, key pools ...), per second:
    // the per-bastion figures below are net of it.
    const idleStart = performance.now();
    const cpuIdle = componentCpu(layout.run);
    await new Promise((r) => setTimeout(r, 5000));
    const idle = cpuDelta(cpuIdle, componentCpu(layout.run));
    const idleSec = (performance.now() - idleStart) / 1000;
    const cpuBefore = componentCpu(layout.run);
    const seqStart = performance.now();
    const seq = await createWaiting(p, "seq", n("sequential"), 1);
    const seqSec = (performance.now() - seqStart) / 1000;
    const cpuCreated = componentCpu(layout.run);
    const machines = [...machineCpu(layout.hostState)].filter(([m]) => m.includes(".bastion-seq-")).map(([, ms]) => ms);
    const alive = perBastion(machineMemory(layout.hostState));
    const kernelSeq = kernelKiB();
    if (tracer) console.log(`one at a time, hop by hop (${seq.names.length} bastions; load ${loadavg()[0]!.toFixed(1)}):\n${table(breakdown(seq.names.map((x) => tracer.milestones(x))))}\n`);
    log(`deleting ${seq.names.length} bastions ...`);
    const seqDel = await deleteAndWait(p, seq.names, n("concurrency"), 300_000);
    const cpuDeleted = componentCpu(layout.run);
    const perSeq = (ms: number) => ms / Math.max(1, seq.names.length);
    const cpuRows: (string | number)[][] = [
      [`CPU ms per bastion (one at a time; idle measured ${idleSec.toFixed(0)} s)`, "idle ms/s", "create: self", "create: self net of idle", "create: children", "create+delete: self+children net of idle"],
    ];
    const created = cpuDelta(cpuBefore, cpuCreated);
    const seqDelSec = (performance.now() - seqStart) / 1000;
    for (const [k, d] of cpuDelta(cpuBefore, cpuDeleted)) {
      const c = created.get(k)!;
      const i = idle.get(k) ?? { self: 0, children: 0 };
      const rate = { self: i.self / idleSec, children: i.children / idleSec };
      if (d.self + d.children >= 0.5 * seq.names.length) {
        const net = (x: number, r: number, sec: number) => perSeq(x - r * sec);
        cpuRows.push([k, rate.self + rate.children, perSeq(c.self), net(c.self, rate.self, seqSec), perSeq(c.children), net(d.self + d.children, rate.self + rate.children, seqDelSec)]);
      }
    }
    cpuRows.push(["the bastion machine's own processes (boot to Ready)", "", machines.length ? machines.reduce((a, b) => a + b, 0) / machines.length : NaN, "", "", ""]);
    // A component busy while idle (the gardenlet: 100 to 170 ms/s) gives noisy net figures: the raw ones are beside them.
    console.log(`${table(cpuRows)}\n`);

    log(`parallel: ${n("parallel")} bastions, ${n("concurrency")} at a time ...`);
    const par = await createWaiting(p, "par", n("parallel"), n("concurrency"));
    if (tracer) console.log(`${n("concurrency")} at a time, hop by hop (${par.names.length} bastions; load ${loadavg()[0]!.toFixed(1)}):\n${table(breakdown(par.names.map((x) => tracer.milestones(x))))}\n`);
    await deleteAndWait(p, par.names, n("concurrency"), 300_000);

    const poolSize = values["pool-size"] !== undefined ? n("pool-size") : DEFAULT_BASTION_POOL_SIZE;
    log(`bursts: ${n("bursts")} times ${n("concurrency")} bastions at once, each once the pool (${poolSize}) is full ...`);
    const burst = await bursts(p, layout.hostState, { count: n("bursts"), size: n("concurrency"), poolSize, log, quiet: () => quietMachine("the last burst's teardown and the pool's refill") });
    if (tracer) console.log(`bursts of ${n("concurrency")}, hop by hop (${burst.names.length} bastions; load ${loadavg()[0]!.toFixed(1)}):\n${table(breakdown(burst.names.map((x) => tracer.milestones(x))))}\n`);

    log(`gardenctl ssh: ${n("ssh")} runs ...`);
    const node = `${SHOOT_TECHNICAL_ID}-worker-w1`;
    const sshMs: number[] = [];
    let sshFailed = 0;
    for (let i = 0; i < n("ssh"); i++) {
      const r = await gardenctlSSH(layout.path("gardenctl"), node, ["true"]);
      log(`  run ${i + 1}: exit ${r.code} after ${r.ms.toFixed(0)} ms${/Still waiting for bastion/.test(r.out) ? " (probe retried)" : ""}`);
      if (r.code === 0) sshMs.push(r.ms);
      else if (++sshFailed === 1) log(`gardenctl ssh failed (exit ${r.code}):\n${r.out}`);
    }
    const ssh = summarize(sshMs);

    // --alive 0 skips the mass phases.
    const aliveRows: (string | number)[][] = [];
    if (n("alive") > 0) {
      log(`alive: creating ${n("alive")} bastions ...`);
      const many = await createAll(p, "alive", n("alive"), n("concurrency"), 1_800_000);
      const manyMem = perBastion(machineMemory(layout.hostState));
      const kernelMany = kernelKiB();
      const d = Math.min(n("delete"), many.names.length);
      log(`${many.ready}/${n("alive")} ready after ${(many.ms / 1000).toFixed(1)} s (load ${loadavg()[0]!.toFixed(1)}); deleting ${d} of them ...`);
      const manyDel = await deleteAndWait(p, many.names.slice(0, d), n("concurrency"), 600_000).catch(() => NaN);
      log(`creating ${d} again, then down with ${n("alive")} alive ...`);
      const again = await createAll(p, "again", d, n("concurrency"), 600_000);
      aliveAtDown = many.ready - d + again.ready;
      aliveRows.push(
        [`${n("alive")} at once: Ready`, `${many.ready}/${n("alive")}`],
        [`${n("alive")} at once: create -> all Ready s`, many.ms / 1000],
        [`${n("alive")} at once: PSS MiB per bastion machine (${manyMem.n} machines)`, mib(manyMem.pssKiB)],
        [`${n("alive")} at once: kernel memory delta MiB (total)`, mib(kernelMany - kernelNone)],
        [`${n("alive")} at once: delete ${d} of them -> gone s`, manyDel / 1000],
        [`${n("alive")} at once: the ${d} created again -> all Ready s (${again.ready}/${d})`, again.ms / 1000],
      );
      goals.push([`${n("alive")} bastions alive at once`, many.ready === n("alive") && n("alive") >= 1000]);
    }

    rows.push(
      [`one at a time: create -> Ready p50 ms (${seq.latency.n}/${seq.names.length} Ready)`, seq.latency.p50],
      ["one at a time: create -> Ready p99 ms", seq.latency.p99],
      [`${n("concurrency")} at a time, sustained: create -> Ready p50 ms (${par.latency.n}/${par.names.length} Ready)`, par.latency.p50],
      [`${n("concurrency")} at a time, sustained: create -> Ready p99 ms`, par.latency.p99],
      [`${n("concurrency")} at once, ${n("bursts")} bursts on a full pool: create -> Ready p50 ms (${burst.latency.n}/${burst.names.length} Ready)`, burst.latency.p50],
      [`${n("concurrency")} at once: create -> Ready p99 ms`, burst.latency.p99],
      ["bursts: wait for the pool and a quiet machine, max ms", Math.max(...burst.held.map((h) => h.waitMs))],
      [`delete ${seq.names.length} -> gone ms`, seqDel],
      [`gardenctl ssh NODE -- true p50 ms (${ssh.n}/${n("ssh")} exit 0)`, ssh.p50],
      ["gardenctl ssh NODE -- true p99 ms", ssh.p99],
      [`per bastion machine, ${alive.n} alive: processes`, alive.processes],
      ["per bastion machine: RSS MiB (sum over its processes)", mib(alive.rssKiB)],
      ["per bastion machine: PSS MiB (sum over its processes)", mib(alive.pssKiB)],
      ["per bastion machine: overlay upper dir MiB", mib(alive.upperKiB)],
      [`per bastion: kernel memory delta MiB (SUnreclaim+KernelStack+PageTables, ${seq.latency.n} alive vs none)`, seq.latency.n ? mib(kernelSeq - kernelNone) / seq.latency.n : NaN],
      ...aliveRows,
      ["load average (1 min) at the end", loadavg()[0]!],
    );
    goals.push(
      ["create -> Ready p50 < 300 ms, p99 < 1 s (one at a time)", seq.latency.n === seq.names.length && seq.latency.p50 < 300 && seq.latency.p99 < 1000],
      [`create -> Ready p99 < 1.5 s (${n("concurrency")} at once)`, burst.latency.n === burst.names.length && burst.names.length > 0 && burst.latency.p99 < 1500],
      ["gardenctl ssh round trip p50 < 2 s", ssh.n > 0 && ssh.p50 < 2000],
    );
  } catch (err) {
    failed = true;
    throw err;
  } finally {
    watcher.stop();
    tracer?.stop();
    client.close();
    seedClient?.close();
    log("down ...");
    await tearDown();
  }
  rows.push([`down with ${aliveAtDown} bastions alive: command -> everything removed ms`, downMs ?? NaN]);
  if (n("alive") > 0) goals.push([`down with ${aliveAtDown} alive < 60 s`, aliveAtDown >= 1000 && (downMs ?? Infinity) < 60_000]);
  console.log(table(rows));
  for (const [goal, met] of goals) console.log(`goal ${goal}: ${met ? "met" : "NOT met"}`);
}

try {
  await main();
} catch (err) {
  console.error(`bench/bastion-local failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  process.exitCode = 1;
}
