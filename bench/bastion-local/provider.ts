// provider-local alone (root, no landscape, so no landscape lock): an in-process seed API server,
// provider-local on a LinuxHost of its own prefix, one shoot with two workers, then extension Bastions
// one at a time and `--concurrency` at a time, each timed from its create to lastOperation Succeeded
// with its status written (the provider's share of a garden Bastion's create -> Ready). Every process
// provider-local starts is counted and timed by command (`--commands` prints them).
//   node --import tsx bench/bastion-local/provider.ts [--sequential 20 --parallel 20 --concurrency 10 --commands]
import { readFile } from "node:fs/promises";
import { loadavg } from "node:os";
import { join } from "node:path";
import { ExtensionBastions } from "../../src/extensions/resources.ts";
import { HostExec, LinuxHost, type Exec } from "../../src/host/index.ts";
import { newTestHost, cleanUpAndAssertNoLeaks, type TestHost } from "../../test/e2e/host/support.ts";
import { createShoot, extensionBastion, startSeed, type Seed } from "../../test/e2e/provider-local/support.ts";
import { summarize, table } from "../support/stats.ts";
import { benchArgs } from "../support/args.ts";

const args = benchArgs(
  "node --import tsx bench/bastion-local/provider.ts",
  "provider-local alone (root, no landscape): extension Bastions one at a time and --concurrency at a time, create -> Succeeded, and the processes it starts.",
  {
    sequential: { type: "string", default: "20", help: "bastions created one at a time" },
    parallel: { type: "string", default: "20", help: "bastions created --concurrency at a time" },
    concurrency: { type: "string", default: "10", help: "bastions in flight in the parallel phase" },
    commands: { type: "boolean", default: false, help: "print the processes started per bastion, by command" },
  },
);
const values = args.values;
const counts = { sequential: args.count("sequential"), parallel: args.count("parallel"), concurrency: args.count("concurrency", 1) };

if (process.getuid?.() !== 0) {
  console.error("bench/bastion-local/provider.ts must run as root (it creates machines)");
  process.exit(2);
}

/** Counts and times every process run through it, by command name. */
class CountingExec implements Exec {
  readonly byCommand = new Map<string, { n: number; ms: number }>();
  constructor(private readonly inner: HostExec) {}
  private count(cmd: string, args: readonly string[], ms: number): void {
    const key = cmd === "nsenter" ? `nsenter ${args.find((a) => !a.startsWith("-")) ?? ""}` : `${cmd.split("/").pop()} ${cmd.endsWith("nsutil") ? (args[0] ?? "") : ""}`.trim();
    const c = this.byCommand.get(key) ?? { n: 0, ms: 0 };
    c.n++;
    c.ms += ms;
    this.byCommand.set(key, c);
  }
  async run(...a: Parameters<Exec["run"]>): ReturnType<Exec["run"]> {
    const start = performance.now();
    try {
      return await this.inner.run(...a);
    } finally {
      const [cmd, args, o] = a;
      this.count(o?.netns ? "nsenter" : cmd, o?.netns ? [cmd] : args, performance.now() - start);
    }
  }
  spawnDetached(...a: Parameters<Exec["spawnDetached"]>): ReturnType<Exec["spawnDetached"]> {
    this.count(a[0], a[1], 0);
    return this.inner.spawnDetached(...a);
  }
  netnsNames(): Promise<string[]> {
    return this.inner.netnsNames();
  }
}

const NS = "shoot--bench--p";

async function createAndWait(seed: Seed, names: string[], concurrency: number, key: string): Promise<number[]> {
  const ms: number[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < names.length) {
        const name = names[next++]!;
        const start = performance.now();
        await seed.client.create(ExtensionBastions, extensionBastion(NS, name, key, ["198.18.0.0/16"]));
        // A watch would be cheaper; a 5 ms poll of one object is close enough for hundreds of ms.
        for (;;) {
          const b = await seed.client.get(ExtensionBastions, { namespace: NS, name });
          if (b.status?.lastOperation?.state === "Succeeded" && b.status.ingress?.ip) break;
          if (b.status?.lastOperation?.state === "Failed") throw new Error(`${name}: ${b.status.lastOperation.description}`);
          await new Promise((r) => setTimeout(r, 5));
        }
        ms.push(performance.now() - start);
      }
    }),
  );
  return ms;
}

async function main(): Promise<void> {
  let t: TestHost | undefined;
  let seed: Seed | undefined;
  const exec = new CountingExec(new HostExec());
  try {
    t = await newTestHost();
    t = { ...t, host: new LinuxHost({ stateDir: t.stateDir, prefix: t.prefix, exec }) };
    const keyFile = join(t.stateDir, "id");
    await t.host.ctx.exec.run("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-C", "bench", "-f", keyFile]);
    const key = await readFile(`${keyFile}.pub`, "utf8");
    seed = await startSeed(t.host, t.stateDir);
    await seed.provider.networks.ensurePublic();
    await createShoot(seed, NS, ["w1", "w2"], key);
    exec.byCommand.clear();
    const seqNames = Array.from({ length: counts.sequential }, (_, i) => `seq-${i}`);
    const seq = summarize(await createAndWait(seed, seqNames, 1, key));
    const perBastion = [...exec.byCommand].map(([k, c]) => [k, c.n / seqNames.length, c.ms / seqNames.length] as [string, number, number]).sort((a, b) => b[2] - a[2]);
    const seqLoad = loadavg()[0]!;
    const parNames = Array.from({ length: counts.parallel }, (_, i) => `par-${i}`);
    const par = summarize(await createAndWait(seed, parNames, counts.concurrency, key));
    console.log(
      table([
        ["figure", "value"],
        [`one at a time: create -> Succeeded p50 ms (${seq.n})`, seq.p50],
        ["one at a time: create -> Succeeded p99 ms", seq.p99],
        [`${values.concurrency} at a time: create -> Succeeded p50 ms (${par.n})`, par.p50],
        [`${values.concurrency} at a time: create -> Succeeded p99 ms`, par.p99],
        ["processes per bastion (one at a time)", perBastion.reduce((s, r) => s + r[1], 0)],
        ["load average (1 min) after one at a time", seqLoad],
      ]),
    );
    if (values.commands) console.log(`\n${table([["command (one at a time)", "per bastion", "ms per bastion"], ...perBastion])}`);
  } finally {
    await seed?.stop();
    await cleanUpAndAssertNoLeaks(t);
  }
}

await main();
