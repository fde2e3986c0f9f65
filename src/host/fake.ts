// FakeHost: the Host interface in memory, for unit tests of higher layers. It validates like LinuxHost
// (prefixes, namespaces and bridges that must exist, nft descriptions that must render), keeps records so
// sweep/keep behave the same, boots machines instantly (or on completeBoot() in "manual" mode), and can be
// told to fail an operation. `calls` lists every operation for assertions.
import { resolve } from "node:path";
import { ownLink, ownNetns, type Owned } from "./context.ts";
import { CommandError, type RunOptions, type RunResult } from "./exec.ts";
import type { Host } from "./host.ts";
import type { BridgeSpec, RouteSpec, VethSpec } from "./links.ts";
import type { MachineSpec } from "./machine.ts";
import { MachineBootError, MachineNotFoundError, MachineNotReadyError, type MachineInfo } from "./machine-status.ts";
import { isBelow } from "./mounts.ts";
import { HostSpecError, Names, validateIfname } from "./names.ts";
import { natTable, natTableName, type NatSpec } from "./nat.ts";
import type { TableRef } from "./nft.ts";
import { renderTable, setElements, type NftTable, type SetContents } from "./nft-render.ts";
import type { ProcessSpec, ProcessStatus } from "./processes.ts";
import { recordId, type HostRecord, type RecordInput } from "./records.ts";
import type { HostInventory, SweepOptions, SweepReport } from "./sweep.ts";
import { FakeState, type FakeMachine } from "./fake-state.ts";
import { fakeInventory, fakeSweep } from "./fake-sweep.ts";

export interface FakeHostOptions {
  stateDir?: string;
  prefix?: string;
  /** "ready": machines are ready when started (default); "manual": only after completeBoot(). */
  boot?: "ready" | "manual";
}

export type ExecHandler = (where: { netns?: string; machine?: string }, command: string, args: readonly string[]) => Partial<RunResult> | undefined;

export class FakeHost implements Host {
  readonly names: Names;
  readonly stateDir: string;
  readonly calls: string[] = [];
  /** Answers execInNetns/execInMachine (default: empty success). */
  onExec: ExecHandler = () => undefined;
  readonly state: FakeState;
  private readonly boot: "ready" | "manual";
  private readonly failures = new Map<string, Error[]>();
  private readonly waiters = new Set<() => void>();

  constructor(options: FakeHostOptions = {}) {
    this.names = new Names(options.prefix);
    this.stateDir = resolve(options.stateDir ?? "/fake/state");
    this.boot = options.boot ?? "ready";
    this.state = new FakeState(this.names);
  }

  /** The next `times` calls of operation `op` (a method name) throw `error`. */
  failNext(op: keyof Host, error: Error = new Error(`injected failure of ${op}`), times = 1): void {
    this.failures.set(op, [...(this.failures.get(op) ?? []), ...Array<Error>(times).fill(error)]);
  }

  private op(name: keyof Host, detail: string): void {
    this.calls.push(detail ? `${name} ${detail}` : name);
    const queued = this.failures.get(name);
    const err = queued?.shift();
    if (err) throw err;
  }

  private record(input: RecordInput): void {
    const id = recordId(input);
    const existing = this.state.records.get(id);
    this.state.records.set(id, { ...input, state: "created", createdAt: existing?.createdAt ?? new Date().toISOString() } as HostRecord);
  }

  /** Drops a record without touching its object: a lost record file, for sweep tests. */
  forgetRecord(id: string): void {
    this.state.records.delete(id);
  }

  private owned(o: Owned): Owned {
    return { ...(o.owner !== undefined ? { owner: o.owner } : {}), ...(o.parent !== undefined ? { parent: o.parent } : {}) };
  }

  private ctx() {
    return { names: this.names } as Parameters<typeof ownNetns>[0];
  }

  async ensureNetns(name: string, owned: Owned = {}): Promise<void> {
    this.op("ensureNetns", name);
    ownNetns(this.ctx(), name);
    this.state.netns.add(name);
    this.record({ kind: "netns", name, ...this.owned(owned) });
  }
  async deleteNetns(name: string): Promise<void> {
    this.op("deleteNetns", name);
    ownNetns(this.ctx(), name);
    this.state.deleteNetns(name);
  }
  async netnsExists(name: string): Promise<boolean> {
    return this.state.netns.has(name);
  }
  async listNetns(): Promise<string[]> {
    return [...this.state.netns].sort();
  }
  async execInNetns(netns: string, command: string, args: readonly string[], options: Omit<RunOptions, "netns"> = {}): Promise<RunResult> {
    this.op("execInNetns", `${netns}: ${[command, ...args].join(" ")}`);
    this.state.needNetns(netns);
    return this.answer({ netns }, command, args, options);
  }

  private answer(where: { netns?: string; machine?: string }, command: string, args: readonly string[], options: Omit<RunOptions, "netns">): RunResult {
    const a = this.onExec(where, command, args) ?? {};
    const r: RunResult = { command, args: [...args], exitCode: a.exitCode ?? 0, stdout: a.stdout ?? "", stderr: a.stderr ?? "" };
    if (!(options.okExitCodes ?? [0]).includes(r.exitCode)) throw new CommandError(command, args, r.exitCode, r.stderr, r.stdout);
    return r;
  }

  async ensureBridge(spec: BridgeSpec): Promise<void> {
    this.op("ensureBridge", `${spec.netns ?? "host"}/${spec.name}`);
    validateIfname(spec.name);
    ownLink(this.ctx(), spec.name, spec.netns);
    this.state.addBridge(spec);
    this.record({ kind: "link", type: "bridge", name: spec.name, ...(spec.netns ? { netns: spec.netns } : {}), ...this.owned(spec) });
  }
  async ensureVeth(spec: VethSpec): Promise<void> {
    this.op("ensureVeth", `${spec.netns ?? "host"}/${spec.name} ${spec.peer.netns ?? "host"}/${spec.peer.name}`);
    for (const e of [spec, spec.peer]) {
      validateIfname(e.name);
      ownLink(this.ctx(), e.name, e.netns);
    }
    this.state.addVeth(spec);
    const peer = { name: spec.peer.name, ...(spec.peer.netns ? { netns: spec.peer.netns } : {}) };
    this.record({ kind: "link", type: "veth", name: spec.name, ...(spec.netns ? { netns: spec.netns } : {}), peer, ...this.owned(spec) });
  }
  async linkExists(name: string, netns?: string): Promise<boolean> {
    return this.state.links.has(this.state.linkKey(name, netns));
  }
  async deleteLink(name: string, netns?: string): Promise<void> {
    this.op("deleteLink", `${netns ?? "host"}/${name}`);
    ownLink(this.ctx(), name, netns);
    this.state.deleteLink(name, netns);
  }
  async ensureRoute(spec: RouteSpec): Promise<void> {
    this.op("ensureRoute", `${spec.netns ?? "host"} ${spec.destination} via ${spec.via ?? "-"} dev ${spec.dev ?? "-"}`);
    ownNetns(this.ctx(), spec.netns);
    this.state.addRoute(spec);
    const input = { kind: "route" as const, destination: spec.destination, ...(spec.netns ? { netns: spec.netns } : {}), ...this.owned(spec) };
    this.record({ ...input, ...(spec.via ? { via: spec.via } : {}), ...(spec.dev ? { dev: spec.dev } : {}) });
  }
  async deleteRoute(spec: RouteSpec): Promise<void> {
    this.op("deleteRoute", `${spec.netns ?? "host"} ${spec.destination}`);
    this.state.deleteRoute(spec.netns, spec.destination);
  }
  async ensureNat(spec: NatSpec): Promise<void> {
    this.op("ensureNat", `${spec.netns} ${spec.sourceCidr} -> ${spec.outInterface}`);
    await this.applyTableQuiet(spec.netns, natTable(this.names, spec), this.owned(spec));
  }
  async deleteNat(spec: Pick<NatSpec, "name" | "netns" | "sourceCidr">): Promise<void> {
    this.op("deleteNat", `${spec.netns} ${spec.name}`);
    this.state.deleteTable(spec.netns, spec.sourceCidr.includes(":") ? "ip6" : "ip", natTableName(this.names, spec.name));
  }

  async applyTable(netns: string | undefined, table: NftTable, owned: Owned = {}): Promise<void> {
    this.op("applyTable", `${netns ?? "host"} ${table.family} ${table.name}`);
    await this.applyTableQuiet(netns, table, owned);
  }
  private async applyTableQuiet(netns: string | undefined, table: NftTable, owned: Owned): Promise<void> {
    ownNetns(this.ctx(), netns);
    if (netns === undefined && !this.names.ownsTable(table.name)) throw new HostSpecError(`nft table ${table.name} in the host namespace lacks the prefix`);
    renderTable(table); // validates like nft would
    this.state.applyTable(netns, table);
    this.record({ kind: "nftTable", family: table.family, name: table.name, ...(netns ? { netns } : {}), ...this.owned(owned) });
  }
  async replaceSetElements(netns: string | undefined, table: TableRef, sets: readonly SetContents[]): Promise<void> {
    this.op("replaceSetElements", `${netns ?? "host"} ${table.family} ${table.name} ${sets.map((s) => `${s.name}=[${s.elements.join(",")}]`).join(" ")}`);
    this.state.replaceSets(netns, table, sets);
  }
  async getSetElements(netns: string | undefined, table: TableRef, set: string): Promise<string[]> {
    const s = this.state.getSet(netns, table, set);
    return setElements(s);
  }
  async listTables(netns?: string): Promise<TableRef[]> {
    return this.state.listTables(netns);
  }
  async deleteTable(netns: string | undefined, table: TableRef): Promise<void> {
    this.op("deleteTable", `${netns ?? "host"} ${table.family} ${table.name}`);
    this.state.deleteTable(netns, table.family, table.name);
  }

  async mountOverlay(spec: { target: string } & Owned): Promise<void> {
    this.op("mountOverlay", spec.target);
    const target = resolve(spec.target);
    if (!isBelow(this.stateDir, target) || target === this.stateDir) throw new HostSpecError(`mount target ${target} is not below ${this.stateDir}`);
    this.state.mounts.add(target);
    this.record({ kind: "mount", target, ...this.owned(spec) });
  }
  async unmount(target: string): Promise<void> {
    this.op("unmount", target);
    this.state.unmount(resolve(target));
  }

  async startProcess(spec: ProcessSpec): Promise<ProcessStatus> {
    this.op("startProcess", spec.name);
    if (spec.netns !== undefined) this.state.needNetns(spec.netns);
    const p = this.state.startProcess(spec, this.stateDir);
    this.record({ kind: "process", name: spec.name, command: [spec.command, ...(spec.args ?? [])], logFile: p.logFile, process: p.process!, ...(spec.netns ? { netns: spec.netns } : {}), ...this.owned(spec) });
    return { ...p };
  }
  async processStatus(name: string): Promise<ProcessStatus | undefined> {
    const p = this.state.processes.get(name);
    return p ? { ...p } : undefined;
  }
  async stopProcess(name: string): Promise<void> {
    this.op("stopProcess", name);
    this.state.stopProcess(name);
  }

  async startMachine(spec: MachineSpec): Promise<MachineInfo> {
    this.op("startMachine", spec.name);
    const existing = this.state.machines.get(spec.name);
    if (!existing || !existing.running) {
      if (existing) this.state.stopMachine(spec.name);
      const m = this.state.createMachine(spec, this.stateDir, this.boot === "ready");
      const { state: _s, createdAt: _c, ...input } = m.record;
      this.record({ ...input, ...this.owned(spec) });
      for (const r of m.parts) this.record(r);
    }
    if (spec.wait === false || spec.hold) return this.state.machineInfo(spec.name);
    return this.waitMachineReady(spec.name, spec.readyTimeoutMs);
  }
  /** A held machine's objects go, the claimed one is made as startMachine makes it. */
  async claimMachine(from: string, spec: MachineSpec): Promise<MachineInfo> {
    this.op("claimMachine", `${from} -> ${spec.name}`);
    if (!this.state.machines.get(from)?.record.hold || !this.state.machineInfo(from).held) throw new MachineBootError(from, "is not held");
    this.state.stopMachine(from);
    return this.startMachine(spec);
  }
  async machineStatus(name: string): Promise<MachineInfo | undefined> {
    return this.state.machines.has(name) ? this.state.machineInfo(name) : undefined;
  }
  /** Finishes a machine's boot (boot mode "manual"): user-data exit code 0 makes it ready. */
  completeBoot(name: string, userDataExitCode = 0): void {
    const m = this.needMachine(name);
    m.userDataExitCode = userDataExitCode;
    m.ready = userDataExitCode === 0;
    for (const w of [...this.waiters]) w();
  }
  /** Makes a machine die as if its supervisor was killed. */
  crashMachine(name: string): void {
    this.needMachine(name).running = false;
    for (const w of [...this.waiters]) w();
  }
  /** The spec a machine was started with (its userData, networks, tables). */
  machineSpec(name: string): MachineSpec {
    return this.needMachine(name).spec;
  }
  private needMachine(name: string): FakeMachine {
    const m = this.state.machines.get(name);
    if (!m) throw new MachineNotFoundError(name);
    return m;
  }
  waitMachineReady(name: string, timeoutMs = 60_000): Promise<MachineInfo> {
    return new Promise((resolvePromise, reject) => {
      const check = (): boolean => {
        const m = this.state.machines.get(name);
        if (!m) return settle(new MachineNotFoundError(name));
        const info = this.state.machineInfo(name);
        if (info.ready) return settle(undefined, info);
        if (!m.running) return settle(new MachineBootError(name, "exited during boot", info));
        if (m.userDataExitCode !== undefined && m.userDataExitCode !== 0) return settle(new MachineBootError(name, `user-data exited with ${m.userDataExitCode}`, info));
        return false;
      };
      const waiter = () => void check();
      const timer = setTimeout(() => settle(new MachineNotReadyError(name, this.state.machines.has(name) ? this.state.machineInfo(name) : undefined)), timeoutMs);
      const settle = (err?: Error, info?: MachineInfo): true => {
        clearTimeout(timer);
        this.waiters.delete(waiter);
        if (info) resolvePromise(info);
        else reject(err);
        return true;
      };
      this.waiters.add(waiter);
      check();
    });
  }
  async execInMachine(name: string, command: string, args: readonly string[], options: Omit<RunOptions, "netns"> = {}): Promise<RunResult> {
    this.op("execInMachine", `${name}: ${[command, ...args].join(" ")}`);
    const m = this.needMachine(name);
    if (!m.running) throw new MachineBootError(name, "is not running");
    return this.answer({ machine: name }, command, args, options);
  }
  async stopMachine(name: string): Promise<void> {
    this.op("stopMachine", name);
    this.state.stopMachine(name);
  }
  async listMachines(): Promise<MachineInfo[]> {
    return [...this.state.machines.keys()].sort().map((n) => this.state.machineInfo(n));
  }

  async listRecords(ids?: (id: string) => boolean): Promise<HostRecord[]> {
    return [...this.state.records.values()].filter((r) => ids === undefined || ids(recordId(r))).map((r) => structuredClone(r));
  }
  async inventory(): Promise<HostInventory> {
    return fakeInventory(this.state, this.names, this.stateDir);
  }
  async sweep(options: SweepOptions = {}): Promise<SweepReport> {
    this.op("sweep", "");
    return fakeSweep(this.state, this.names, options.keep ?? (() => false), this.stateDir);
  }
  async removeAll(): Promise<SweepReport> {
    this.op("removeAll", "");
    return fakeSweep(this.state, this.names, () => false, this.stateDir);
  }
}
