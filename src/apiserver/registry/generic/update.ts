// update (docs/kubernetes-api.md#update, docs/kubernetes-api.md#status-subresource): the get-compute-CAS loop shared by PUT and PATCH. Conditional writes
// (the body carries metadata.resourceVersion) fail with 409 on a mismatch; unconditional ones
// retry on storage conflicts as long as other writers make progress (retry.ts). A write that changes nothing does not write. Removing the last
// finalizer of an object being deleted deletes it (MODIFIED, then DELETED).
import type { KubeObject } from "../../../apis/meta/v1/types.ts";
import { isAlreadyExists, newBadRequest, newInvalid, newNotFound, newOptimisticLockConflict, newPathNotFound } from "../../../apimachinery/errors.ts";
import { invalid } from "../../../apimachinery/field/errors.ts";
import { type KeyValue, StorageError } from "../../storage/interface.ts";
import type { RequestContext } from "../types.ts";
import { decode, encode, objectKey } from "./codec.ts";
import { admit, type StoreCore } from "./core.ts";
import { createDecoded } from "./create.ts";
import type { WriteOptions, WriteResult } from "./interface.ts";
import { type Decoded, decodeBody, prepareStatusUpdate, prepareUpdate, sameObject, settleNamespace, validateUpdate } from "./prepare.ts";
import { trackWrite } from "./managed-fields.ts";
import { ConflictRetry } from "./retry.ts";
import { currentAfterConflict, getKey } from "./read.ts";
import { storageToStatus } from "./rv.ts";
import { checkObjectSize } from "./size.ts";

const MAX_ATTEMPTS = 16;

interface Computed {
  old: KubeObject;
  obj: KubeObject;
  warnings: string[];
}

/** Computes the desired object from the current one (PUT: the body; PATCH: the patched current object). */
export type Desired = (current: KubeObject | undefined) => Decoded;

export async function update(
  core: StoreCore,
  ctx: RequestContext,
  name: string,
  body: unknown,
  options: WriteOptions = {},
  subresource = "",
): Promise<WriteResult> {
  const decoded = decodeBody(core, body, options.fieldValidation, options.bodyOwned);
  const desired: Desired = (current) => {
    const obj = structuredClone(decoded.obj);
    trackWrite(core, current, obj, options, subresource);
    return { obj, warnings: [...decoded.warnings] };
  };
  return updateLoop(core, ctx, name, desired, options, subresource, Boolean(core.def.strategy.allowCreateOnUpdate));
}

export function checkSubresource(core: StoreCore, subresource: string): void {
  if (subresource === "" || (subresource === "status" && core.def.hasStatus)) return;
  throw newPathNotFound();
}

export async function updateLoop(
  core: StoreCore,
  ctx: RequestContext,
  name: string,
  desired: Desired,
  options: WriteOptions,
  subresource: string,
  allowCreate: boolean,
): Promise<WriteResult> {
  checkSubresource(core, subresource);
  const def = core.def;
  const dryRun = Boolean(options.dryRun || ctx.dryRun);
  const key = objectKey(def, ctx.namespace, name);

  /** The object to write over kv, with the checks, admission and validation that decide it. */
  const compute = async (kv: KeyValue): Promise<Computed> => {
    const old = decode(def, kv);
    const { obj: body, warnings } = desired(old);
    checkName(body, name);
    settleNamespace(core, ctx, body);
    const rv = body.metadata.resourceVersion;
    if (!rv) {
      if (def.strategy.allowUnconditionalUpdate === false) {
        throw newInvalid(core.gk, name, [invalid("metadata.resourceVersion", undefined, "0x0: must be specified for an update")]);
      }
    } else if (String(rv) !== String(kv.modRevision)) {
      throw newOptimisticLockConflict(core.gr, name);
    }
    const attrs = { operation: "UPDATE" as const, subresource, name, namespace: old.metadata.namespace, oldObject: old, dryRun };
    await admit(core, ctx, { ...attrs, object: body }, "admit");
    let obj = body;
    if (subresource === "status") obj = prepareStatusUpdate(core, ctx, body, old);
    else prepareUpdate(core, ctx, obj, old);
    validateUpdate(core, ctx, obj, old, subresource);
    await admit(core, ctx, { ...attrs, object: obj }, "validate");
    if (subresource === "") warnings.push(...(def.strategy.warningsOnUpdate?.(ctx, obj, old) ?? []));
    return { old, obj, warnings };
  };

  let reported: KeyValue | undefined;
  // The first read takes the watch cache as it is, without waiting for it to catch up with the
  // storage (kube-apiserver's update starts from its cached object too): the write's compare-and-swap
  // fails on a stale copy and the loop goes on with the current one it reports, and each decision a
  // stale copy could get wrong (not found, a resourceVersion that does not match, nothing to change)
  // is made again on a consistent read. Over etcd this saves a round trip and the wait for the watch.
  let staleRead = !dryRun;
  const retry = new ConflictRetry();
  for (;;) {
    const maybeStale = !reported && staleRead;
    const kv = reported ?? (await getKey(core, key, maybeStale));
    reported = undefined;
    staleRead = false;
    if (!kv && maybeStale) continue;
    if (!kv) {
      if (!(allowCreate && subresource === "")) throw newNotFound(core.gr, name);
      const { obj, warnings } = desired(undefined);
      checkName(obj, name);
      try {
        return await createDecoded(core, ctx, obj, warnings, options);
      } catch (err) {
        if (!isAlreadyExists(err)) throw err;
        await retry.next();
        continue;
      }
    }
    let step: Computed;
    try {
      step = await compute(kv);
    } catch (err) {
      if (maybeStale) continue; // maybe refused for the stale copy: decide again on a consistent read
      throw err;
    }
    const { old, obj, warnings } = step;
    if (sameObject(obj, old)) {
      if (maybeStale) continue;
      return { object: old, warnings };
    }
    obj.metadata.resourceVersion = old.metadata.resourceVersion;
    const value = encode(def, obj);
    checkObjectSize(def, obj, value);
    if (dryRun) return { object: obj, warnings };
    try {
      const saved = await core.storage.update(key, value, kv.modRevision);
      if (isFinalized(core, obj)) await deleteFinalized(core, key, saved.modRevision);
      return { object: decode(def, saved), warnings };
    } catch (err) {
      reported = currentAfterConflict(err);
      if (!(err instanceof StorageError && (err.code === "Conflict" || err.code === "NotFound"))) throw storageToStatus(err);
      reported = await retry.next(reported);
    }
  }
}

function checkName(obj: KubeObject, name: string): void {
  const given = obj.metadata.name;
  if (given && given !== name) throw newBadRequest(`the name of the object (${given}) does not match the name on the URL (${name})`);
  obj.metadata.name = name;
}

/** Being deleted, no finalizer left and no grace period pending: the object must go. */
export function isFinalized(core: StoreCore, obj: KubeObject): boolean {
  const meta = obj.metadata;
  return Boolean(meta.deletionTimestamp) && !(meta.deletionGracePeriodSeconds && meta.deletionGracePeriodSeconds > 0) && core.finalizersOf(obj).length === 0;
}

/** Deletes key if it is (still) finalized; races with other writers are settled by re-reading. */
export async function deleteFinalized(core: StoreCore, key: string, modRevision: number): Promise<void> {
  let rev = modRevision;
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    let reported: KeyValue | undefined;
    try {
      await core.storage.delete(key, rev);
      return;
    } catch (err) {
      if (!(err instanceof StorageError)) throw storageToStatus(err);
      if (err.code === "NotFound") return;
      if (err.code !== "Conflict") throw storageToStatus(err);
      reported = currentAfterConflict(err);
    }
    const kv = reported ?? (await getKey(core, key));
    if (!kv || !isFinalized(core, decode(core.def, kv))) return;
    rev = kv.modRevision;
  }
}
