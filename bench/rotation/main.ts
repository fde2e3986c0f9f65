// bench/rotation: how fast an SSH key pair rotation reaches the nodes. By default (root) on the real
// local landscape: its garden, seed and shoot API servers, controller manager and gardenlet as
// processes, and worker machines each running a real node agent: first the landscape's 2, then 48
// more worker machines on the same shoot (bench/rotation/workers.ts), 50 in all. Per rotation, from
// the request (the project member sets the annotation) to: the OSC Secret with the new key (the
// gardenlet's RSA 4096 key generation included), `lastCompletionTime`, and every node's
// authorized_keys holding the new key first and the previous one second, and every Node reporting the
// new checksum (node agent vs gardenlet share of the wait). Also: each added machine's
// boot time (start -> its Node reports the current configuration) and memory.
// `--in-process` runs the same measurement without root on in-process API servers and node agents
// (test/integration/rotation/landscape.ts, keys generated ahead).
//   sudo node --import tsx bench/rotation/main.ts [--nodes 2,50 --rotations 20 --boot-concurrency 4 --pool-size 24]
//   node --import tsx bench/rotation/main.ts --in-process [--nodes 2,50 --rotations 20]
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { loadavg } from "node:os";
import { ANNOTATION_CHECKSUM_DATA_SCRIPT, LABEL_ROLE, LABEL_WORKER_POOL, OSC_NAMESPACE, ROLE_OSC } from "../../src/api/gardencore/osc.ts";
import { Secrets } from "../../src/client/builtins.ts";
import { type KeyPair, generateRSAKeyPair } from "../../src/gardenlet/controller/sshkeypair/keypair.ts";
import { PROJECT_NAMESPACE, SHOOT, WORKER_POOL } from "../../src/landscape/layout.ts";
import { startLandscape } from "../../test/e2e/support/landscape.ts";
import { type Landscape as InProcess, type Machine, PROJECT_NS, createShoot, startLandscape as startInProcess } from "../../test/integration/rotation/landscape.ts";
import { machineMemory } from "../bastion-local/memory.ts";
import { summarize, table } from "../support/stats.ts";
import { benchArgs } from "../support/args.ts";
import { type RotationSample, type RotationTarget, measureRotation } from "./measure.ts";
import { landscapeWorkers } from "./workers.ts";

const args = benchArgs(
  "node --import tsx bench/rotation/main.ts",
  "How fast an SSH key pair rotation reaches the nodes: request -> new key in the OSC Secret, lastCompletionTime, every node's authorized_keys and every Node's checksum; boot time and memory of added worker machines.",
  {
    nodes: { type: "string", default: "2,50", help: "worker node counts to measure with, in order (machines added between)" },
    rotations: { type: "string", default: "20", help: "rotations per node count" },
    "boot-concurrency": { type: "string", default: "4", help: "worker machines booted at once" },
    "in-process": { type: "boolean", default: false, help: "in-process API servers and node agents instead of the landscape (no root)" },
    prefix: { type: "string", default: "glr-", help: "host object prefix of the landscape" },
    ports: { type: "string", default: "38443,38444,38445", help: "garden,seed,shoot API server ports" },
    // The gardenlet's key pool: this many back-to-back rotations take a pair generated ahead.
    "pool-size": { type: "string", default: "24", help: "the gardenlet's key pool (pairs generated ahead)" },
    // Where the gardenlet serves /metrics: each series starts once its key pool is full.
    "gardenlet-metrics": { type: "string", default: "127.0.0.1:38446", help: "where the gardenlet serves /metrics (each series waits for a full key pool)" },
  },
);
const values = args.values;
const sizes = args.counts("nodes", 1);
const rotations = args.count("rotations", 1);
const log = (line: string): void => void process.stderr.write(`${new Date().toISOString()} bench: ${line}\n`);
const ms = (n: number): string => n.toFixed(0);
const load = (): string => loadavg().map((l) => l.toFixed(1)).join(" ");

async function measure(label: string, t: RotationTarget): Promise<(string | number)[][]> {
  const samples: RotationSample[] = [];
  const loadBefore = load();
  for (let r = 0; r < rotations; r++) {
    samples.push(await measureRotation(t));
    const last = samples[samples.length - 1]!;
    log(`${label}: rotation ${r + 1}/${rotations}: OSC ${ms(last.toOSC)} ms, completed ${ms(last.toComplete)} ms, every authorized_keys ${ms(last.toNodes)} ms`);
  }
  const row = (what: string, pick: (s: RotationSample) => number): (string | number)[] => {
    const s = summarize(samples.map(pick).filter((v) => !Number.isNaN(v)));
    return [`${label}: ${what}`, Math.round(s.p50), Math.round(s.p99), Math.round(s.max)];
  };
  return [
    [`${label}: load average before / after`, loadBefore, load(), ""],
    row("request -> OSC written (incl. key generation)", (s) => s.toOSC),
    row("OSC written -> every authorized_keys", (s) => s.oscToNodes),
    row("OSC written -> every Node reports it", (s) => s.oscToReported),
    row("OSC written -> lastCompletionTime", (s) => s.oscToComplete),
    row("request -> lastCompletionTime", (s) => s.toComplete),
    row("request -> every authorized_keys", (s) => s.toNodes),
  ];
}

const header = (): (string | number)[][] => [[`rotation (${rotations} each)`, "p50 ms", "p99 ms", "max ms"]];

async function inProcess(): Promise<void> {
  const t = performance.now();
  const pool: KeyPair[] = await Promise.all(Array.from({ length: 8 }, () => generateRSAKeyPair(4096)));
  log(`generated ${pool.length} RSA 4096 key pairs in ${((performance.now() - t) / 1000).toFixed(1)} s, outside the measurements`);
  const rows = header();
  for (const n of sizes) {
    let next = 0;
    const ls: InProcess = await startInProcess({ start: Date.now(), generateKeyPair: () => Promise.resolve(pool[next++ % pool.length]!) });
    try {
      await createShoot(ls, "s", { maintenance: { autoRotation: { credentials: { sshKeypair: { rotationPeriod: "0" } } } } });
      const machines: Machine[] = [];
      for (let i = 0; i < n; i++) machines.push(await ls.startMachine(`node-${i}`));
      const target: RotationTarget = { garden: ls.garden, requester: ls.garden, shoot: { namespace: PROJECT_NS, name: "s" }, shootClient: ls.shoot, nodeKeys: () => machines.map((m) => m.authorizedKeys()) };
      await until(() => agreed(target.nodeKeys()));
      rows.push(...(await measure(`${n} in-process node agents`, target)));
    } finally {
      await ls.stop();
    }
  }
  console.log(table(rows));
}

/** The nodes all hold the same, non-empty authorized_keys. */
const agreed = (keys: (string | undefined)[]): true | undefined => (keys.length > 0 && keys.every((k) => k && k === keys[0]) ? true : undefined);

async function until<T>(fn: () => T | undefined | Promise<T | undefined>, timeoutMs = 120_000): Promise<T> {
  const end = performance.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (performance.now() > end) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Waits until the gardenlet's key pool holds its full size (its /metrics), so no rotation waits for a generation. */
async function poolFull(address: string): Promise<void> {
  const t = performance.now();
  const gauge = (text: string, name: string): number => Number(new RegExp(`^${name} (\\S+)$`, "m").exec(text)?.[1] ?? NaN);
  const level = await until(async () => {
    const text = await fetch(`http://${address}/metrics`).then((r) => r.text(), () => "");
    const [n, size] = [gauge(text, "gardenlet_ssh_keypair_pool_available"), gauge(text, "gardenlet_ssh_keypair_pool_size")];
    if (size > 0 && n >= size) return `${n}/${size}`;
    await new Promise((r) => setTimeout(r, 500));
    return undefined;
  }, 600_000);
  log(`gardenlet key pool full (${level}) after ${((performance.now() - t) / 1000).toFixed(1)} s; load average ${load()}`);
}

const memAvailableMiB = (): number => Number(/^MemAvailable:\s+(\d+)/m.exec(readFileSync("/proc/meminfo", "utf8"))?.[1] ?? 0) / 1024;

async function onLandscape(): Promise<void> {
  if (process.getuid?.() !== 0) {
    console.error("bench/rotation must run as root (the local landscape creates namespaces, machines and nftables); `--in-process` runs without root");
    process.exit(2);
  }
  const others = execFileSync("ip", ["netns", "list"], { encoding: "utf8" }).split("\n").map((l) => l.split(" ")[0]!).filter((ns) => ns.endsWith("public") && !ns.startsWith(values.prefix));
  if (others.length > 0) {
    console.error(`bench/rotation: another local landscape is running (${others.join(", ")}); run it under flock /tmp/landscape.lock`);
    process.exit(2);
  }
  const [garden, seed, shoot] = values.ports.split(",").map(Number) as [number, number, number];
  const t = performance.now();
  const l = await startLandscape({ prefix: values.prefix, ports: { garden, seed, shoot }, out: log, sshKeypairPoolSize: args.count("pool-size"), gardenletMetricsAddress: values["gardenlet-metrics"] });
  log(`gardenlet key pool: ${values["pool-size"]} pairs`);
  log(`landscape up in ${((performance.now() - t) / 1000).toFixed(1)} s`);
  const workers = await landscapeWorkers(l);
  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => (stopping ??= workers.removeAdded().finally(() => l.stop(log)));
  for (const sig of ["SIGINT", "SIGTERM"] as const) process.once(sig, () => void stop().finally(() => process.exit(130)));
  try {
    const target: RotationTarget = { garden: l.garden, requester: l.member, shoot: { namespace: PROJECT_NAMESPACE, name: SHOOT }, shootClient: l.shoot, nodeKeys: workers.keys };
    const checksum = async (): Promise<string | undefined> => {
      const osc = await l.shoot.list(Secrets, { namespace: OSC_NAMESPACE, labelSelector: `${LABEL_ROLE}=${ROLE_OSC},${LABEL_WORKER_POOL}=${WORKER_POOL}` });
      return osc.items[0]?.metadata.annotations?.[ANNOTATION_CHECKSUM_DATA_SCRIPT];
    };
    const rows = header();
    const extra: (string | number)[][] = [];
    for (const n of sizes) {
      const have = workers.machines.length;
      if (n > have) {
        const names = Array.from({ length: n - have }, (_, i) => `b${String(have + i + 1).padStart(3, "0")}`);
        const before = memAvailableMiB();
        const tb = performance.now();
        const boot = await workers.add(names, args.count("boot-concurrency", 1), checksum, log);
        const b = summarize(boot);
        extra.push([`boot of ${names.length} worker machines (${values["boot-concurrency"]} at once): start -> Node applied the OSC`, Math.round(b.p50), Math.round(b.p99), Math.round(b.max)]);
        extra.push([`  all ${names.length} booted after (ms)`, Math.round(performance.now() - tb), "", ""]);
        const mem = machineMemory(l.layout.hostState).filter((m) => workers.machines.some((w) => w.name === m.name));
        const avg = (f: (m: (typeof mem)[number]) => number): number => Math.round(mem.reduce((a, m) => a + f(m), 0) / Math.max(1, mem.length) / 1024);
        extra.push([`  memory per worker machine (MiB, ${mem.length} machines): RSS / PSS / overlay upper`, avg((m) => m.rssKiB), avg((m) => m.pssKiB), avg((m) => m.upperKiB)]);
        extra.push([`  MemAvailable drop while adding them (MiB)`, Math.round(before - memAvailableMiB()), "", ""]);
      }
      if (workers.machines.length !== n) throw new Error(`expected ${n} worker machines, the host records ${workers.machines.length}`);
      await until(() => agreed(workers.keys()));
      await poolFull(values["gardenlet-metrics"]);
      rows.push(...(await measure(`${n} worker machines`, target)));
    }
    console.log(table(rows));
    if (extra.length) console.log(table([["worker machines", "p50", "p99", "max"], ...extra]));
  } finally {
    await stop();
  }
}

await (values["in-process"] ? inProcess() : onLandscape());
