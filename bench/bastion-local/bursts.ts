// "Ten at once" as an operator's burst: `size` Bastions created together once provider-local's pool holds
// the machines it keeps (docs/adr/0015-bastion-machine-pool.md), each creator waiting for its Ready, then
// all deleted; repeated `count` times. A sustained stream (createWaiting with `concurrency` in flight)
// outruns any pool: the pool refills only between creations, so that figure is the machine boot's.
import { LinuxHost } from "../../src/host/index.ts";
import { POOL_NAME_PREFIX, POOL_OWNER } from "../../src/provider-local/machines/pool.ts";
import { pollFor } from "../../src/utils/poll.ts";
import { summarize } from "../support/stats.ts";
import { type Phase, createWaiting, deleteAndWait } from "./phases.ts";

/** Held machines of provider-local's pool, read from its host records (the prefix comes from the state directory). */
export async function heldMachines(host: LinuxHost): Promise<number> {
  const records = await host.listRecords((id) => id.startsWith(`machine/${POOL_NAME_PREFIX}`));
  let held = 0;
  for (const r of records) {
    if (r.kind === "machine" && r.owner === POOL_OWNER && (await host.machineStatus(r.name, { sockets: false }))?.held) held++;
  }
  return held;
}

export interface BurstResult {
  names: string[];
  latency: ReturnType<typeof summarize>;
  failed: number;
  /** Per burst: how many held machines there were when it started, and how long the wait for them took. */
  held: { machines: number; waitMs: number }[];
}

export async function bursts(p: Phase, hostState: string, o: { count: number; size: number; poolSize: number; log: (s: string) => void }): Promise<BurstResult> {
  const host = new LinuxHost({ stateDir: hostState });
  const want = Math.min(o.poolSize, o.size);
  const out: BurstResult = { names: [], latency: summarize([]), failed: 0, held: [] };
  const latencies: number[] = [];
  for (let i = 0; i < o.count; i++) {
    const start = performance.now();
    let machines = 0;
    await pollFor(`${want} held bastion machines`, async () => (machines = await heldMachines(host)) >= want, { timeoutMs: 300_000, intervalMs: 250 });
    out.held.push({ machines, waitMs: performance.now() - start });
    o.log(`  burst ${i + 1}: ${o.size} bastions at once (${machines} held machines, waited ${(performance.now() - start).toFixed(0)} ms)`);
    const b = await createWaiting(p, `burst${i}`, o.size, o.size);
    out.names.push(...b.names);
    out.failed += b.failed;
    latencies.push(...b.names.map((x) => p.watcher.latency(x)).filter((x): x is number => x !== undefined));
    await deleteAndWait(p, b.names, o.size, 300_000);
  }
  out.latency = summarize(latencies);
  return out;
}
