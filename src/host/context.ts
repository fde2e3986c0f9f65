// What every host operation works with: the command runner, the record store, the names of this state
// directory's objects. Operations are functions of a context so LinuxHost stays a thin facade.
import type { Exec } from "./exec.ts";
import { HostSpecError, type Names } from "./names.ts";
import { recordId, type HostRecord, type RecordInput, type RecordStore } from "./records.ts";

export interface HostContext {
  exec: Exec;
  records: RecordStore;
  names: Names;
  /** Absolute path; everything mounted or written by host/ lives below it. */
  stateDir: string;
  /** The host ids machines' users map to (a machine's root is host id `base`), recorded in host.json. */
  ids: IdRange;
}

/** A range of host user and group ids: ids 0..count-1 inside a machine are base..base+count-1 outside. */
export interface IdRange {
  base: number;
  count: number;
}

/** Who an object belongs to, recorded with it. */
export interface Owned {
  /** Caller-chosen owner, passed to sweep's keep(). */
  owner?: string;
  /** Record id of the composite (machine) this object is part of. */
  parent?: string;
}

export function ownedFields(o: Owned): Owned {
  const out: Owned = {};
  if (o.owner !== undefined) out.owner = o.owner;
  if (o.parent !== undefined) out.parent = o.parent;
  return out;
}

/** Records the object before creating it and again after, so a crash in between leaves a record to sweep. */
export async function recorded<T>(ctx: HostContext, input: RecordInput, create: () => Promise<T>): Promise<T> {
  await ctx.records.put(input, "creating");
  const result = await create();
  await ctx.records.put(input, "created");
  return result;
}

/** Namespaces host/ touches must carry the prefix: it never changes objects it did not name. */
export function ownNetns(ctx: HostContext, netns: string | undefined): string | undefined {
  if (netns !== undefined && !ctx.names.owns(netns)) {
    throw new HostSpecError(`network namespace ${JSON.stringify(netns)} does not carry the prefix ${ctx.names.prefix}`);
  }
  return netns;
}

/** In the host namespace only prefixed links may be created or deleted. */
export function ownLink(ctx: HostContext, name: string, netns: string | undefined): void {
  ownNetns(ctx, netns);
  if (netns === undefined && !ctx.names.owns(name)) {
    throw new HostSpecError(`link ${JSON.stringify(name)} in the host namespace does not carry the prefix ${ctx.names.prefix}`);
  }
}

/** `ip` arguments for a namespace: ["-n", ns] or []. */
export function ipNs(netns: string | undefined): string[] {
  return netns === undefined ? [] : ["-n", netns];
}

/**
 * Deletes the records `match` picks. `ids`, when given, narrows the records read to those whose id passes it
 * (every record `match` may pick must pass): the difference between reading a few files and thousands.
 */
export async function deleteRecords(ctx: HostContext, match: (r: HostRecord) => boolean, ids?: (id: string) => boolean): Promise<void> {
  const doomed = (await ctx.records.list(ids)).filter(match);
  await Promise.all(doomed.map((r) => ctx.records.delete(recordId(r))));
}
