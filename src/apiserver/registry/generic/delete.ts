// delete and deletecollection (docs/kubernetes-api.md#delete): preconditions, finalizers (mark with deletionTimestamp,
// which only moves earlier), immediate deletion otherwise. propagationPolicy Orphan and Foreground
// set the garbage collector's finalizers (gc-finalizers.ts; controllers/garbagecollector acts on them).
// Kinds with graceful deletion (pods) are only marked while their grace period runs (graceful.ts).
import type { KubeList, KubeObject } from "../../../apis/meta/v1/types.ts";
import { newConflict, newNotFound, unlessNotFound } from "../../../apimachinery/errors.ts";
import { type KeyValue, StorageError } from "../../storage/interface.ts";
import { groupVersionOf, type RequestContext } from "../types.ts";
import { decode, encode, objectKey } from "./codec.ts";
import { admit, type StoreCore } from "./core.ts";
import type { DeleteResult, ListOptions, StoreDeleteOptions } from "./interface.ts";
import { gcFinalizersOnDelete } from "./gc-finalizers.ts";
import { beforeDelete } from "./graceful.ts";
import { sameObject } from "./prepare.ts";
import { currentAfterConflict, getKey, list } from "./read.ts";
import { ConflictRetry } from "./retry.ts";
import { storageToStatus } from "./rv.ts";
import { metaTime } from "../../../utils/time.ts";

/** DeleteOptions whose dryRun may be the wire form (["All"]) or a boolean. */

function isDryRun(ctx: RequestContext, options: StoreDeleteOptions): boolean {
  return ctx.dryRun || options.dryRun === true || (Array.isArray(options.dryRun) && options.dryRun.includes("All"));
}

export async function del(core: StoreCore, ctx: RequestContext, name: string, options: StoreDeleteOptions = {}): Promise<DeleteResult> {
  const def = core.def;
  const dryRun = isDryRun(ctx, options);
  const key = objectKey(def, ctx.namespace, name);
  let admitted = false;

  let reported: KeyValue | undefined;
  // Preconditions are checked on every attempt (409 when they fail); a lost compare-and-swap is retried (retry.ts).
  const retry = new ConflictRetry();
  for (;; reported = await retry.next(reported)) {
    const kv = reported ?? (await getKey(core, key));
    reported = undefined;
    if (!kv) throw newNotFound(core.gr, name);
    const old = decode(def, kv);
    checkPreconditions(core, name, old, options);
    if (!admitted) {
      const attrs = { operation: "DELETE" as const, name, namespace: old.metadata.namespace, oldObject: old, dryRun };
      await admit(core, ctx, attrs, "admit");
      await admit(core, ctx, attrs, "validate");
      admitted = true;
    }

    const graceful = beforeDelete(def.strategy, ctx, old, options.gracePeriodSeconds, core.clock.now());
    if (graceful.kind === "pending") return { object: old, deleted: false };
    const base = graceful.kind === "graceful" ? graceful.obj : old;
    const gcFinalizers = gcFinalizersOnDelete(def, base, options);
    const finalized = gcFinalizers ? withFinalizers(base, gcFinalizers) : base;
    if (core.finalizersOf(finalized).length || (graceful.kind === "graceful" && graceful.period > 0)) {
      const obj = graceful.kind === "graceful" ? finalized : markAsDeleting(finalized, core.clock.now());
      if (dryRun || sameObject(obj, old)) return { object: obj, deleted: false };
      try {
        const saved = await core.storage.update(key, encode(def, obj), kv.modRevision);
        return { object: decode(def, saved), deleted: false };
      } catch (err) {
        reported = currentAfterConflict(err);
        if (err instanceof StorageError && (err.code === "Conflict" || err.code === "NotFound")) continue;
        throw storageToStatus(err);
      }
    }

    if (dryRun) return { object: old, deleted: true };
    try {
      await core.storage.delete(key, kv.modRevision);
      return { object: old, deleted: true };
    } catch (err) {
      reported = currentAfterConflict(err);
      if (err instanceof StorageError && (err.code === "Conflict" || err.code === "NotFound")) continue;
      throw storageToStatus(err);
    }
  }
}

function checkPreconditions(core: StoreCore, name: string, obj: KubeObject, options: StoreDeleteOptions): void {
  const p = options.preconditions;
  if (p?.uid && p.uid !== obj.metadata.uid) {
    throw newConflict(core.gr, name, `Precondition failed: UID in precondition: ${p.uid}, UID in object meta: ${obj.metadata.uid ?? ""}`);
  }
  if (p?.resourceVersion && p.resourceVersion !== obj.metadata.resourceVersion) {
    throw newConflict(
      core.gr,
      name,
      `Precondition failed: ResourceVersion in precondition: ${p.resourceVersion}, ResourceVersion in object meta: ${obj.metadata.resourceVersion ?? ""}`,
    );
  }
}

function withFinalizers(obj: KubeObject, finalizers: string[]): KubeObject {
  const { finalizers: _old, ...meta } = obj.metadata;
  return { ...obj, metadata: finalizers.length ? { ...meta, finalizers } : meta };
}

/** A copy with deletionTimestamp = now unless already set earlier; generation bumped when deletion starts. */
export function markAsDeleting(old: KubeObject, now: Date): KubeObject {
  const obj = structuredClone(old);
  const meta = obj.metadata;
  const existing = meta.deletionTimestamp ? Date.parse(meta.deletionTimestamp) : undefined;
  if (existing !== undefined && !Number.isNaN(existing) && existing <= now.getTime()) return obj;
  if (!meta.deletionTimestamp && (meta.generation ?? 0) > 0) meta.generation = (meta.generation ?? 0) + 1;
  meta.deletionTimestamp = metaTime(now);
  meta.deletionGracePeriodSeconds = 0;
  return obj;
}

/** Lists with the selectors, then deletes each item (respecting finalizers); returns the items as deleted or marked. */
export async function deleteCollection(
  core: StoreCore,
  ctx: RequestContext,
  listOptions: ListOptions,
  options: StoreDeleteOptions = {},
): Promise<KubeList> {
  const listed = await list(core, ctx, listOptions);
  const items: KubeObject[] = [];
  for (const item of listed.items) {
    const itemCtx = core.def.namespaced ? { ...ctx, namespace: item.metadata.namespace } : ctx;
    const deleted = await unlessNotFound(del(core, itemCtx, item.metadata.name!, options));
    if (deleted) items.push(deleted.object);
  }
  return { apiVersion: groupVersionOf(core.def), kind: core.def.listKind, metadata: { resourceVersion: listed.metadata.resourceVersion }, items };
}
