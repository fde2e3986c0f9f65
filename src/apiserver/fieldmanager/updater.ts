// Ownership bookkeeping (structured-merge-diff's merge.Updater) for one API version: Update
// (a write that is not an apply: the writer takes every field it added or changed, other
// managers lose them and everyone loses removed fields) and Apply (merge the configuration,
// remove what the applier applied last time, no longer applies and nobody else owns, and refuse
// to change other managers' fields unless forced).
import type { JSONSchemaProps } from "../../apis/apiextensions/v1/types.ts";
import { compare, type Comparison } from "./compare.ts";
import { FieldSet } from "./fieldset.ts";
import { jsonEqual } from "./json.ts";
import { merge } from "./merge.ts";
import type { PE } from "./pathelement.ts";
import { ensureNamedFieldsAreMembers, removeItems } from "./remove.ts";
import { toFieldSet } from "./tofieldset.ts";

export interface VersionedSet {
  set: FieldSet;
  apiVersion: string;
  applied: boolean;
}

/** Manager identifier -> owned fields. */
export type ManagedSets = Map<string, VersionedSet>;

export interface Conflict {
  manager: string;
  path: PE[];
}

export class ConflictsError extends Error {
  constructor(readonly conflicts: Conflict[]) {
    super(`${conflicts.length} apply conflicts`);
  }
}

export interface UpdaterOptions {
  schema: JSONSchemaProps;
  apiVersion: string;
  /** Top-level fields this endpoint does not change (the status subresource's reset fields). */
  ignored: (pe: PE) => boolean;
}

function filtered(c: Comparison, o: UpdaterOptions): Comparison {
  return { added: c.added.withoutTop(o.ignored), removed: c.removed.withoutTop(o.ignored), modified: c.modified.withoutTop(o.ignored) };
}

function updateOthers(live: unknown, next: unknown, managers: ManagedSets, workflow: string, force: boolean, o: UpdaterOptions): Comparison {
  const c = filtered(compare(live, next, o.schema), o);
  const changed = c.modified.union(c.added);
  const conflicts = new Map<string, FieldSet>();
  for (const [manager, vs] of managers) {
    if (manager === workflow) continue;
    const clash = vs.set.intersection(changed);
    if (!clash.empty()) conflicts.set(manager, clash);
  }
  if (!force && conflicts.size) {
    const list: Conflict[] = [];
    for (const [manager, set] of conflicts) for (const path of set.paths()) list.push({ manager, path });
    throw new ConflictsError(list);
  }
  for (const [manager, vs] of managers) {
    if (manager === workflow) continue;
    let set = vs.set;
    const clash = conflicts.get(manager);
    if (clash) set = set.difference(clash);
    if (!c.removed.empty()) set = set.difference(c.removed);
    if (set.empty()) managers.delete(manager);
    else managers.set(manager, { ...vs, set });
  }
  return c;
}

/** Records a non-apply write of `next` over `live` by `manager`; `managers` is updated in place. */
export function updateOwnership(live: unknown, next: unknown, managers: ManagedSets, manager: string, o: UpdaterOptions): void {
  const c = updateOthers(live, next, managers, manager, true, o);
  const prev = managers.get(manager)?.set ?? new FieldSet();
  const set = prev.difference(c.removed).union(c.modified).union(c.added).withoutTop(o.ignored);
  if (set.empty()) managers.delete(manager);
  else managers.set(manager, { set, apiVersion: o.apiVersion, applied: false });
}

/**
 * Applies `config` (already checked: see toFieldSet's problems) over `live` for `manager`.
 * Returns the new object, or undefined when it equals `live`; `managers` is updated in place.
 * Throws ConflictsError unless forced.
 */
export function applyOwnership(
  live: unknown,
  config: unknown,
  managers: ManagedSets,
  manager: string,
  force: boolean,
  o: UpdaterOptions,
  configSet: FieldSet = toFieldSet(config, o.schema),
): unknown {
  const merged = merge(live, config, o.schema);
  const last = managers.get(manager);
  managers.set(manager, { set: configSet.withoutTop(o.ignored), apiVersion: o.apiVersion, applied: true });
  const next = last ? prune(merged, managers, last.set, o) : merged;
  updateOthers(live, next, managers, manager, force, o);
  return jsonEqual(live, next) ? undefined : next;
}

/** Removes what the applier owned last time, if nobody (the applier included) owns it now. */
function prune(merged: unknown, managers: ManagedSets, last: FieldSet, o: UpdaterOptions): unknown {
  if (last.empty()) return merged;
  const owned = new FieldSet();
  for (const vs of managers.values()) owned.addAll(vs.set);
  const named = (s: FieldSet) => ensureNamedFieldsAreMembers(s, o.schema);
  const gone = named(last).intersection(named(toFieldSet(merged, o.schema))).difference(named(owned));
  return gone.empty() ? merged : removeItems(merged, gone, o.schema);
}
