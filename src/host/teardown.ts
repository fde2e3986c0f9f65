// Removing many machines at once (sweep, `down`): what stopMachine does for one, batched across all of
// them, so a thousand machines go in seconds rather than minutes. One `kill` for every machine's
// supervisor and PID 1, one read of the mount table and a few `umount` calls, one `nft -f` per bridge
// for the guards, one link group deleted per bridge namespace for the host ends of the veths and one for the
// machines' namespaces, then directories and records a bounded number at a time.
import { randomInt } from "node:crypto";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { deleteRecords, type HostContext } from "./context.ts";
import { macFor, routedOf, unguardPorts, type GuardedPort } from "./guard.ts";
import { isBelow, mountsBelow } from "./mounts.ts";
import { nsutil } from "./native.ts";
import { killProcesses, listLinks, listNetns } from "./netns.ts";
import { childrenOf, isAlive, ref, supervisorsOf, type ProcessRef } from "./procs.ts";
import { recordId, type MachineRecord } from "./records.ts";

/** How many `rm` processes remove machine directories and records at once. */
const PARALLEL_RM = 16;
/** How many processes detach machine roots at once. */
const PARALLEL_UMOUNT = 8;

/** Runs fn over items, at most `limit` at a time. */
export async function forEachLimit<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) await fn(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** The mounts no other listed mount lies above. */
function topmost(mounts: readonly string[]): string[] {
  const sorted = [...mounts].sort((a, b) => a.length - b.length);
  const out: string[] = [];
  for (const m of sorted) if (!out.some((t) => isBelow(t, m))) out.push(m);
  return out;
}

/**
 * Deletes links of one namespace in one kernel operation: each joins a fresh link group, then `ip link
 * del group` unregisters them together (one wait for the network stack instead of one per link, about
 * 20 ms each). Links already gone are skipped; whatever stays is deleted one by one.
 */
async function deleteLinks(ctx: HostContext, netns: string | undefined, links: readonly string[]): Promise<void> {
  const ns = netns ? ["-n", netns] : [];
  let group = 0;
  for (let i = 0; i < 5 && group === 0; i++) {
    const g = randomInt(1 << 20, 2 ** 31 - 1);
    // Only a group no link has yet: nothing else joins the deletion.
    const r = await ctx.exec.run("ip", [...ns, "-o", "link", "show", "group", String(g)], { okExitCodes: [0, 1, 255] });
    if (r.exitCode === 0 && r.stdout.trim() === "") group = g;
  }
  if (group !== 0) {
    await ctx.exec.run("ip", [...ns, "-force", "-batch", "-"], { input: links.map((l) => `link set dev ${l} group ${group}\n`).join(""), okExitCodes: [0, 1] });
    await ctx.exec.run("ip", [...ns, "link", "del", "group", String(group)], { okExitCodes: [0, 1, 2, 255] });
  }
  const left = new Set(await listLinks(ctx.exec, netns));
  const rest = links.filter((l) => left.has(l));
  if (rest.length > 0) await ctx.exec.run("ip", [...ns, "-force", "-batch", "-"], { input: rest.map((l) => `link del dev ${l}\n`).join(""), okExitCodes: [0, 1] });
}

/** Where a teardown's time went, in order: [phase, milliseconds]. */
export type PhaseTimes = [string, number][];

/** A stopwatch: each call records the time since the previous one (or since its making) under `phase`. */
export function lap(phases: PhaseTimes | undefined): (phase: string) => void {
  let last = performance.now();
  return (phase) => {
    const now = performance.now();
    phases?.push([phase, Math.round(now - last)]);
    last = now;
  };
}

/** Stops every given machine and forgets it and its parts (like stopMachine on each, in batches). */
export async function stopMachines(ctx: HostContext, machines: readonly MachineRecord[], phases?: PhaseTimes): Promise<void> {
  if (machines.length === 0) return;
  const done = lap(phases);
  // The supervisor's death kills PID 1, and PID 1's the rest of its PID namespace.
  const refs: ProcessRef[] = [];
  for (const m of machines) {
    if (m.supervisor && isAlive(m.supervisor)) {
      refs.push(m.supervisor);
      for (const c of childrenOf(m.supervisor.pid)) {
        const r = ref(c);
        if (r) refs.push(r);
      }
    }
    if (m.init) refs.push(m.init);
  }
  // Also supervisors no record names (their starter was killed before recording them).
  const dirsToStop = machines.map((m) => m.dir);
  for (const s of supervisorsOf(join(ctx.stateDir, "machines"), dirsToStop)) if (!refs.some((r) => r.pid === s.pid)) refs.push(s);
  for (const part of chunks(refs, 2000)) await killProcesses(ctx.exec, part);
  done("kill");

  const dirs = machines.map((m) => m.dir);
  const mounts = (await mountsBelow(join(ctx.stateDir, "machines"))).filter((p) => dirs.some((d) => isBelow(d, p)));
  // A lazy unmount detaches the whole tree below its mount point: only the topmost mounts (each machine's
  // root) are named, not every bind below them. The machines are dead, so nothing keeps a mount busy.
  // umount2() itself (nsutil), not umount(8), which parses the whole mount table for each target; several
  // processes at once, as each unmount waits a few milliseconds for the kernel.
  const tool = await nsutil(ctx.exec);
  await forEachLimit(chunks(topmost(mounts), 50), PARALLEL_UMOUNT, async (part) => {
    await ctx.exec.run(tool, ["umount", "-l", ...part], { okExitCodes: [0, 1] });
  });
  done("unmount");

  const existing = new Set(await listNetns(ctx.exec));
  const ports = new Map<string, { netns: string | undefined; bridge: string; ports: GuardedPort[] }>();
  for (const m of machines) {
    for (const i of m.interfaces) {
      const key = `${i.bridgeNetns ?? "-"}/${i.bridge}`;
      const g = ports.get(key) ?? { netns: i.bridgeNetns, bridge: i.bridge, ports: [] };
      g.ports.push({ bridge: i.bridge, port: i.hostLink, mac: macFor(i.hostLink), addresses: [i.address], ...routedOf(i) });
      ports.set(key, g);
    }
  }
  const byNetns = new Map<string, string[]>();
  for (const g of ports.values()) {
    if (g.netns !== undefined && !existing.has(g.netns)) continue;
    await unguardPorts(ctx, g.netns, g.bridge, g.ports);
    const links = byNetns.get(g.netns ?? "") ?? [];
    links.push(...g.ports.map((p) => p.port));
    byNetns.set(g.netns ?? "", links);
  }
  // The host ends at once (the kernel frees a namespace's veths only some time after its deletion).
  for (const [netns, links] of byNetns) await deleteLinks(ctx, netns || undefined, links);
  const namespaces = machines.map((m) => m.netns).filter((n) => existing.has(n));
  if (namespaces.length > 0) {
    await ctx.exec.run("ip", ["-force", "-batch", "-"], { input: namespaces.map((n) => `netns del ${n}\n`).join(""), okExitCodes: [0, 1] });
  }
  done("network");

  // `rm -rf` over a few dozen directories each, several at once: far quicker than walking thousands of
  // small trees in Node, and a disk that takes milliseconds per unlink answers many callers at once in
  // about the time it takes one (docs/machines.md#removing-a-thousand-machines).
  await forEachLimit(chunks(dirs, 32), PARALLEL_RM, async (part) => {
    await ctx.exec.run("rm", ["-rf", "--one-file-system", "--", ...part], { okExitCodes: [0, 1] });
  });
  await forEachLimit(dirs, 16, (d) => rm(d, { recursive: true, force: true }));
  done("directories");
  const ids = new Set(machines.map((m) => recordId(m)));
  const doomed = (await ctx.records.list()).filter((r) => ids.has(recordId(r)) || (r.parent !== undefined && ids.has(r.parent)));
  // The records the same way (about seven per machine), then one by one whatever an `rm` left.
  await forEachLimit(chunks(doomed.map((r) => ctx.records.pathOf(recordId(r))), 200), PARALLEL_RM, async (part) => {
    await ctx.exec.run("rm", ["-f", "--", ...part], { okExitCodes: [0, 1] });
  });
  await deleteRecords(ctx, (r) => ids.has(recordId(r)) || (r.parent !== undefined && ids.has(r.parent)));
  done("records");
}
