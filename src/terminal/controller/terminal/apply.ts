// Small create-or-update and delete helpers for the objects of one Terminal: labels and annotations
// merged (the controller's keys win), NotFound on delete is success.
import type { KubeObject } from "../../../apis/meta/v1/types.ts";
import { isAlreadyExists, unlessNotFound } from "../../../apimachinery/errors.ts";
import type { Client } from "../../../client/client.ts";
import { createOrPatch } from "../../../client/helpers.ts";
import type { ObjectKey, ResourceType } from "../../../client/resource.ts";

export interface Stamp {
  labels: Record<string, string>;
  annotations: Record<string, string>;
}

export interface EnsureOptions {
  signal?: AbortSignal;
  /**
   * Try the create first (a Terminal's first reconcile, when nothing of it exists yet: one request instead
   * of a read and a create); AlreadyExists falls back to read and patch.
   */
  createFirst?: boolean;
}

export async function ensure<T extends KubeObject>(client: Client, type: ResourceType<T>, key: ObjectKey, stamp: Stamp, fill: (o: T) => void, o: EnsureOptions = {}): Promise<T> {
  const mutate = (obj: T): void => {
    obj.metadata.labels = { ...(obj.metadata.labels ?? {}), ...stamp.labels };
    obj.metadata.annotations = { ...(obj.metadata.annotations ?? {}), ...stamp.annotations };
    fill(obj);
  };
  if (o.createFirst) {
    const fresh = { metadata: { ...key } } as T;
    mutate(fresh);
    try {
      return await client.create(type, fresh, { signal: o.signal });
    } catch (err) {
      if (!isAlreadyExists(err)) throw err;
    }
  }
  const { object } = await createOrPatch(client, type, key, mutate, { signal: o.signal });
  return object;
}

export async function remove(client: Client, type: ResourceType, key: ObjectKey, signal?: AbortSignal): Promise<void> {
  await unlessNotFound(client.delete(type, key, { signal }));
}
