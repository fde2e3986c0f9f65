// Claiming a held (pool) machine (docs/adr/0015-bastion-machine-pool.md): a machine booted in advance, without
// networks, up to its user-data, gets what is particular to its use (name, hostname, networks, tables,
// user-data, sshd listen addresses) and boots on. What stays on the claim's path: a few record writes, the
// wiring's batches (machine-net.ts) and the machine's own user-data and sshd.
import { chownSync, rmSync, writeFileSync } from "node:fs";
import { setPriority } from "node:os";
import { join } from "node:path";
import type { HostContext } from "./context.ts";
import { releaseStage1, settled, sshdConfigOf } from "./machine-boot.ts";
import { CLAIMED_BY, moveParts } from "./machine-handover.ts";
import { wireMachine } from "./machine-net.ts";
import { getMachineRecord, MachineBootError, statusOf, waitMachineReady, type MachineInfo } from "./machine-status.ts";
import { planMachine, stopMachine, type MachineSpec } from "./machine.ts";
import { HostSpecError } from "./names.ts";
import { childrenOf, type ProcessRef } from "./procs.ts";
import type { MachineRecord } from "./records.ts";

/** The held machine's processes (its supervisor, PID 1 and their children) back to normal priority. */
function raisePriority(supervisor: ProcessRef): void {
  const todo = [supervisor.pid];
  for (let n = 0; todo.length > 0 && n < 64; n++) {
    const pid = todo.pop()!;
    try {
      setPriority(pid, 0);
    } catch {
      // gone meanwhile
    }
    todo.push(...childrenOf(pid));
  }
}

/** The claim's control files (small: written synchronously, as records.ts explains). */
async function writeClaimFiles(ctx: HostContext, rec: MachineRecord, spec: MachineSpec, ctl: string): Promise<void> {
  const files: [string, string, number][] = [
    ["sshd_config", sshdConfigOf(rec, spec.sshd?.options), 0o644],
    ["hostname", `${rec.hostname}\n`, 0o644],
    ...(spec.userData !== undefined ? [["user-data", spec.userData, 0o700] as [string, string, number]] : []),
  ];
  for (const [name, text, mode] of files) {
    writeFileSync(join(ctl, name), text, { mode });
    chownSync(join(ctl, name), ctx.ids.base, ctx.ids.base);
  }
}

/** The held machine `from`, ready to be claimed (running, held, not claimed yet), or why not. */
async function heldMachine(ctx: HostContext, from: string): Promise<MachineRecord & { supervisor: ProcessRef }> {
  const held = await getMachineRecord(ctx, from);
  if (!held?.hold || !held.supervisor) throw new MachineBootError(from, "is not a held machine");
  if (!(await statusOf(held, { sockets: false })).held) throw new MachineBootError(from, "is not held (still booting, failed or gone)");
  return { ...held, supervisor: held.supervisor };
}

export async function claimMachine(ctx: HostContext, from: string, spec: MachineSpec): Promise<MachineInfo> {
  if (spec.hold) throw new HostSpecError(`machine ${spec.name}: a claimed machine is not held`);
  if ((spec.readOnlyBinds ?? []).length > 0) throw new HostSpecError(`machine ${spec.name}: binds are made at boot, not on a claim`);
  if (spec.sshd?.hostKeysDir !== undefined) throw new HostSpecError(`machine ${spec.name}: a claimed machine keeps the held machine's host keys`);
  const planned = planMachine(ctx, spec);
  const held = await heldMachine(ctx, from);
  const missing = planned.sshd.hostKeyFiles.filter((f) => !held.sshd.hostKeyFiles.includes(f));
  if (missing.length > 0) throw new HostSpecError(`machine ${from} has no host key ${missing.join(", ")}`);
  if (planned.name === from) throw new HostSpecError(`machine ${from} cannot claim itself`);
  if (await getMachineRecord(ctx, planned.name)) await stopMachine(ctx, planned.name);
  const id = `machine/${planned.name}`;
  const { state: _s, createdAt: _c, hold: _h, ...plannedInput } = planned;
  const input = { ...plannedInput, netns: held.netns, dir: held.dir, hostKeysDir: held.hostKeysDir, supervisor: held.supervisor, claimedFrom: from };
  const rec: MachineRecord = { ...input, state: "creating", createdAt: planned.createdAt };
  // The order a crash may interrupt anywhere (machine-handover.ts): marker, claimer's record, parts, held record.
  writeFileSync(join(held.dir, CLAIMED_BY), `${planned.name}\n`, { mode: 0o644 });
  await ctx.records.put(input, "creating");
  await moveParts(ctx, held, planned.name);
  await ctx.records.delete(`machine/${from}`);
  raisePriority(held.supervisor);
  const ctl = join(held.dir, "ctl");
  await settled([writeClaimFiles(ctx, rec, spec, ctl), wireMachine(ctx, rec, spec.networks, spec.nftTables ?? [], { parent: id })]);
  rmSync(join(ctl, "held"), { force: true });
  const done = (await ctx.records.put(input, "created")) as MachineRecord;
  // init waits on the pipe since it reported `held`.
  await releaseStage1(ctl, held.supervisor, 10_000);
  if (spec.wait === false) return statusOf(done);
  return waitMachineReady(ctx, planned.name, spec.readyTimeoutMs);
}
