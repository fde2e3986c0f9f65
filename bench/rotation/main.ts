// bench/rotation: how fast an SSH key pair rotation reaches the nodes. Garden, seed and shoot API
// servers, the controller manager, the gardenlet and N in-process node agents (machine roots in temp
// directories, as test/integration/rotation/); per rotation, from the request (the annotation) to
// `lastCompletionTime` and to every node's authorized_keys holding the new key first. Keys are
// RSA 4096, generated ahead of the rotations (key generation is not delivery; its time is printed).
//   node --import tsx bench/rotation/main.ts [--nodes 2,50 --rotations 20]
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { sshKeypairRotation } from "../../src/api/gardencore/rotation.ts";
import { Secrets } from "../../src/client/builtins.ts";
import { Shoots } from "../../src/client/garden.ts";
import { type KeyPair, generateRSAKeyPair } from "../../src/gardenlet/controller/sshkeypair/keypair.ts";
import { type Landscape, type Machine, PROJECT_NS, createShoot, startLandscape } from "../../test/integration/rotation/landscape.ts";
import { summarize, table } from "../support/stats.ts";

const { values } = parseArgs({ options: { nodes: { type: "string", default: "2,50" }, rotations: { type: "string", default: "20" } } });
const sizes = values.nodes.split(",").map(Number);
const rotations = Number(values.rotations);
const KEY = { namespace: PROJECT_NS, name: "s" };

async function until<T>(fn: () => Promise<T | undefined> | T | undefined, timeoutMs = 60_000): Promise<T> {
  const end = performance.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (performance.now() > end) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 2));
  }
}

async function run(n: number, pool: KeyPair[]): Promise<(string | number)[][]> {
  let next = 0;
  const ls: Landscape = await startLandscape({ start: Date.now(), generateKeyPair: () => Promise.resolve(pool[next++ % pool.length]!) });
  try {
    await createShoot(ls, "s", { maintenance: { autoRotation: { credentials: { sshKeypair: { rotationPeriod: "0" } } } } });
    const machines: Machine[] = [];
    for (let i = 0; i < n; i++) machines.push(await ls.startMachine(`node-${i}`));
    const currentKey = async () => Buffer.from((await ls.garden.get(Secrets, { namespace: PROJECT_NS, name: "s.ssh-keypair" })).data?.["id_rsa.pub"] ?? "", "base64").toString();
    const first = await until(() => currentKey().catch(() => undefined));
    await until(() => (machines.every((m) => m.authorizedKeys() === first) ? true : undefined));
    let previous = first;
    const toComplete: number[] = [];
    const toNodes: number[] = [];
    for (let r = 0; r < rotations; r++) {
      const before = sshKeypairRotation(await ls.garden.get(Shoots, KEY))?.lastInitiationTime;
      const t0 = performance.now();
      await ls.garden.patch(Shoots, KEY, { type: "merge", body: { metadata: { annotations: { "gardener.cloud/operation": "rotate-ssh-keypair" } } } });
      const nodes = (async () => {
        const key = await until(async () => {
          const k = await currentKey();
          return k !== previous ? k : undefined;
        });
        previous = key;
        await until(() => (machines.every((m) => readFileSync(`${m.root}/home/gardener/.ssh/authorized_keys`, "utf8").startsWith(`${key}\n`)) ? true : undefined));
        toNodes.push(performance.now() - t0);
      })();
      await until(async () => {
        const s = sshKeypairRotation(await ls.garden.get(Shoots, KEY));
        return s?.lastInitiationTime !== before && s?.lastCompletionTime && s.lastCompletionTime >= s.lastInitiationTime! ? true : undefined;
      });
      toComplete.push(performance.now() - t0);
      await nodes;
    }
    const c = summarize(toComplete);
    const k = summarize(toNodes);
    return [
      [`${n} nodes: request -> lastCompletionTime`, c.p50, c.p99, c.max],
      [`${n} nodes: request -> every authorized_keys`, k.p50, k.p99, k.max],
    ];
  } finally {
    await ls.stop();
  }
}

async function main(): Promise<void> {
  const t = performance.now();
  const pool = await Promise.all(Array.from({ length: 8 }, () => generateRSAKeyPair(4096)));
  console.error(`generated ${pool.length} RSA 4096 key pairs in ${((performance.now() - t) / 1000).toFixed(1)} s (${((performance.now() - t) / pool.length).toFixed(0)} ms each, outside the measurements)`);
  const rows: (string | number)[][] = [[`rotation (${rotations} each)`, "p50 ms", "p99 ms", "max ms"]];
  for (const n of sizes) {
    console.error(`${n} nodes ...`);
    rows.push(...(await run(n, pool)));
  }
  console.log(table(rows));
}

await main();
