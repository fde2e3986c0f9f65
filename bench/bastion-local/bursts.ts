// "Ten at once" as an operator's burst: `size` Bastions created together once provider-local's pool holds
// the machines it keeps (docs/adr/0015-bastion-machine-pool.md), each creator waiting for its Ready, then
// all deleted; repeated `count` times. Each burst waits for the pool and then (`quiet`) for a machine no longer
// busy with the last burst. A sustained stream (createWaiting with `concurrency` in flight)
// outruns any pool: the pool refills only between creations, so that figure is the machine boot's.
import { LinuxHost } from "../../src/host/index.ts";
import { poolMachines } from "../../src/provider-local/machines/pool.ts";
import { pollFor } from "../../src/utils/poll.ts";
import { summarize } from "../support/stats.ts";
import { type Phase, createWaiting, deleteAndWait } from "./phases.ts";

/** Held machines of provider-local's pool, read from its host records (the prefix comes from the state directory). */
async function heldMachines(host: LinuxHost): Promise<number> {
  return (await poolMachines(host)).filter((m) => m.held).length;
}

export interface BurstResult {
  names: string[];
  latency: ReturnType<typeof summarize>;
  failed: number;
  /** Per burst: how many held machines there were when it started, and how long the wait for them (and a quiet machine) took. */
  held: { machines: number; waitMs: number }[];
}

export async function bursts(p: Phase, hostState: string, o: { count: number; size: number; poolSize: number; log: (s: string) => void; quiet?: () => Promise<unknown> }): Promise<BurstResult> {
  const host = new LinuxHost({ stateDir: hostState });
  const want = Math.min(o.poolSize, o.size);
  const names: string[] = [];
  const held: BurstResult["held"] = [];
  let failed = 0;
  for (let i = 0; i < o.count; i++) {
    const start = performance.now();
    let machines = 0;
    await pollFor(`${want} held bastion machines`, async () => (machines = await heldMachines(host)) >= want, { timeoutMs: 300_000, intervalMs: 250 });
    await o.quiet?.();
    const waitMs = performance.now() - start;
    held.push({ machines, waitMs });
    o.log(`  burst ${i + 1}: ${o.size} bastions at once (${machines} held machines, waited ${waitMs.toFixed(0)} ms)`);
    const b = await createWaiting(p, `burst${i}`, o.size, o.size);
    names.push(...b.names);
    failed += b.failed;
    await deleteAndWait(p, b.names, o.size, 300_000);
  }
  const latencies = names.map((x) => p.watcher.latency(x)).filter((x): x is number => x !== undefined);
  return { names, latency: summarize(latencies), failed, held };
}
