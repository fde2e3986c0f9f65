// Alternating slices of several model servers, so that the machine's other load hits each alike.
import { rate } from "../support/stats.ts";
import type { ModelServer } from "./model.ts";

export interface ModelFigures {
  opsPerSec: number;
  /** The server process's CPU per request, µs. */
  cpuUsPerOp: number;
  /** Share of the wall time the serving thread and the work thread were on a CPU. */
  mainBusy: number;
  workBusy: number;
}

/** Runs `slices` rounds; in each, every server in turn gets `sliceMs` of `clients` closed-loop clients. */
export async function measureAlternating(servers: ModelServer[], clients: number, slices: number, sliceMs: number): Promise<ModelFigures[]> {
  const tally = servers.map(() => ({ ops: 0, ms: 0, cpu: 0, main: 0, work: 0 }));
  for (let s = 0; s < slices; s++) {
    for (const [i, server] of servers.entries()) {
      const before = server.cpu();
      const started = performance.now();
      let ops = 0;
      await rate(clients, sliceMs, async () => {
        await server.call();
        ops++;
      });
      const after = server.cpu();
      const t = tally[i]!;
      t.ops += ops;
      t.ms += performance.now() - started;
      t.cpu += after.processMs - before.processMs;
      t.main += after.mainMs - before.mainMs;
      t.work += after.workMs - before.workMs;
    }
  }
  return tally.map((t) => ({
    opsPerSec: (t.ops * 1000) / t.ms,
    cpuUsPerOp: (t.cpu * 1000) / Math.max(1, t.ops),
    mainBusy: t.main / t.ms,
    workBusy: t.work / t.ms,
  }));
}
