// The in-memory model behind FakeHost: namespaces, links, routes, tables, mounts, processes, machines and
// their records, with the same existence rules and cascades as the real host (deleting a namespace deletes
// its links and their veth peers, its routes and tables, and kills what runs in it).
import { join } from "node:path";
import { CommandError } from "./exec.ts";
import type { BridgeSpec, LinkEnd, RouteSpec, VethSpec } from "./links.ts";
import { planMachine, type MachineSpec } from "./machine.ts";
import type { MachineInfo } from "./machine-status.ts";
import { isBelow } from "./mounts.ts";
import { HostSpecError, type Names } from "./names.ts";
import type { TableRef } from "./nft.ts";
import { setElements, type NftFamily, type NftSet, type NftTable, type SetContents } from "./nft-render.ts";
import type { ProcessSpec, ProcessStatus } from "./processes.ts";
import { recordId, type HostRecord, type MachineRecord, type RecordInput } from "./records.ts";

export interface FakeLink {
  name: string;
  netns?: string;
  type: "bridge" | "veth";
  addresses: string[];
  master?: string;
  /** Key of the other veth end. */
  peer?: string;
}

export interface FakeMachine {
  spec: MachineSpec;
  record: MachineRecord;
  parts: RecordInput[];
  running: boolean;
  ready: boolean;
  userDataExitCode?: number;
}

function fail(message: string): never {
  throw new CommandError("fake", [], 1, message);
}

export class FakeState {
  readonly netns = new Set<string>();
  readonly links = new Map<string, FakeLink>();
  readonly routes = new Map<string, RouteSpec>();
  readonly tables = new Map<string, NftTable>();
  readonly mounts = new Set<string>();
  readonly processes = new Map<string, ProcessStatus & { netns?: string }>();
  readonly machines = new Map<string, FakeMachine>();
  readonly records = new Map<string, HostRecord>();
  private nextPid = 4000;

  constructor(private readonly names: Names) {}

  linkKey(name: string, netns: string | undefined): string {
    return `${netns ?? "-"}/${name}`;
  }
  private tableKey(netns: string | undefined, family: NftFamily, name: string): string {
    return `${netns ?? "-"}/${family}/${name}`;
  }
  private dropRecords(match: (r: HostRecord) => boolean): void {
    for (const [id, r] of [...this.records]) if (match(r)) this.records.delete(id);
  }

  needNetns(netns: string | undefined): void {
    if (netns !== undefined && !this.netns.has(netns)) fail(`Cannot open network namespace "${netns}": No such file or directory`);
  }

  deleteNetns(name: string): void {
    for (const l of [...this.links.values()]) if (l.netns === name) this.deleteLink(l.name, l.netns);
    for (const [k, r] of [...this.routes]) if (r.netns === name) this.routes.delete(k);
    for (const [k] of [...this.tables]) if (k.startsWith(`${name}/`)) this.tables.delete(k);
    for (const p of this.processes.values()) if (p.netns === name) p.running = false;
    for (const m of this.machines.values()) if (m.record.netns === name) m.running = false;
    this.netns.delete(name);
    this.dropRecords((r) => {
      if (r.kind === "netns") return r.name === name;
      if (r.kind === "link") return r.netns === name || r.peer?.netns === name;
      return (r.kind === "route" || r.kind === "nftTable") && r.netns === name;
    });
  }

  addBridge(spec: BridgeSpec): void {
    this.needNetns(spec.netns);
    const key = this.linkKey(spec.name, spec.netns);
    const existing = this.links.get(key);
    if (existing && existing.type !== "bridge") fail(`${spec.name} exists and is not a bridge`);
    const link: FakeLink = existing ?? { name: spec.name, type: "bridge", addresses: [], ...(spec.netns ? { netns: spec.netns } : {}) };
    for (const a of spec.addresses ?? []) if (!link.addresses.includes(a)) link.addresses.push(a);
    this.links.set(key, link);
  }

  private configure(end: LinkEnd, link: FakeLink): void {
    if (end.master !== undefined) {
      const m = this.links.get(this.linkKey(end.master, end.netns));
      if (m?.type !== "bridge") fail(`master ${end.master} is not a bridge in ${end.netns ?? "the host"}`);
      link.master = end.master;
    }
    for (const a of end.addresses ?? []) if (!link.addresses.includes(a)) link.addresses.push(a);
  }

  addVeth(spec: VethSpec): void {
    this.needNetns(spec.netns);
    this.needNetns(spec.peer.netns);
    const key = this.linkKey(spec.name, spec.netns);
    const peerKey = this.linkKey(spec.peer.name, spec.peer.netns);
    let link = this.links.get(key);
    let peer = link?.peer ? this.links.get(link.peer) : undefined;
    if (!link || !peer) {
      if (this.links.has(peerKey)) this.deleteLink(spec.peer.name, spec.peer.netns);
      link = { name: spec.name, type: "veth", addresses: [], peer: peerKey, ...(spec.netns ? { netns: spec.netns } : {}) };
      peer = { name: spec.peer.name, type: "veth", addresses: [], peer: key, ...(spec.peer.netns ? { netns: spec.peer.netns } : {}) };
    }
    this.configure(spec, link);
    this.configure(spec.peer, peer);
    this.links.set(key, link);
    this.links.set(peerKey, peer);
  }

  deleteLink(name: string, netns: string | undefined): void {
    const key = this.linkKey(name, netns);
    const link = this.links.get(key);
    this.links.delete(key);
    if (link?.peer) this.links.delete(link.peer);
    for (const l of this.links.values()) if (l.master === name && l.netns === netns) delete l.master;
    for (const [k, r] of [...this.routes]) if (r.netns === netns && r.dev === name) this.routes.delete(k);
    this.dropRecords(
      (r) => r.kind === "link" && ((r.name === name && r.netns === netns) || (r.peer?.name === name && r.peer.netns === netns)),
    );
  }

  addRoute(spec: RouteSpec): void {
    this.needNetns(spec.netns);
    if (spec.dev !== undefined && !this.links.has(this.linkKey(spec.dev, spec.netns))) fail(`Cannot find device "${spec.dev}"`);
    if (spec.via === undefined && spec.dev === undefined) throw new HostSpecError("a route needs via or dev");
    this.routes.set(`${spec.netns ?? "-"}/${spec.destination}`, { ...spec });
  }

  deleteRoute(netns: string | undefined, destination: string): void {
    this.routes.delete(`${netns ?? "-"}/${destination}`);
    this.dropRecords((r) => r.kind === "route" && r.netns === netns && r.destination === destination);
  }

  applyTable(netns: string | undefined, table: NftTable): void {
    this.needNetns(netns);
    const copy: NftTable = { ...structuredClone(table), sets: (table.sets ?? []).map((s) => ({ ...s, elements: setElements(s) })) };
    this.tables.set(this.tableKey(netns, table.family, table.name), copy);
  }

  private needTable(netns: string | undefined, ref: TableRef): NftTable {
    this.needNetns(netns);
    const t = this.tables.get(this.tableKey(netns, ref.family, ref.name));
    if (!t) fail(`No such file or directory: table ${ref.family} ${ref.name}`);
    return t;
  }

  getSet(netns: string | undefined, ref: TableRef, set: string): NftSet {
    const s = this.needTable(netns, ref).sets?.find((x) => x.name === set);
    if (!s) fail(`No such file or directory: set ${set} in table ${ref.family} ${ref.name}`);
    return s;
  }

  /** All sets replaced or none: the transaction fails as a whole. */
  replaceSets(netns: string | undefined, ref: TableRef, sets: readonly SetContents[]): void {
    const t = this.needTable(netns, ref);
    const updated = sets.map((c) => {
      const s = this.getSet(netns, ref, c.name);
      return { ...s, elements: setElements({ ...s, elements: c.elements }) };
    });
    t.sets = (t.sets ?? []).map((s) => updated.find((u) => u.name === s.name) ?? s);
  }

  listTables(netns: string | undefined): TableRef[] {
    this.needNetns(netns);
    return [...this.tables.entries()].filter(([k]) => k.startsWith(`${netns ?? "-"}/`)).map(([, t]) => ({ family: t.family, name: t.name }));
  }

  deleteTable(netns: string | undefined, family: NftFamily, name: string): void {
    this.tables.delete(this.tableKey(netns, family, name));
    this.dropRecords((r) => r.kind === "nftTable" && r.netns === netns && r.family === family && r.name === name);
  }

  unmount(target: string): void {
    for (const m of [...this.mounts]) if (isBelow(target, m)) this.mounts.delete(m);
    this.dropRecords((r) => r.kind === "mount" && isBelow(target, r.target));
  }

  startProcess(spec: ProcessSpec, stateDir: string): ProcessStatus {
    const existing = this.processes.get(spec.name);
    if (existing?.running) return existing;
    const p = {
      name: spec.name,
      running: true,
      process: { pid: this.nextPid++, startTime: "1" },
      logFile: spec.logFile ?? join(stateDir, "processes", `${spec.name}.log`),
      ...(spec.netns ? { netns: spec.netns } : {}),
    };
    this.processes.set(spec.name, p);
    return p;
  }

  stopProcess(name: string): void {
    this.processes.delete(name);
    this.dropRecords((r) => r.kind === "process" && r.name === name);
  }

  createMachine(spec: MachineSpec, stateDir: string, ready: boolean): FakeMachine {
    const record = planMachine({ names: this.names, stateDir }, spec);
    const id = `machine/${record.name}`;
    const parts: RecordInput[] = [{ kind: "netns", name: record.netns, parent: id }];
    this.netns.add(record.netns);
    let routed = false;
    for (const [i, iface] of record.interfaces.entries()) {
      const peer = { name: iface.hostLink, master: iface.bridge, ...(iface.bridgeNetns ? { netns: iface.bridgeNetns } : {}) };
      try {
        this.addVeth({ name: iface.name, netns: record.netns, addresses: [iface.address], peer });
      } catch (err) {
        this.deleteNetns(record.netns);
        throw err;
      }
      parts.push({ kind: "link", type: "veth", name: iface.name, netns: record.netns, peer: { name: peer.name, ...(peer.netns ? { netns: peer.netns } : {}) }, parent: id });
      const n = spec.networks[i]!;
      if (n.gateway === undefined) continue;
      for (const destination of n.routes ?? (routed ? [] : ["default"])) {
        this.addRoute({ netns: record.netns, destination, via: n.gateway, dev: iface.name });
        parts.push({ kind: "route", netns: record.netns, destination, via: n.gateway, dev: iface.name, parent: id });
        if (destination === "default") routed = true;
      }
    }
    for (const t of spec.nftTables ?? []) {
      this.applyTable(record.netns, t);
      parts.push({ kind: "nftTable", netns: record.netns, family: t.family, name: t.name, parent: id });
    }
    const root = join(record.dir, "root");
    this.mounts.add(root);
    parts.push({ kind: "mount", target: root, parent: id });
    record.supervisor = { pid: this.nextPid++, startTime: "1" };
    record.state = "created";
    const m: FakeMachine = { spec, record, parts, running: true, ready: ready && !spec.hold, ...(ready && !spec.hold ? { userDataExitCode: 0 } : {}) };
    this.machines.set(record.name, m);
    return m;
  }

  stopMachine(name: string): void {
    const m = this.machines.get(name);
    const id = `machine/${name}`;
    if (m) {
      for (const i of m.record.interfaces) this.deleteLink(i.hostLink, i.bridgeNetns);
      this.deleteNetns(m.record.netns);
      this.unmount(m.record.dir);
      this.machines.delete(name);
    }
    this.dropRecords((r) => r.parent === id || recordId(r) === id);
  }

  machineInfo(name: string): MachineInfo {
    const m = this.machines.get(name)!;
    const r = m.record;
    const types = r.sshd.hostKeyFiles.map((f) => f.replace(/^ssh_host_(.*)_key$/, "$1"));
    const keyType = (t: string) => (t === "rsa" ? "ssh-rsa" : t === "ecdsa" ? "ecdsa-sha2-nistp256" : `ssh-${t}`);
    const info: MachineInfo = {
      name: r.name,
      hostname: r.hostname,
      netns: r.netns,
      dir: r.dir,
      rootDir: join(r.dir, "root"),
      upperDir: join(r.dir, "upper"),
      consoleLog: join(r.dir, "console.log"),
      interfaces: r.interfaces.map((i) => ({ ...i })),
      running: m.running,
      ready: m.running && m.ready,
      sshd: { port: r.sshd.port, listenAddresses: [...r.sshd.listenAddresses] },
      hostKeys: types.map((t) => `${keyType(t)} ${Buffer.from(`fake-${t}-host-key-of-${r.name}`).toString("base64")}`).sort(),
    };
    if (m.userDataExitCode !== undefined) info.userDataExitCode = m.userDataExitCode;
    if (r.hold && m.running) info.held = true;
    if (r.supervisor) info.supervisor = r.supervisor;
    return info;
  }

  /** Removes the object of a record, as sweep does. */
  removeRecorded(r: HostRecord): void {
    switch (r.kind) {
      case "machine":
        return this.stopMachine(r.name);
      case "process":
        return this.stopProcess(r.name);
      case "mount":
        return this.unmount(r.target);
      case "nftTable":
        return this.deleteTable(r.netns, r.family, r.name);
      case "route":
        return this.deleteRoute(r.netns, r.destination);
      case "link":
        return this.deleteLink(r.name, r.netns);
      case "netns":
        return this.deleteNetns(r.name);
    }
  }
}
