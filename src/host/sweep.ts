// Garbage collection of host objects. sweep() removes every recorded object no owner claims (keep() decides
// for top-level records; parts of a machine follow their machine), then finds leftovers by name and path even
// when their records were lost: processes that name the state directory or run in a prefixed namespace,
// mounts under the state directory, prefixed namespaces, links and nft tables of the host namespace.
import { readdir, rm } from "node:fs/promises";
import { join } from "node:path";
import type { HostContext } from "./context.ts";
import { machineDirs } from "./machine-status.ts";
import { stopMachine } from "./machine.ts";
import { isBelow, mountsBelow, unmount } from "./mounts.ts";
import { deleteNetns, killProcesses, listLinks, listNetns, netnsPids } from "./netns.ts";
import { deleteLink, deleteRoute } from "./links.ts";
import { deleteTable, listTables } from "./nft.ts";
import { stopProcess } from "./processes.ts";
import { allPids, isAlive, readCmdline, ref, type ProcessRef } from "./procs.ts";
import { recordId, type HostRecord, type MachineRecord } from "./records.ts";
import { lap, stopMachines, type PhaseTimes } from "./teardown.ts";

/** What of this state directory exists on the host. */
export interface HostInventory {
  /** Named network namespaces with the prefix. */
  netns: string[];
  /** Links with the prefix in the host namespace. */
  links: string[];
  /** "family name" of prefixed nft tables in the host namespace. */
  tables: string[];
  /** Mount points at or below the state directory. */
  mounts: string[];
  /** Machine supervisors of the state directory, and processes that run in a prefixed namespace. */
  processes: (ProcessRef & { cmdline: string })[];
}

export async function inventory(ctx: HostContext): Promise<HostInventory> {
  const netns = (await listNetns(ctx.exec)).filter((n) => ctx.names.owns(n));
  const links = (await listLinks(ctx.exec)).filter((l) => ctx.names.owns(l));
  const tables = (await listTables(ctx.exec)).filter((t) => ctx.names.ownsTable(t.name)).map((t) => `${t.family} ${t.name}`);
  const mounts = await mountsBelow(ctx.stateDir);
  const pids = new Set<number>();
  // Only supervisors (`unshare ... <stateDir>/machines/<name>/ctl/stage1`): a caller whose own command line
  // merely mentions the state directory (`gardener-local down --state-dir ...`) is not ours to kill.
  const stage1 = join(ctx.stateDir, "machines") + "/";
  for (const pid of allPids()) {
    const argv = readCmdline(pid);
    if (pid !== process.pid && argv[0] === "unshare" && argv.some((a) => a.startsWith(stage1) && a.endsWith("/ctl/stage1"))) pids.add(pid);
  }
  for (const n of netns) for (const pid of await netnsPids(ctx.exec, n)) pids.add(pid);
  const processes: HostInventory["processes"] = [];
  for (const pid of pids) {
    const r = ref(pid);
    if (r && isAlive(r)) processes.push({ ...r, cmdline: readCmdline(pid).join(" ") });
  }
  return { netns, links, tables, mounts, processes };
}

export function isEmpty(inv: HostInventory): boolean {
  return inv.netns.length + inv.links.length + inv.tables.length + inv.mounts.length + inv.processes.length === 0;
}

export interface SweepOptions {
  /** Return true to keep a top-level record's object (default: keep nothing). */
  keep?(record: HostRecord): boolean;
}

export interface SweepReport {
  removed: string[];
  failed: { what: string; error: string }[];
  /** Where the time went (milliseconds per phase, in order), for reports such as `down`'s. */
  phases?: PhaseTimes;
}

const ORDER: HostRecord["kind"][] = ["machine", "process", "mount", "nftTable", "route", "link", "netns"];

/** Ids of the records to keep: top-level ones by keep(), parts by their composite. */
export function keptSet(records: HostRecord[], keep: (r: HostRecord) => boolean): Set<string> {
  const byId = new Map(records.map((r) => [recordId(r), r]));
  const memo = new Map<string, boolean>();
  const kept = (r: HostRecord, depth = 0): boolean => {
    const id = recordId(r);
    const known = memo.get(id);
    if (known !== undefined) return known;
    let result: boolean;
    if (r.parent === undefined) result = keep(r);
    else {
      const parent = byId.get(r.parent);
      result = parent !== undefined && depth < 8 && kept(parent, depth + 1);
    }
    memo.set(id, result);
    return result;
  };
  return new Set(records.filter((r) => kept(r)).map(recordId));
}

async function removeRecorded(ctx: HostContext, r: HostRecord): Promise<void> {
  switch (r.kind) {
    case "machine":
      return stopMachine(ctx, r.name);
    case "process":
      return stopProcess(ctx, r.name);
    case "mount":
      return unmount(ctx, r.target);
    case "nftTable":
      return deleteTable(ctx, r.netns, { family: r.family, name: r.name });
    case "route":
      return deleteRoute(ctx, { destination: r.destination, ...(r.netns ? { netns: r.netns } : {}), ...(r.via ? { via: r.via } : {}), ...(r.dev ? { dev: r.dev } : {}) });
    case "link":
      return deleteLink(ctx, r.name, r.netns);
    case "netns":
      return deleteNetns(ctx, r.name);
  }
}

/** What kept records hold on the host, so leftover detection leaves it alone. */
export function claims(kept: HostRecord[]) {
  const netns = new Set<string>();
  const links = new Set<string>();
  const tables = new Set<string>();
  const mounts: string[] = [];
  const pids = new Set<number>();
  const dirs = new Set<string>();
  for (const r of kept) {
    if (r.kind === "netns") netns.add(r.name);
    if (r.kind === "link") for (const e of [r, ...(r.peer ? [r.peer] : [])]) if (e.netns === undefined) links.add(e.name);
    if (r.kind === "nftTable") tables.add(`${r.netns ?? "-"} ${r.family} ${r.name}`);
    if (r.kind === "mount") mounts.push(r.target);
    if (r.kind === "process" && r.process) pids.add(r.process.pid);
    if (r.kind === "machine") {
      netns.add(r.netns);
      dirs.add(r.dir);
      mounts.push(r.dir);
      for (const i of r.interfaces) if (i.bridgeNetns === undefined) links.add(i.hostLink);
      if (r.supervisor) pids.add(r.supervisor.pid);
    }
  }
  return { netns, links, tables, mounts, pids, dirs };
}

/** Runs one removal; its outcome goes to the report (`removes`: what a successful removal counts as, default `what`). */
type Attempt = (what: string, fn: () => Promise<void>, removes?: string[]) => Promise<void>;

export async function sweep(ctx: HostContext, options: SweepOptions = {}): Promise<SweepReport> {
  const report: SweepReport = { removed: [], failed: [], phases: [] };
  const done = lap(report.phases);
  const attempt: Attempt = async (what, fn, removes = [what]) => {
    try {
      await fn();
      report.removed.push(...removes);
    } catch (err) {
      report.failed.push({ what, error: err instanceof Error ? err.message : String(err) });
    }
  };
  await ctx.records.removeTempFiles();
  const all = await ctx.records.list();
  const keptIds = keptSet(all, options.keep ?? (() => false));
  done("read records");
  // Machines first, all at once (teardown.ts): one by one, a thousand of them take minutes.
  const machines = all.filter((r): r is MachineRecord => r.kind === "machine" && r.parent === undefined && !keptIds.has(recordId(r)));
  if (machines.length > 1) await attempt(`${machines.length} machines`, () => stopMachines(ctx, machines, report.phases), machines.map(recordId));
  const rest = lap(report.phases);
  await removeRecords(ctx, keptIds, attempt);
  await removeLeftovers(ctx, claims((await ctx.records.list()).filter((r) => keptIds.has(recordId(r)))), attempt);
  rest("other objects and leftovers");
  return report;
}

/** Every recorded object not kept, kind by kind in ORDER, then the parts whose composite record was lost. */
async function removeRecords(ctx: HostContext, keptIds: Set<string>, attempt: Attempt): Promise<void> {
  for (const kind of ORDER) {
    // Re-read: removing a machine or namespace removes the records of its parts.
    for (const r of await ctx.records.list()) {
      if (r.kind !== kind || keptIds.has(recordId(r)) || r.parent !== undefined) continue;
      await attempt(recordId(r), () => removeRecorded(ctx, r));
    }
  }
  // Parts whose composite record was lost, or that were left behind.
  for (const r of await ctx.records.list()) {
    if (!keptIds.has(recordId(r))) await attempt(recordId(r), () => removeRecorded(ctx, r));
  }
}

/** Objects of the state directory's naming that no kept record claims: stray processes, mounts, tables, namespaces, links, machine dirs. */
async function removeLeftovers(ctx: HostContext, claimed: ReturnType<typeof claims>, attempt: Attempt): Promise<void> {
  const inv = await inventory(ctx);
  const strays = inv.processes.filter((p) => !claimed.pids.has(p.pid));
  // Processes inside kept namespaces belong to their owners.
  const keptNsPids = new Set<number>();
  for (const n of claimed.netns) for (const pid of await netnsPids(ctx.exec, n).catch(() => [])) keptNsPids.add(pid);
  // A process that ended meanwhile (a machine's short-lived boot helper in a kept namespace) is no stray.
  const kill = strays.filter((p) => !keptNsPids.has(p.pid) && isAlive(p));
  if (kill.length > 0) await attempt(`processes ${kill.map((p) => p.pid).join(",")}`, () => killProcesses(ctx.exec, kill));
  for (const m of inv.mounts) {
    if (claimed.mounts.some((k) => isBelow(k, m))) continue;
    await attempt(`mount ${m}`, () => unmount(ctx, m));
  }
  for (const t of inv.tables) {
    if (claimed.tables.has(`- ${t}`)) continue;
    const [family, name] = t.split(" ") as ["inet" | "ip" | "ip6", string];
    await attempt(`nft table ${t}`, () => deleteTable(ctx, undefined, { family, name }));
  }
  await removeLostNatTables(ctx, claimed, inv.netns, attempt);
  for (const n of inv.netns) if (!claimed.netns.has(n)) await attempt(`netns ${n}`, () => deleteNetns(ctx, n));
  for (const l of inv.links) if (!claimed.links.has(l)) await attempt(`link ${l}`, () => deleteLink(ctx, l));
  for (const d of await machineDirs(ctx)) {
    if (claimed.dirs.has(d) || (await mountsBelow(d)).length > 0) continue;
    await attempt(`dir ${d}`, () => rm(d, { recursive: true, force: true }));
  }
}

/** Prefixed tables (NAT) in namespaces that stay, whose records were lost. */
async function removeLostNatTables(ctx: HostContext, claimed: ReturnType<typeof claims>, present: string[], attempt: Attempt): Promise<void> {
  for (const n of claimed.netns) {
    if (!present.includes(n)) continue;
    for (const t of await listTables(ctx.exec, n).catch(() => [])) {
      if (!ctx.names.ownsTable(t.name) || claimed.tables.has(`${n} ${t.family} ${t.name}`)) continue;
      await attempt(`nft table ${n} ${t.family} ${t.name}`, () => deleteTable(ctx, n, t));
    }
  }
}

export class HostLeakError extends Error {
  override readonly name = "HostLeakError";
  constructor(readonly report: SweepReport, readonly remaining: HostInventory) {
    super(`host objects remain: ${JSON.stringify({ failed: report.failed, remaining })}`);
  }
}

/** Removes everything of the state directory (like `down`); throws HostLeakError if anything remains. */
export async function removeAll(ctx: HostContext): Promise<SweepReport> {
  const report = await sweep(ctx);
  const remaining = await inventory(ctx);
  if (report.failed.length > 0 || !isEmpty(remaining)) throw new HostLeakError(report, remaining);
  for (const sub of ["machines", "processes", "image"]) await rm(join(ctx.stateDir, sub), { recursive: true, force: true });
  const left = await readdir(join(ctx.stateDir, "records")).catch(() => []);
  if (left.length === 0) await rm(join(ctx.stateDir, "records"), { recursive: true, force: true });
  return report;
}
