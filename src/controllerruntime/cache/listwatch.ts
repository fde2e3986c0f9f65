// The ListerWatcher an informer uses against a real API server, through our Client. Selectors
// apply to both list and watch (client-node applies a label selector to the watch only).
import type { KubeObject } from "../../apis/meta/v1/types.ts";
import type { Client } from "../../client/client.ts";
import type { ResourceType } from "../../client/resource.ts";
import type { ListerWatcher } from "./informer.ts";

export interface ListWatchOptions {
  /** Restrict a namespaced kind to one namespace; omit for all namespaces. */
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  /** Items per list page; default 500. */
  pageSize?: number;
  /** Server-side watch timeout; default a random 300-600 s as client-go's reflector sends. */
  watchTimeoutSeconds?: () => number;
}

export function clientListerWatcher<T extends KubeObject>(client: Client, type: ResourceType<T>, opts: ListWatchOptions = {}): ListerWatcher<T> {
  const selectors = { namespace: opts.namespace, labelSelector: opts.labelSelector, fieldSelector: opts.fieldSelector };
  const timeout = opts.watchTimeoutSeconds ?? (() => 300 + Math.floor(Math.random() * 300));
  return {
    list: (signal) => client.listAll(type, { ...selectors, pageSize: opts.pageSize ?? 500, signal }),
    watch: (resourceVersion, onEvent, signal) =>
      client.watch(type, { ...selectors, resourceVersion, allowWatchBookmarks: true, timeoutSeconds: timeout() }, onEvent, signal),
  };
}
