// Records of host objects: one JSON file per object under <stateDir>/records/, written atomically (temp file +
// rename) before the object is created ("creating") and again after ("created"), and removed only after the
// object is gone. A restarted process finds every object again from these files; sweep() removes what no
// owner claims.
// The files are small and local, so they are read and written with the synchronous calls: each costs the event
// loop a few microseconds, where a promise-based readFile is four thread-pool round trips (open, fstat, read,
// close) and a put nine; with ten machines made at once, that overhead was a third of provider-local's CPU.
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { NftFamily } from "./nft-render.ts";
import type { ProcessRef } from "./procs.ts";

interface RecordBase {
  /** Caller-chosen owner (e.g. "bastion/shoot--p--s/b1"): sweep's keep() decides by it. */
  owner?: string;
  /** Id of the composite record (a machine) this object belongs to; it lives and dies with that one. */
  parent?: string;
  state: "creating" | "created";
  createdAt: string;
}

export interface NetnsRecord extends RecordBase {
  kind: "netns";
  name: string;
}

export interface LinkRecord extends RecordBase {
  kind: "link";
  type: "bridge" | "veth";
  name: string;
  netns?: string;
  peer?: { name: string; netns?: string };
}

export interface RouteRecord extends RecordBase {
  kind: "route";
  netns?: string;
  destination: string;
  via?: string;
  dev?: string;
}

export interface NftTableRecord extends RecordBase {
  kind: "nftTable";
  netns?: string;
  family: NftFamily;
  name: string;
}

export interface MountRecord extends RecordBase {
  kind: "mount";
  target: string;
}

export interface ProcessRecord extends RecordBase {
  kind: "process";
  name: string;
  netns?: string;
  process?: ProcessRef;
  command: string[];
  logFile: string;
}

export interface MachineRecord extends RecordBase {
  kind: "machine";
  name: string;
  hostname: string;
  netns: string;
  /** <stateDir>/machines/<name>: control files, overlay upper/work, mounted root, console log. */
  dir: string;
  hostKeysDir: string;
  /** The `nsenter ... unshare` process; its child is the machine's PID 1. */
  supervisor?: ProcessRef;
  /** The machine's PID 1 as seen from the host. */
  init?: ProcessRef;
  interfaces: { name: string; address: string; hostLink: string; bridge: string; bridgeNetns?: string; routed?: string[] }[];
  /** Addresses sshd listens on and its port, for readiness. */
  sshd: { port: number; listenAddresses: string[]; hostKeyFiles: string[] };
  /** Host directories bound read-only at the same path inside the machine. */
  readOnlyBinds?: string[];
  /** A pool machine, booted up to its user-data and held for a claim (docs/adr/0015-bastion-machine-pool.md). */
  hold?: boolean;
  /** The held machine this one was claimed from: its directory and namespace keep that machine's names. */
  claimedFrom?: string;
}

export type HostRecord = NetnsRecord | LinkRecord | RouteRecord | NftTableRecord | MountRecord | ProcessRecord | MachineRecord;
export type RecordKind = HostRecord["kind"];

/** Distributes Omit over the union, so a record can be written without its bookkeeping fields. */
export type RecordInput = HostRecord extends infer R ? (R extends HostRecord ? Omit<R, "state" | "createdAt"> : never) : never;

/** The identity of a record: kind plus the key that names its object on the host. */
export function recordId(r: RecordInput | HostRecord): string {
  const ns = (n: string | undefined) => n ?? "-";
  switch (r.kind) {
    case "netns":
      return `netns/${r.name}`;
    case "link":
      return `link/${ns(r.netns)}/${r.name}`;
    case "route":
      return `route/${ns(r.netns)}/${r.destination}`;
    case "nftTable":
      return `nftTable/${ns(r.netns)}/${r.family}/${r.name}`;
    case "mount":
      return `mount/${r.target}`;
    case "process":
      return `process/${r.name}`;
    case "machine":
      return `machine/${r.name}`;
  }
}

export function describeRecord(r: HostRecord): string {
  return recordId(r);
}

/** The record id a file name stands for (the inverse of RecordStore's file naming). */
export function idOfFile(name: string): string {
  try {
    return decodeURIComponent(name.slice(0, -".json".length));
  } catch {
    return name;
  }
}

/** Record files read by list() between two turns of the event loop (a few milliseconds of reading). */
const LIST_BATCH = 256;

export class RecordStore {
  readonly dir: string;

  constructor(stateDir: string) {
    this.dir = join(stateDir, "records");
  }

  private file(id: string): string {
    return join(this.dir, `${encodeURIComponent(id)}.json`);
  }

  /** The file that holds the record `id` (for batch removal of many records by other means). */
  pathOf(id: string): string {
    return this.file(id);
  }

  /** Writes a record atomically; keeps createdAt of an existing record. */
  async put(input: RecordInput, state: HostRecord["state"]): Promise<HostRecord> {
    const id = recordId(input);
    const existing = this.read(this.file(id));
    const record = { ...input, state, createdAt: existing?.createdAt ?? new Date().toISOString() } as HostRecord;
    const tmp = `${this.file(id)}.tmp-${process.pid}-${Math.random().toString(36).slice(2)}`;
    const text = `${JSON.stringify(record, null, 2)}\n`;
    try {
      writeFileSync(tmp, text, { mode: 0o600 });
    } catch (err) {
      // The directory is made on the first write (and again if something removed it).
      if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
      mkdirSync(this.dir, { recursive: true });
      writeFileSync(tmp, text, { mode: 0o600 });
    }
    renameSync(tmp, this.file(id));
    return record;
  }

  async get(id: string): Promise<HostRecord | undefined> {
    return this.read(this.file(id));
  }

  /** The record in `path`; undefined when there is none. */
  private read(path: string): HostRecord | undefined {
    try {
      return JSON.parse(readFileSync(path, "utf8")) as HostRecord;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw err;
    }
  }

  /**
   * Every record, or those whose id passes `ids` (decided from the file names, so the others are not read:
   * with thousands of records, a lookup of one machine's parts reads a handful of files); files that are
   * not complete records (stray temp files) are skipped. Between batches of files the event loop runs on.
   */
  async list(ids?: (id: string) => boolean): Promise<HostRecord[]> {
    let names: string[];
    try {
      names = readdirSync(this.dir);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return [];
      throw err;
    }
    const wanted = names.filter((x) => x.endsWith(".json") && (ids === undefined || ids(idOfFile(x)))).sort();
    const out: HostRecord[] = [];
    for (const [i, n] of wanted.entries()) {
      if (i > 0 && i % LIST_BATCH === 0) await new Promise((resolve) => setImmediate(resolve));
      try {
        const r = JSON.parse(readFileSync(join(this.dir, n), "utf8")) as HostRecord;
        if (typeof r === "object" && r !== null && typeof r.kind === "string") out.push(r);
      } catch {
        // unreadable: not ours, or removed meanwhile
      }
    }
    return out;
  }

  async delete(id: string): Promise<void> {
    rmSync(this.file(id), { force: true });
  }

  /** Removes temp files left by a crash between write and rename. */
  async removeTempFiles(): Promise<void> {
    let names: string[] = [];
    try {
      names = readdirSync(this.dir);
    } catch {
      return;
    }
    for (const n of names.filter((x) => x.includes(".json.tmp-"))) rmSync(join(this.dir, n), { force: true });
  }
}
