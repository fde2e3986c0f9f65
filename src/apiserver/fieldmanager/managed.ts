// metadata.managedFields <-> ownership sets. An entry's identity is its manager, operation,
// subresource and, for updates, API version (as kube-apiserver's BuildManagerIdentifier, a JSON
// string); its time is kept beside it. Entries are written sorted as kube-apiserver sorts them.
import type { ManagedFieldsEntry } from "../../apis/meta/v1/types.ts";
import { FieldSet } from "./fieldset.ts";
import type { ManagedSets } from "./updater.ts";
import { isRecord } from "../../utils/guards.ts";

export interface Managed {
  sets: ManagedSets;
  /** Manager identifier -> RFC 3339 time of its last change. */
  times: Map<string, string | undefined>;
}

export function emptyManaged(): Managed {
  return { sets: new Map(), times: new Map() };
}

export interface ManagerInfo {
  manager: string;
  operation: "Apply" | "Update";
  apiVersion?: string;
  subresource?: string;
}

/** The identifier of a manager: the entry's JSON without fields, type and time (and apiVersion for appliers). */
export function managerId(info: ManagerInfo): string {
  const memo = `${info.manager}\0${info.operation}\0${info.apiVersion ?? ""}\0${info.subresource ?? ""}`;
  let id = ids.get(memo);
  if (id === undefined) {
    id = buildManagerId(info);
    remember(ids, memo, id);
    remember(infos, id, parseManagerIdUncached(id));
  }
  return id;
}

/** Identifiers repeat (a handful of managers per resource): both directions are memoized, within bounds. */
const ids = new Map<string, string>();
const infos = new Map<string, ManagerInfo>();
const MEMO_LIMIT = 10_000;

function remember<V>(m: Map<string, V>, k: string, v: V): void {
  if (m.size >= MEMO_LIMIT) m.clear();
  m.set(k, v);
}

function buildManagerId(info: ManagerInfo): string {
  const o: Record<string, string> = {};
  if (info.manager) o.manager = info.manager;
  o.operation = info.operation;
  if (info.operation === "Update" && info.apiVersion) o.apiVersion = info.apiVersion;
  if (info.subresource) o.subresource = info.subresource;
  return JSON.stringify(o);
}

/** The manager an identifier names (callers must not change the result). */
export function parseManagerId(id: string): ManagerInfo {
  let info = infos.get(id);
  if (!info) remember(infos, id, (info = parseManagerIdUncached(id)));
  return info;
}

function parseManagerIdUncached(id: string): ManagerInfo {
  return JSON.parse(id) as ManagerInfo;
}

/** Decodes managedFields; throws on anything kube-apiserver's DecodeManagedFields refuses. */
export function decodeManaged(entries: unknown): Managed {
  const out = emptyManaged();
  if (entries === undefined || entries === null) return out;
  if (!Array.isArray(entries)) throw new Error("managedFields must be a list");
  entries.forEach((e: unknown, i) => {
    if (!isRecord(e)) throw new Error(`managed fields entry ${i} is not an object`);
    const entry = e as ManagedFieldsEntry;
    if (entry.operation !== "Apply" && entry.operation !== "Update") throw new Error("operation must be `Apply` or `Update`");
    if (typeof entry.apiVersion !== "string" || !entry.apiVersion) throw new Error("apiVersion must not be empty");
    if (entry.fieldsType !== "FieldsV1") throw new Error(`invalid fieldsType in managed fields entry ${i}`);
    for (const k of ["manager", "subresource", "time"] as const) {
      if (entry[k] !== undefined && typeof entry[k] !== "string") throw new Error(`${k} must be a string in managed fields entry ${i}`);
    }
    if (entry.time !== undefined && Number.isNaN(Date.parse(entry.time))) throw new Error(`invalid time in managed fields entry ${i}`);
    const id = managerId({ manager: entry.manager ?? "", operation: entry.operation, apiVersion: entry.apiVersion, subresource: entry.subresource });
    const set = FieldSet.fromFieldsV1(entry.fieldsV1 ?? {});
    out.sets.set(id, { set, apiVersion: entry.apiVersion, applied: entry.operation === "Apply" });
    out.times.set(id, entry.time);
  });
  return out;
}

/** Decodes, or gives the empty set of managers for anything malformed. */
export function decodeManagedOrEmpty(entries: unknown): Managed {
  try {
    return decodeManaged(entries);
  } catch {
    return emptyManaged();
  }
}

/** A client resets managedFields by sending an empty list or a list of one empty entry. */
export function isReset(entries: unknown): boolean {
  if (!Array.isArray(entries)) return false;
  if (entries.length === 0) return true;
  return entries.length === 1 && isRecord(entries[0]) && Object.values(entries[0]).every((v) => v === undefined || v === null || v === "");
}

function seconds(t: string | undefined): number {
  return t ? Math.floor(Date.parse(t) / 1000) : 0;
}

export function encodeManaged(m: Managed): ManagedFieldsEntry[] | undefined {
  if (m.sets.size === 0) return undefined;
  const entries: ManagedFieldsEntry[] = [];
  for (const [id, vs] of m.sets) {
    const info = parseManagerId(id);
    const e: ManagedFieldsEntry = {};
    if (info.manager) e.manager = info.manager;
    e.operation = vs.applied ? "Apply" : "Update";
    e.apiVersion = vs.apiVersion;
    const time = m.times.get(id);
    if (time) e.time = time;
    e.fieldsType = "FieldsV1";
    e.fieldsV1 = vs.set.toFieldsV1();
    if (info.subresource) e.subresource = info.subresource;
    entries.push(e);
  }
  return entries.length > 1 ? entries.sort(entryOrder) : entries;
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function entryOrder(p: ManagedFieldsEntry, q: ManagedFieldsEntry): number {
  return (
    cmp(p.operation!, q.operation!) ||
    seconds(p.time) - seconds(q.time) ||
    cmp(p.manager ?? "", q.manager ?? "") ||
    cmp(p.apiVersion!, q.apiVersion!) ||
    cmp(p.subresource ?? "", q.subresource ?? "")
  );
}

/** kube-apiserver's DefaultMaxUpdateManagers. */
export const MAX_UPDATE_MANAGERS = 10;
const ANCIENT = "ancient-changes";

/** Merges the oldest update entries into one "ancient-changes" entry per API version until at most `max` remain. */
export function capUpdateManagers(m: Managed, max = MAX_UPDATE_MANAGERS): void {
  if (m.sets.size <= max) return;
  const updaters = [...m.sets].filter(([, vs]) => !vs.applied).map(([id]) => id);
  if (updaters.length <= max) return;
  updaters.sort((a, b) => seconds(m.times.get(a)) - seconds(m.times.get(b)) || (a < b ? -1 : a > b ? 1 : 0));
  const firstOfVersion = new Map<string, string>();
  let length = updaters.length;
  for (let i = 0; i < updaters.length && length > max; i++) {
    const id = updaters[i]!;
    const vs = m.sets.get(id)!;
    const bucket = managerId({ manager: ANCIENT, operation: "Update", apiVersion: vs.apiVersion });
    const first = firstOfVersion.get(vs.apiVersion);
    if (first === undefined) {
      firstOfVersion.set(vs.apiVersion, id);
      continue;
    }
    if (!m.sets.has(bucket)) {
      m.sets.set(bucket, m.sets.get(first)!);
      m.sets.delete(first);
    }
    m.sets.set(bucket, { ...vs, set: vs.set.union(m.sets.get(bucket)!.set) });
    m.sets.delete(id);
    m.times.set(bucket, m.times.get(id));
    length--;
  }
}
