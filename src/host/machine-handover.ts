// A held (pool) machine's records passing to the machine that claimed it (docs/adr/0015-bastion-machine-pool.md).
// A claim writes `<dir>/claimed-by` first, then the claimer's record (naming the held machine's directory and
// namespace), then moves the parts' records and deletes the held machine's record. Whoever later finds the
// held machine's record (a pool's restart, a stop) finishes that move instead of killing the claimer's
// machine; a marker without a claimer's record is a claim that never began, and the held machine is removed.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { HostContext } from "./context.ts";
import type { MachineRecord } from "./records.ts";

export const CLAIMED_BY = "claimed-by";

/** Ids a machine's parts can have: its own, and those naming its namespace or directory. */
export function machinePartIds(id: string, netns: string, dir: string): (x: string) => boolean {
  return (x) =>
    x === id || x === `netns/${netns}` || ["link", "route", "nftTable"].some((k) => x.startsWith(`${k}/${netns}/`)) || x === `mount/${dir}` || x.startsWith(`mount/${dir}/`);
}

/** A claimed machine whose claim did not finish (the claimer died between its record and the release). */
export function incompleteClaim(rec: MachineRecord): boolean {
  return rec.claimedFrom !== undefined && rec.state === "creating";
}

/** The parts of machine `from` (its namespace, its mounts) become parts of machine `to`. */
export async function moveParts(ctx: HostContext, from: MachineRecord, to: string): Promise<void> {
  const fromId = `machine/${from.name}`;
  const parts = (await ctx.records.list(machinePartIds(fromId, from.netns, from.dir))).filter((r) => r.parent === fromId);
  await Promise.all(
    parts.map((r) => {
      const { state, createdAt: _c, ...input } = r;
      return ctx.records.put({ ...input, parent: `machine/${to}` }, state);
    }),
  );
}

/**
 * When `rec` is a held machine another machine's record has claimed, finishes the move of its records to that
 * machine and returns true: the objects are that machine's, not this record's.
 */
export async function handOver(ctx: HostContext, rec: MachineRecord): Promise<boolean> {
  if (!rec.hold) return false;
  let to = "";
  try {
    to = readFileSync(join(rec.dir, CLAIMED_BY), "utf8").trim();
  } catch {
    // not claimed
  }
  if (to === "" || to === rec.name) return false;
  const claimer = await ctx.records.get(`machine/${to}`);
  if (claimer?.kind !== "machine" || claimer.dir !== rec.dir) return false;
  await moveParts(ctx, rec, to);
  await ctx.records.delete(`machine/${rec.name}`);
  return true;
}
