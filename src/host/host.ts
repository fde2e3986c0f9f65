// The Host interface: every host operation higher layers (provider-local, node agent, vpn, the landscape
// command) may call. LinuxHost does them for real; FakeHost keeps them in memory for unit tests.
import type { Owned } from "./context.ts";
import type { RunOptions, RunResult } from "./exec.ts";
import type { BridgeSpec, RouteSpec, VethSpec } from "./links.ts";
import type { MachineSpec } from "./machine.ts";
import type { MachineInfo, StatusOptions } from "./machine-status.ts";
import type { OverlaySpec } from "./mounts.ts";
import type { Names } from "./names.ts";
import type { NatSpec } from "./nat.ts";
import type { TableRef } from "./nft.ts";
import type { NftTable, SetContents } from "./nft-render.ts";
import type { ProcessSpec, ProcessStatus } from "./processes.ts";
import type { HostRecord } from "./records.ts";
import type { HostInventory, SweepOptions, SweepReport } from "./sweep.ts";

export interface Host {
  /** Builds the prefixed names of this state directory's objects. */
  readonly names: Names;
  /** Absolute; records, machine directories and every mount live below it. */
  readonly stateDir: string;

  // Network namespaces (names carry the prefix).
  ensureNetns(name: string, owned?: Owned): Promise<void>;
  /** Kills processes still inside, deletes its links (and so their veth peers), then the namespace. */
  deleteNetns(name: string): Promise<void>;
  netnsExists(name: string): Promise<boolean>;
  listNetns(): Promise<string[]>;
  execInNetns(netns: string, command: string, args: readonly string[], options?: Omit<RunOptions, "netns">): Promise<RunResult>;

  // Links, addresses, routes, NAT.
  ensureBridge(spec: BridgeSpec): Promise<void>;
  ensureVeth(spec: VethSpec): Promise<void>;
  linkExists(name: string, netns?: string): Promise<boolean>;
  deleteLink(name: string, netns?: string): Promise<void>;
  ensureRoute(spec: RouteSpec): Promise<void>;
  deleteRoute(spec: RouteSpec): Promise<void>;
  /** One-way NAT in a router namespace: sourceCidr -> outInterface masqueraded, nothing opens inwards. */
  ensureNat(spec: NatSpec): Promise<void>;
  deleteNat(spec: Pick<NatSpec, "name" | "netns" | "sourceCidr">): Promise<void>;

  // nftables (netns undefined = the host namespace, where table names must carry the prefix).
  /** Creates or replaces the whole table in one transaction. */
  applyTable(netns: string | undefined, table: NftTable, owned?: Owned): Promise<void>;
  /** Replaces the contents of sets of an existing table in one transaction. */
  replaceSetElements(netns: string | undefined, table: TableRef, sets: readonly SetContents[]): Promise<void>;
  getSetElements(netns: string | undefined, table: TableRef, set: string): Promise<string[]>;
  listTables(netns?: string): Promise<TableRef[]>;
  deleteTable(netns: string | undefined, table: TableRef): Promise<void>;

  // Mounts (targets below the state directory).
  mountOverlay(spec: OverlaySpec): Promise<void>;
  unmount(target: string): Promise<void>;

  // Recorded long-running processes.
  startProcess(spec: ProcessSpec): Promise<ProcessStatus>;
  processStatus(name: string): Promise<ProcessStatus | undefined>;
  stopProcess(name: string): Promise<void>;

  // Machines.
  /** Starts (or finds running) a machine; waits for readiness unless spec.wait is false. */
  startMachine(spec: MachineSpec): Promise<MachineInfo>;
  /**
   * Gives a held (pool) machine `from` the spec's name, hostname, networks, tables, user-data and sshd
   * listen addresses, then lets it boot on (docs/adr/0015-bastion-machine-pool.md). Its directory and
   * namespace keep their names (the record says which); a machine of the spec's name is stopped first.
   */
  claimMachine(from: string, spec: MachineSpec): Promise<MachineInfo>;
  /** `{ sockets: false }`: `ready` trusts the machine's report that sshd listens (far cheaper; see StatusOptions). */
  machineStatus(name: string, options?: StatusOptions): Promise<MachineInfo | undefined>;
  /** Rejects with MachineNotReadyError after timeoutMs, MachineBootError when the boot failed. */
  waitMachineReady(name: string, timeoutMs?: number): Promise<MachineInfo>;
  execInMachine(name: string, command: string, args: readonly string[], options?: Omit<RunOptions, "netns">): Promise<RunResult>;
  stopMachine(name: string): Promise<void>;
  listMachines(): Promise<MachineInfo[]>;

  // Records and cleanup.
  /** Every record, or those whose id passes `ids` (the others are not read). */
  listRecords(ids?: (id: string) => boolean): Promise<HostRecord[]>;
  /** What of this state directory exists on the host (empty after removeAll). */
  inventory(): Promise<HostInventory>;
  sweep(options?: SweepOptions): Promise<SweepReport>;
  /** Removes everything (like `down`); throws HostLeakError if anything remains. */
  removeAll(): Promise<SweepReport>;
}
