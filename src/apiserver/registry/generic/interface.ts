// The object-level store contract: Kubernetes semantics (resourceVersion, generation,
// generateName, finalizers, status subresource, selectors, pagination, watch) over a Storage.
// REST handlers call it for client requests; in-process components use InternalClient.
import type { DeleteOptions, KubeList, KubeObject, WatchEvent } from "../../../apis/meta/v1/types.ts";
import type { StatusError } from "../../../apimachinery/errors.ts";
import type { RequestContext } from "../types.ts";

export type PatchType = "json" | "merge" | "strategic" | "apply";

export interface GetOptions {
  resourceVersion?: string;
  /**
   * The caller never mutates the result: it may be the object other readers of the same stored
   * version got (decoded once per version, codec.ts decodeShared), not a fresh copy.
   */
  readOnly?: boolean;
  /**
   * In-process callers only: the watch cache may answer from what it has seen, without a round
   * trip to the storage for its current revision (storage GetOptions).
   */
  allowStale?: boolean;
}

export interface ListOptions {
  labelSelector?: string;
  fieldSelector?: string;
  resourceVersion?: string;
  resourceVersionMatch?: "Exact" | "NotOlderThan";
  limit?: number;
  continue?: string;
}

export interface WatchOptions extends ListOptions {
  allowWatchBookmarks?: boolean;
  sendInitialEvents?: boolean;
}

export interface WriteOptions {
  dryRun?: boolean;
  fieldValidation?: "Ignore" | "Warn" | "Strict";
  fieldManager?: string;
  /** Server-side apply only. */
  force?: boolean;
  /**
   * The caller hands the body over and never reads it again (the REST layer's freshly decoded
   * request bodies): create and update may then change it in place instead of copying it first.
   */
  bodyOwned?: boolean;
}

export interface WriteResult {
  object: KubeObject;
  /** Warnings for `Warning: 299 - "<text>"` headers (e.g. unknown fields with fieldValidation=Warn). */
  warnings: string[];
  /** PUT/apply created the object (201). */
  created?: boolean;
}

export interface DeleteResult {
  object: KubeObject;
  /** false: the object still exists (finalizers) and was only marked for deletion. */
  deleted: boolean;
}

export interface WatchSink {
  /**
   * The sink only reads event objects (e.g. it serializes them): the store may then hand every
   * watcher of a change the same object, decoded once, instead of a fresh copy per watcher.
   */
  readonly shared?: boolean;
  /** Events in order. A sink returning false asks the store to stop (e.g. the client is too slow). */
  onEvent(event: WatchEvent): boolean | void;
  /** The watch ended: err set when it ended with an error (e.g. 410 Expired) that should be sent as an ERROR event. */
  onEnd(err?: StatusError): void;
}

export interface WatchHandle {
  stop(): void;
}

/** DeleteOptions as sent by clients; dryRun may be the wire form (["All"]) or already a boolean. */
export type StoreDeleteOptions = Omit<DeleteOptions, "dryRun"> & { dryRun?: boolean | string[] };

export interface ObjectStore {
  get(ctx: RequestContext, name: string, options?: GetOptions): Promise<KubeObject>;
  list(ctx: RequestContext, options?: ListOptions): Promise<KubeList>;
  watch(ctx: RequestContext, options: WatchOptions, sink: WatchSink): Promise<WatchHandle>;
  create(ctx: RequestContext, obj: KubeObject, options?: WriteOptions): Promise<WriteResult>;
  /** subresource "" or "status". */
  update(ctx: RequestContext, name: string, obj: KubeObject, options?: WriteOptions, subresource?: string): Promise<WriteResult>;
  patch(
    ctx: RequestContext,
    name: string,
    type: PatchType,
    patch: unknown,
    options?: WriteOptions,
    subresource?: string,
  ): Promise<WriteResult>;
  delete(ctx: RequestContext, name: string, options?: StoreDeleteOptions): Promise<DeleteResult>;
  deleteCollection(ctx: RequestContext, listOptions: ListOptions, options?: StoreDeleteOptions): Promise<KubeList>;
}
