// In-process access to the server's own objects, for admission plugins, access reviews,
// authorizers and the server's own controllers (namespace deletion, CRDs, RBAC aggregation).
// Calls run as the system (no authorization), through the same stores and admission as REST.
import type { KubeList, KubeObject, WatchEvent } from "../../apis/meta/v1/types.ts";
import type { StatusError } from "../../apimachinery/errors.ts";
import type { ListOptions, PatchType, StoreDeleteOptions, WatchHandle } from "./generic/interface.ts";
import type { GroupResource } from "./types.ts";

export interface InternalClient {
  /**
   * undefined when not found. readOnly: the caller never mutates the result; allowStale: the watch
   * cache may answer without catching up first (see GetOptions).
   */
  get(gr: GroupResource, namespace: string | undefined, name: string, options?: { readOnly?: boolean; allowStale?: boolean }): Promise<KubeObject | undefined>;
  list(gr: GroupResource, namespace: string | undefined, options?: ListOptions): Promise<KubeList>;
  /**
   * List then watch from the list's resourceVersion: onEvent gets ADDED for every existing object first.
   * readOnly: onEvent never mutates the objects, so they may be shared with other watchers.
   */
  watch(
    gr: GroupResource,
    namespace: string | undefined,
    onEvent: (event: WatchEvent) => void,
    onError: (err: StatusError) => void,
    options?: ListOptions & { resourceVersion?: string; readOnly?: boolean },
  ): Promise<WatchHandle>;
  create(gr: GroupResource, obj: KubeObject): Promise<KubeObject>;
  update(gr: GroupResource, obj: KubeObject, subresource?: string): Promise<KubeObject>;
  patch(gr: GroupResource, namespace: string | undefined, name: string, type: PatchType, patch: unknown, subresource?: string): Promise<KubeObject>;
  /** Resolves when the delete was accepted (the object may still exist with finalizers). NotFound is not an error. */
  delete(gr: GroupResource, namespace: string | undefined, name: string, options?: StoreDeleteOptions): Promise<void>;
}
