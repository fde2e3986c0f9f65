// managedFields for every write, as kube-apiserver's field manager keeps them: updates (create,
// update, non-apply patches) record what the writer changed under an `Update` entry; applies
// merge the configuration under an `Apply` entry, with conflicts and force. System metadata
// (name, uid, resourceVersion, ...) is never owned. The entry's time moves only when its fields
// or the object changed. At most MAX_UPDATE_MANAGERS update entries are kept.
import type { KubeObject, ManagedFieldsEntry } from "../../apis/meta/v1/types.ts";
import type { JSONSchemaProps } from "../../apis/apiextensions/v1/types.ts";
import { newBadRequest, StatusError } from "../../apimachinery/errors.ts";
import { conflictError } from "./conflict.ts";
import { FieldSet } from "./fieldset.ts";
import { Problems } from "./items.ts";
import { allowedByLastApplied, syncLastApplied } from "./lastapplied.ts";
import { capUpdateManagers, decodeManaged, decodeManagedOrEmpty, encodeManaged, isReset, type Managed, managerId } from "./managed.ts";
import { fieldPE, type PE } from "./pathelement.ts";
import { resourceSchema } from "./schema.ts";
import { toFieldSet } from "./tofieldset.ts";
import { applyOwnership, ConflictsError, updateOwnership, type UpdaterOptions } from "./updater.ts";
import { compare } from "./compare.ts";
import { isEmptyValue } from "../../utils/guards.ts";

export interface FieldManagerScope {
  /** The resource's whole-object schema. */
  schema: JSONSchemaProps;
  group: string;
  version: string;
  kind: string;
  /** Resources with a status subresource: the main resource does not change status, /status nothing else. */
  hasStatus: boolean;
  /** "" or "status". */
  subresource: string;
  /** RFC 3339 time of this write. */
  now: string;
}

/** Paths never owned (kube-apiserver's stripMeta). */
const STRIPPED = FieldSet.of(
  [fieldPE("apiVersion")],
  [fieldPE("kind")],
  [fieldPE("metadata")],
  ...["name", "namespace", "creationTimestamp", "selfLink", "uid", "clusterName", "generation", "managedFields", "resourceVersion"].map((f) => [
    fieldPE("metadata"),
    fieldPE(f),
  ]),
);

const CURRENT_OPERATION = '{"manager":"current-operation"}';
/** kube-apiserver's owner of the fields of an object applied to for the first time without managedFields. */
export const BEFORE_FIRST_APPLY = "before-first-apply";

function apiVersionOf(s: FieldManagerScope): string {
  return s.group ? `${s.group}/${s.version}` : s.version;
}

function options(s: FieldManagerScope): UpdaterOptions {
  const status = fieldPE("status");
  const ignored: (pe: PE) => boolean = !s.hasStatus ? () => false : s.subresource === "status" ? (pe) => pe !== status : (pe) => pe === status;
  return { schema: resourceSchema(s.schema), apiVersion: apiVersionOf(s), ignored };
}

/** The object as the ownership logic sees it: without managedFields, and without empty metadata fields (the store drops them). */
function stripManaged(obj: KubeObject | undefined, s: FieldManagerScope): KubeObject {
  if (!obj) return { apiVersion: apiVersionOf(s), kind: s.kind, metadata: {} };
  const meta: Record<string, unknown> = {};
  const live = (obj.metadata ?? {}) as Record<string, unknown>;
  for (const k of Object.keys(live)) if (k !== "managedFields" && !isEmptyValue(live[k])) meta[k] = live[k];
  return { ...obj, metadata: meta };
}

/** Which managedFields a write starts from: the request's (unless a subresource, or malformed, or empty), else the live object's. */
function startingManaged(live: KubeObject | undefined, next: KubeObject, s: FieldManagerScope): Managed {
  const liveEntries = live?.metadata?.managedFields;
  if (s.subresource !== "") return decodeManagedOrEmpty(liveEntries);
  const sent: unknown = next.metadata?.managedFields;
  if (isReset(sent)) return decodeManaged([]);
  try {
    const m = decodeManaged(sent);
    if (m.sets.size > 0) return m;
  } catch {
    // A malformed managedFields from the client is replaced by the live object's.
  }
  return decodeManagedOrEmpty(liveEntries);
}

/** managedFields after a non-apply write of `next` over `live` (undefined: a create) by `manager`. */
export function managedFieldsAfterUpdate(live: KubeObject | undefined, next: KubeObject, manager: string, s: FieldManagerScope): ManagedFieldsEntry[] | undefined {
  const managed = startingManaged(live, next, s);
  const o = options(s);
  let set: FieldSet | undefined;
  if (managed.sets.size === 0) {
    // Nobody owns anything yet (a create, or an object without managedFields): the writer takes
    // what changed, and there is nobody to take it from.
    const c = compare(stripManaged(live, s), stripManaged(next, s), o.schema);
    set = c.added.union(c.modified).withoutTop(o.ignored).difference(STRIPPED);
  } else {
    updateOwnership(stripManaged(live, s), stripManaged(next, s), managed.sets, CURRENT_OPERATION, o);
    set = managed.sets.get(CURRENT_OPERATION)?.set.difference(STRIPPED);
    managed.sets.delete(CURRENT_OPERATION);
  }
  if (set && !set.empty()) {
    const id = managerId({ manager, operation: "Update", apiVersion: o.apiVersion, subresource: s.subresource });
    const previous = managed.sets.get(id);
    managed.sets.set(id, { set: previous ? set.union(previous.set) : set, apiVersion: o.apiVersion, applied: false });
    managed.times.set(id, s.now);
  }
  capUpdateManagers(managed);
  return encodeManaged(managed);
}

function gvkString(apiVersion: unknown, kind: unknown): string {
  const gv = typeof apiVersion === "string" ? apiVersion : "";
  const slash = gv.indexOf("/");
  const group = slash >= 0 ? gv.slice(0, slash) : "";
  const version = slash >= 0 ? gv.slice(slash + 1) : gv;
  return `${group}/${version}, Kind=${typeof kind === "string" ? kind : ""}`;
}

/**
 * The object after applying `config` over `live` (undefined: the object does not exist yet) for
 * `manager`, with its managedFields. 400 for a configuration of another type or with
 * managedFields, 422 for a configuration structured-merge-diff cannot read (duplicate or keyless
 * list items), 409 for conflicts unless `force`.
 */
export function applyConfiguration(live: KubeObject | undefined, config: KubeObject, manager: string, force: boolean, s: FieldManagerScope): KubeObject {
  checkConfiguration(config, s);
  const o = options(s);
  const configSet = typedConfigSet(live, config, o);
  let managed = decodeManagedOrEmpty(live?.metadata?.managedFields);
  // Fields set while nobody tracked them (an object older than managedFields) belong to "before-first-apply".
  if (live && managed.sets.size === 0) managed = decodeManagedOrEmpty(managedFieldsAfterUpdate(undefined, live, BEFORE_FIRST_APPLY, s));
  const base = stripManaged(live, s);
  const id = managerId({ manager, operation: "Apply", subresource: s.subresource });
  const run = (forced: boolean): { next: unknown; sets: Managed["sets"] } => {
    const sets = new Map(managed.sets);
    return { next: applyOwnership(base, config, sets, id, forced, o, configSet), sets };
  };
  let result;
  try {
    result = run(force);
  } catch (err) {
    if (!(err instanceof ConflictsError)) throw err;
    // kubectl's first server-side apply after client-side applies takes over what its last-applied annotation says it applied.
    const remaining = manager === "kubectl" ? err.conflicts.filter((c) => !allowedByLastApplied(base, o).has(c.path)) : err.conflicts;
    if (remaining.length) throw conflictError(remaining);
    result = run(true);
  }
  keepOwnSet(result.sets, id);
  const times = new Map(managed.times);
  const next = (result.next ?? structuredClone(base)) as KubeObject;
  if (result.next !== undefined) times.set(id, s.now);
  if (manager === "kubectl") syncLastApplied(live, config, next);
  next.metadata = { ...(next.metadata ?? {}) };
  const entries = encodeManaged({ sets: result.sets, times });
  if (entries) next.metadata.managedFields = entries;
  return next;
}

/** 400 for a configuration of another type or one that carries managedFields. */
function checkConfiguration(config: KubeObject, s: FieldManagerScope): void {
  if (config.apiVersion !== apiVersionOf(s) || config.kind !== s.kind) throw newBadRequest(`invalid object type: ${gvkString(config.apiVersion, config.kind)}`);
  if (config.metadata?.managedFields !== undefined && config.metadata?.managedFields !== null) throw newBadRequest("metadata.managedFields must be nil");
}

/** The configuration's field set; 422 when structured-merge-diff cannot read it. */
function typedConfigSet(live: KubeObject | undefined, config: KubeObject, o: ReturnType<typeof options>): ReturnType<typeof toFieldSet> {
  const problems = new Problems();
  const configSet = toFieldSet(config, o.schema, problems);
  if (problems.list.length === 0) return configSet;
  const ns = live?.metadata?.namespace ?? config.metadata?.namespace ?? "";
  const name = live?.metadata?.name ?? config.metadata?.name ?? "";
  const detail = problems.list.length === 1 ? problems.list[0] : `errors:\n  ${problems.list.join("\n  ")}`;
  throw new StatusError(422, "Invalid", `failed to create typed patch object (${ns}/${name}; ${gvkString(config.apiVersion, config.kind)}): ${detail}`);
}

/** The applier owns what it set, minus the fields no manager owns; an empty set is dropped. */
function keepOwnSet(sets: Managed["sets"], id: string): void {
  const own = sets.get(id);
  const ownSet = own?.set.difference(STRIPPED);
  if (own && ownSet && !ownSet.empty()) sets.set(id, { ...own, set: ownSet });
  else sets.delete(id);
}
