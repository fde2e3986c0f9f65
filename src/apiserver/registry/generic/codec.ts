// Keys and values of objects in the key-value Storage.
// Keys: /registry/<group or "core">/<plural>/<namespace>/<name> (cluster-scoped: without namespace).
// Values: the object's JSON without metadata.resourceVersion, which is the key's modRevision.
import type { KubeObject, ObjectMeta } from "../../../apis/meta/v1/types.ts";
import { newBadRequest } from "../../../apimachinery/errors.ts";
import type { KeyValue } from "../../storage/interface.ts";
import { groupVersionOf, type ResourceDefinition } from "../types.ts";
import { isEmptyValue } from "../../../utils/guards.ts";

/** The prefix of every key of this group/resource (shared by all versions), ending in "/". */
export function resourcePrefix(def: Pick<ResourceDefinition, "group" | "plural">): string {
  return `/registry/${def.group || "core"}/${def.plural}/`;
}

/** The prefix a list or watch reads: one namespace, or everything when namespace is undefined. */
export function listPrefix(def: ResourceDefinition, namespace: string | undefined): string {
  const root = resourcePrefix(def);
  return def.namespaced && namespace ? `${root}${namespace}/` : root;
}

export function objectKey(def: ResourceDefinition, namespace: string | undefined, name: string): string {
  if (!name) throw newBadRequest("resource name may not be empty");
  if (name.includes("/")) throw newBadRequest(`resource name may not contain '/': ${JSON.stringify(name)}`);
  if (!def.namespaced) return `${resourcePrefix(def)}${name}`;
  if (!namespace) throw newBadRequest("namespace is required for a namespaced resource");
  return `${resourcePrefix(def)}${namespace}/${name}`;
}

/** Serializes for storage: apiVersion/kind of the definition, no resourceVersion. */
export function encode(def: ResourceDefinition, obj: KubeObject): string {
  const apiVersion = groupVersionOf(def);
  const meta = obj.metadata;
  if (obj.apiVersion !== apiVersion || obj.kind !== def.kind || meta === null || typeof meta !== "object") {
    const { resourceVersion: _rv, ...rest } = meta ?? {};
    return JSON.stringify({ ...obj, apiVersion, kind: def.kind, metadata: rest });
  }
  // The common case without copies: the object as it is, resourceVersion left out for the moment.
  const rv = meta.resourceVersion;
  if (rv === undefined) return JSON.stringify(obj);
  meta.resourceVersion = undefined;
  try {
    return JSON.stringify(obj);
  } finally {
    meta.resourceVersion = rv;
  }
}

/** A fresh object from storage, with apiVersion/kind of the definition and resourceVersion = revision. */
export function decode(def: ResourceDefinition, kv: KeyValue, revision: number = kv.modRevision): KubeObject {
  const obj = JSON.parse(kv.value) as KubeObject;
  obj.apiVersion = groupVersionOf(def);
  obj.kind = def.kind;
  obj.metadata = { ...(obj.metadata ?? {}), resourceVersion: String(revision) };
  return obj;
}

const sharedDecodes = new WeakMap<KeyValue, Map<string, KubeObject>>();

/** Objects of creates, by the value stored for them (see offerDecoded); each serves one change at most. */
const offered = new Map<string, { type: string; obj: KubeObject }>();
/** Values of creates that succeeded, oldest first: their change may reach the watch cache after the answer (etcd). */
const settled: string[] = [];
/** How many succeeded creates keep their offer for a change still on its way. */
const SETTLED_OFFERS = 256;

/**
 * Like decode, but memoized per storage value: every watcher of one change gets the same object
 * (the watch cache hands all of them the same KeyValue). Callers must not mutate the result.
 */
export function decodeShared(def: ResourceDefinition, kv: KeyValue, revision: number = kv.modRevision): KubeObject {
  let byDef = sharedDecodes.get(kv);
  if (!byDef) sharedDecodes.set(kv, (byDef = new Map()));
  const type = typeOf(def);
  const key = `${type}@${revision}`;
  let obj = byDef.get(key);
  if (!obj) byDef.set(key, (obj = offeredDecode(type, kv, revision) ?? decode(def, kv, revision)));
  return obj;
}

/** The API version and kind objects of `def` decode to. */
function typeOf(def: ResourceDefinition): string {
  return `${groupVersionOf(def)}/${def.kind}`;
}

function offeredDecode(type: string, kv: KeyValue, revision: number): KubeObject | undefined {
  const o = offered.get(kv.value);
  if (!o || o.type !== type || revision !== kv.modRevision) return undefined;
  // The create's own change is the first with this value (it holds a fresh uid): only it gets obj.
  offered.delete(kv.value);
  o.obj.metadata.resourceVersion = String(revision);
  return o.obj;
}

/**
 * Until the change of a create of obj (stored as `value`, its encode) reached the watch cache, its
 * watchers may share obj instead of decoding the value: the creator promises not to change obj
 * any more but to set the same resourceVersion. Returns the withdrawal, to call once the create
 * settled: a failed create withdraws at once, a successful one keeps the offer a little longer, as
 * its change may come after the answer (etcd's watch), among the last SETTLED_OFFERS.
 */
export function offerDecoded(def: ResourceDefinition, value: string, obj: KubeObject): (succeeded: boolean) => void {
  const entry = { type: typeOf(def), obj };
  offered.set(value, entry);
  return (succeeded) => {
    if (offered.get(value) !== entry) return;
    if (!succeeded) return void offered.delete(value);
    settled.push(value);
    if (settled.length > SETTLED_OFFERS) offered.delete(settled.shift()!);
  };
}

/** Drops empty optional metadata fields so that `labels: {}` and no labels compare (and store) alike. */
export function normalizeMeta(meta: ObjectMeta): ObjectMeta {
  const out: Record<string, unknown> = {};
  const from = meta as Record<string, unknown>;
  for (const k of Object.keys(from)) {
    const v = from[k];
    if (k !== "selfLink" && !isEmptyValue(v)) out[k] = v;
  }
  return out as ObjectMeta;
}

/** Structural equality of JSON values (key order does not matter). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    return a.length === bb.length && a.every((v, i) => jsonEqual(v, bb[i]));
  }
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  const ak = Object.keys(ao).filter((k) => ao[k] !== undefined);
  const bk = Object.keys(bo).filter((k) => bo[k] !== undefined);
  return ak.length === bk.length && ak.every((k) => Object.hasOwn(bo, k) && jsonEqual(ao[k], bo[k]));
}

