// Small create-or-update and delete helpers for the objects of one Terminal: labels and annotations
// merged (the controller's keys win), NotFound on delete is success.
import type { KubeObject } from "../../../apis/meta/v1/types.ts";
import { unlessNotFound } from "../../../apimachinery/errors.ts";
import type { Client } from "../../../client/client.ts";
import { createOrPatch } from "../../../client/helpers.ts";
import type { ObjectKey, ResourceType } from "../../../client/resource.ts";

export interface Stamp {
  labels: Record<string, string>;
  annotations: Record<string, string>;
}

export async function ensure<T extends KubeObject>(client: Client, type: ResourceType<T>, key: ObjectKey, stamp: Stamp, fill: (o: T) => void, signal?: AbortSignal): Promise<T> {
  const { object } = await createOrPatch(client, type, key, (o) => {
    o.metadata.labels = { ...(o.metadata.labels ?? {}), ...stamp.labels };
    o.metadata.annotations = { ...(o.metadata.annotations ?? {}), ...stamp.annotations };
    fill(o);
  }, { signal });
  return object;
}

export async function remove(client: Client, type: ResourceType, key: ObjectKey, signal?: AbortSignal): Promise<void> {
  await unlessNotFound(client.delete(type, key, { signal }));
}
