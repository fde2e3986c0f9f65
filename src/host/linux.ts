// LinuxHost: the Host interface on this Linux machine (root). A thin facade over the operation modules; the
// state directory remembers its prefix (host.json), so a later sweep(stateDir) finds the same names.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import type { HostContext, IdRange, Owned } from "./context.ts";
import { HostExec, type Exec, type RunOptions, type RunResult } from "./exec.ts";
import type { Host } from "./host.ts";
import { deleteBridgePort, ensureBridgePort, type BridgePortSpec } from "./bridge-port.ts";
import * as links from "./links.ts";
import { startMachine, stopMachine, type MachineSpec } from "./machine.ts";
import { claimMachine } from "./machine-claim.ts";
import { execInMachine, machineStatus, statusOf, waitMachineReady, type MachineInfo, type StatusOptions } from "./machine-status.ts";
import { mountOverlay, unmount, type OverlaySpec } from "./mounts.ts";
import { DEFAULT_PREFIX, HostSpecError, Names } from "./names.ts";
import { deleteNat, ensureNat, type NatSpec } from "./nat.ts";
import { deleteNetns, ensureNetns, execInNetns, listNetns, netnsExists } from "./netns.ts";
import * as nft from "./nft.ts";
import type { NftTable, SetContents } from "./nft-render.ts";
import { processStatus, startProcess, stopProcess, type ProcessSpec, type ProcessStatus } from "./processes.ts";
import { RecordStore, type HostRecord } from "./records.ts";
import { inventory, removeAll, sweep, type HostInventory, type SweepOptions, type SweepReport } from "./sweep.ts";

export interface LinuxHostOptions {
  stateDir: string;
  /** Default: the prefix stored in the state directory, else "ga-". */
  prefix?: string;
  exec?: Exec;
}

/** Machines' id ranges start here: far above the ids of the host's own users and of ordinary subuid ranges. */
const ID_BASE_START = 0x1000_0000;
export const MACHINE_ID_COUNT = 65536;

/** A default id base per prefix, so landscapes with different prefixes do not share ids. */
function defaultIdBase(prefix: string): number {
  let h = 2166136261;
  for (const c of prefix) h = Math.imul(h ^ c.charCodeAt(0), 16777619) >>> 0;
  return ID_BASE_START + (h % 4096) * MACHINE_ID_COUNT;
}

interface StateFile {
  prefix?: string;
  ids?: IdRange;
}

/**
 * Reads or fixes what a state directory is: one state directory, one prefix and one id range for its
 * machines (host.json; older files without a range get one).
 */
function stateIdentity(stateDir: string, wanted: string | undefined): { prefix: string; ids: IdRange } {
  const file = join(stateDir, "host.json");
  const stored = existsSync(file) ? (JSON.parse(readFileSync(file, "utf8")) as StateFile) : {};
  if (stored.prefix !== undefined && wanted !== undefined && stored.prefix !== wanted) {
    throw new HostSpecError(`state directory ${stateDir} belongs to prefix ${stored.prefix}, not ${wanted}`);
  }
  const prefix = stored.prefix ?? wanted ?? DEFAULT_PREFIX;
  const ids = stored.ids ?? { base: defaultIdBase(prefix), count: MACHINE_ID_COUNT };
  if (stored.prefix === undefined || stored.ids === undefined) {
    mkdirSync(stateDir, { recursive: true, mode: 0o755 });
    writeFileSync(file, `${JSON.stringify({ prefix, ids })}\n`);
  }
  return { prefix, ids };
}

export class LinuxHost implements Host {
  readonly names: Names;
  readonly stateDir: string;
  readonly ctx: HostContext;

  constructor(options: LinuxHostOptions) {
    this.stateDir = resolve(options.stateDir);
    const { prefix, ids } = stateIdentity(this.stateDir, options.prefix);
    this.names = new Names(prefix);
    this.ctx = { exec: options.exec ?? new HostExec(), records: new RecordStore(this.stateDir), names: this.names, stateDir: this.stateDir, ids };
  }

  ensureNetns(name: string, owned?: Owned): Promise<void> {
    return ensureNetns(this.ctx, name, owned);
  }
  deleteNetns(name: string): Promise<void> {
    return deleteNetns(this.ctx, name);
  }
  netnsExists(name: string): Promise<boolean> {
    return netnsExists(this.ctx.exec, name);
  }
  listNetns(): Promise<string[]> {
    return listNetns(this.ctx.exec);
  }
  execInNetns(netns: string, command: string, args: readonly string[], options?: Omit<RunOptions, "netns">): Promise<RunResult> {
    return execInNetns(this.ctx.exec, netns, command, args, options);
  }

  ensureBridge(spec: links.BridgeSpec): Promise<void> {
    return links.ensureBridge(this.ctx, spec);
  }
  ensureVeth(spec: links.VethSpec): Promise<void> {
    return links.ensureVeth(this.ctx, spec);
  }
  linkExists(name: string, netns?: string): Promise<boolean> {
    return links.linkExists(this.ctx.exec, name, netns);
  }
  deleteLink(name: string, netns?: string): Promise<void> {
    return links.deleteLink(this.ctx, name, netns);
  }
  /** A namespace with one veth into a bridge of this namespace, its address and default route (a pod's network). */
  ensureBridgePort(spec: BridgePortSpec): Promise<void> {
    return ensureBridgePort(this.ctx, spec);
  }
  /** Removes what ensureBridgePort made: processes left inside, the veth, the namespace, their records. */
  deleteBridgePort(spec: Pick<BridgePortSpec, "netns" | "hostLink">): Promise<void> {
    return deleteBridgePort(this.ctx, spec);
  }
  ensureRoute(spec: links.RouteSpec): Promise<void> {
    return links.ensureRoute(this.ctx, spec);
  }
  deleteRoute(spec: links.RouteSpec): Promise<void> {
    return links.deleteRoute(this.ctx, spec);
  }
  ensureNat(spec: NatSpec): Promise<void> {
    return ensureNat(this.ctx, spec);
  }
  deleteNat(spec: Pick<NatSpec, "name" | "netns" | "sourceCidr">): Promise<void> {
    return deleteNat(this.ctx, spec);
  }

  applyTable(netns: string | undefined, table: NftTable, owned?: Owned): Promise<void> {
    return nft.applyTable(this.ctx, netns, table, owned);
  }
  replaceSetElements(netns: string | undefined, table: nft.TableRef, sets: readonly SetContents[]): Promise<void> {
    return nft.replaceSetElements(this.ctx, netns, table, sets);
  }
  getSetElements(netns: string | undefined, table: nft.TableRef, set: string): Promise<string[]> {
    return nft.getSetElements(this.ctx.exec, netns, table, set);
  }
  listTables(netns?: string): Promise<nft.TableRef[]> {
    return nft.listTables(this.ctx.exec, netns);
  }
  deleteTable(netns: string | undefined, table: nft.TableRef): Promise<void> {
    return nft.deleteTable(this.ctx, netns, table);
  }

  mountOverlay(spec: OverlaySpec): Promise<void> {
    return mountOverlay(this.ctx, spec);
  }
  unmount(target: string): Promise<void> {
    return unmount(this.ctx, target);
  }

  startProcess(spec: ProcessSpec): Promise<ProcessStatus> {
    return startProcess(this.ctx, spec);
  }
  processStatus(name: string): Promise<ProcessStatus | undefined> {
    return processStatus(this.ctx, name);
  }
  stopProcess(name: string): Promise<void> {
    return stopProcess(this.ctx, name);
  }

  startMachine(spec: MachineSpec): Promise<MachineInfo> {
    return startMachine(this.ctx, spec);
  }
  claimMachine(from: string, spec: MachineSpec): Promise<MachineInfo> {
    return claimMachine(this.ctx, from, spec);
  }
  machineStatus(name: string, options?: StatusOptions): Promise<MachineInfo | undefined> {
    return machineStatus(this.ctx, name, options);
  }
  waitMachineReady(name: string, timeoutMs?: number): Promise<MachineInfo> {
    return waitMachineReady(this.ctx, name, timeoutMs);
  }
  execInMachine(name: string, command: string, args: readonly string[], options?: Omit<RunOptions, "netns">): Promise<RunResult> {
    return execInMachine(this.ctx, name, command, args, options);
  }
  stopMachine(name: string): Promise<void> {
    return stopMachine(this.ctx, name);
  }
  async listMachines(): Promise<MachineInfo[]> {
    const out: MachineInfo[] = [];
    for (const r of await this.ctx.records.list((id) => id.startsWith("machine/"))) if (r.kind === "machine") out.push(await statusOf(r));
    return out;
  }

  listRecords(ids?: (id: string) => boolean): Promise<HostRecord[]> {
    return this.ctx.records.list(ids);
  }
  inventory(): Promise<HostInventory> {
    return inventory(this.ctx);
  }
  sweep(options?: SweepOptions): Promise<SweepReport> {
    return sweep(this.ctx, options);
  }
  removeAll(): Promise<SweepReport> {
    return removeAll(this.ctx);
  }
}

/** sweep(stateDir, { keep }) for callers that hold no LinuxHost (e.g. at process start). */
export function sweepStateDir(stateDir: string, options: SweepOptions & { prefix?: string } = {}): Promise<SweepReport> {
  return new LinuxHost({ stateDir, ...(options.prefix ? { prefix: options.prefix } : {}) }).sweep(options);
}

/** Removes everything recorded in or named after the state directory; throws HostLeakError on leftovers. */
export function removeAllStateDir(stateDir: string, options: { prefix?: string } = {}): Promise<SweepReport> {
  return new LinuxHost({ stateDir, ...options }).removeAll();
}
