// The write patterns every controller needs: create-or-patch, finalizers, status patches and
// retry on conflict. All are idempotent, so a reconciler may call them on every pass.
import type { KubeObject } from "../apis/meta/v1/types.ts";
import { isConflict, unlessNotFound } from "../apimachinery/errors.ts";

/** Kept here too, where controllers look for it beside the other write helpers. */
export { unlessNotFound };
import { type Clock, realClock } from "../utils/clock.ts";
import type { Client, WriteOptions } from "./client.ts";
import { createMergePatch, mergeFrom } from "./patch.ts";
import { type ObjectKey, type ResourceType, apiVersionOf, keyOf } from "./resource.ts";

export interface RetryBackoff {
  /** Attempts in total (client-go's DefaultRetry: 5). */
  steps: number;
  /** Pause before the second attempt, in ms (DefaultRetry: 10). */
  durationMs: number;
  /** Each pause is the previous one times factor (DefaultRetry: 1). */
  factor: number;
  /** Up to this fraction is added at random to each pause (DefaultRetry: 0.1). */
  jitter: number;
}

export const defaultRetry: RetryBackoff = { steps: 5, durationMs: 10, factor: 1, jitter: 0.1 };

/** Runs fn again while it fails with a matching error (by default 409 Conflict), pausing between attempts. */
export async function retryOnConflict<R>(
  fn: (attempt: number) => Promise<R>,
  opts: { backoff?: RetryBackoff; clock?: Clock; retriable?: (err: unknown) => boolean } = {},
): Promise<R> {
  const b = opts.backoff ?? defaultRetry;
  const clock = opts.clock ?? realClock;
  const retriable = opts.retriable ?? isConflict;
  let pause = b.durationMs;
  for (let attempt = 0; ; attempt++) {
    try {
      return await fn(attempt);
    } catch (err) {
      if (attempt + 1 >= b.steps || !retriable(err)) throw err;
    }
    await clock.sleep(pause * (1 + Math.random() * b.jitter));
    pause *= b.factor;
  }
}

export type OperationResult = "unchanged" | "created" | "updated" | "updatedStatus" | "updatedStatusOnly";

function without<T extends KubeObject>(obj: T, field: string): Record<string, unknown> {
  const copy: Record<string, unknown> = { ...obj };
  delete copy[field];
  return copy;
}

/**
 * Reads the object; if it is missing, builds `{apiVersion, kind, metadata: key}`, lets mutate
 * fill it in and creates it. Otherwise lets mutate change a copy and sends merge patches for what
 * changed: one for the object, one for `status` (status subresource). mutate must not change the
 * key. (Removing `status` entirely is not expressed; set the fields you mean to clear instead.)
 */
export async function createOrPatch<T extends KubeObject>(
  client: Client,
  type: ResourceType<T>,
  key: ObjectKey,
  mutate: (obj: T) => void | Promise<void>,
  opts?: WriteOptions,
): Promise<{ result: OperationResult; object: T }> {
  const current = await unlessNotFound(client.get(type, key, opts));
  if (!current) {
    const fresh = { apiVersion: apiVersionOf(type), kind: type.kind, metadata: { ...key } } as T;
    await mutate(fresh);
    assertSameKey(key, fresh);
    return { result: "created", object: await client.create(type, fresh, opts) };
  }
  const desired = structuredClone(current);
  await mutate(desired);
  assertSameKey(key, desired);
  let object = current;
  const main = createMergePatch(without(current, "status"), without(desired, "status"));
  if (main !== undefined) object = await client.patch(type, key, { type: "merge", body: main }, opts);
  const status = createMergePatch(current.status, desired.status);
  if (status !== undefined) object = await client.patchStatus(type, key, { type: "merge", body: { status } }, opts);
  const result: OperationResult =
    main !== undefined ? (status !== undefined ? "updatedStatus" : "updated") : status !== undefined ? "updatedStatusOnly" : "unchanged";
  return { result, object };
}

function assertSameKey(key: ObjectKey, obj: KubeObject): void {
  if (obj.metadata.name !== key.name || (key.namespace ?? "") !== (obj.metadata.namespace ?? "")) {
    throw new Error(`createOrPatch: mutate changed the object's key from ${key.namespace ?? ""}/${key.name}`);
  }
}

export function hasFinalizer(obj: KubeObject, finalizer: string): boolean {
  return obj.metadata.finalizers?.includes(finalizer) ?? false;
}

/**
 * Changes metadata.finalizers with an optimistic lock (the patch carries resourceVersion), so a
 * concurrent writer's finalizer is never dropped; on conflict it re-reads and tries again.
 */
async function changeFinalizers<T extends KubeObject>(
  client: Client,
  type: ResourceType<T>,
  obj: T,
  change: (finalizers: string[]) => string[] | undefined,
  opts?: WriteOptions,
): Promise<T | undefined> {
  let current: T = obj;
  return retryOnConflict(async (attempt) => {
    if (attempt > 0) current = await client.get(type, keyOf(obj), opts);
    const next = change(current.metadata.finalizers ?? []);
    if (next === undefined) return current;
    const after = { ...current, metadata: { ...current.metadata, finalizers: next } };
    const patch = mergeFrom(current, after, { optimisticLock: true });
    return patch ? client.patch(type, keyOf(obj), patch, opts) : current;
  });
}

/** Adds the finalizer unless present; returns the object as the server has it afterwards. */
export async function addFinalizer<T extends KubeObject>(client: Client, type: ResourceType<T>, obj: T, finalizer: string, opts?: WriteOptions): Promise<T> {
  const out = await changeFinalizers(client, type, obj, (f) => (f.includes(finalizer) ? undefined : [...f, finalizer]), opts);
  return out ?? obj;
}

/**
 * Removes the finalizer if present. Returns undefined when the object is gone (removing the last
 * finalizer of an object being deleted lets the server delete it; a missing object is not an error).
 */
export async function removeFinalizer<T extends KubeObject>(
  client: Client,
  type: ResourceType<T>,
  obj: T,
  finalizer: string,
  opts?: WriteOptions,
): Promise<T | undefined> {
  return unlessNotFound(changeFinalizers(client, type, obj, (f) => (f.includes(finalizer) ? f.filter((x) => x !== finalizer) : undefined), opts));
}

/**
 * Patches only `status` from `before` to `after` (merge patch on the status subresource).
 * Returns `before` unchanged when the status did not change.
 */
export async function patchStatus<T extends KubeObject>(client: Client, type: ResourceType<T>, before: T, after: T, opts?: WriteOptions): Promise<T> {
  const diff = createMergePatch(before.status, after.status);
  if (diff === undefined) return before;
  return client.patchStatus(type, keyOf(before), { type: "merge", body: { status: diff } }, opts);
}
