// A typed client for any kind, built-in or custom: one method per verb, typed by the
// ResourceType descriptor passed in. Failures are StatusErrors (isNotFound, isConflict, ...).
import { KubeConfig } from "@kubernetes/client-node";
import type { DeleteOptions, KubeList, KubeObject, Status, WatchEvent } from "../apis/meta/v1/types.ts";
import { type ObjectKey, type ResourceType, apiVersionOf, resourcePath } from "./resource.ts";
import { KubeConfigTransport, type QueryValue, type Transport } from "./transport.ts";
import { watchStream } from "./watch.ts";

export type PatchType = "merge" | "json" | "strategic" | "apply";

export const patchContentTypes: Record<PatchType, string> = {
  merge: "application/merge-patch+json",
  json: "application/json-patch+json",
  strategic: "application/strategic-merge-patch+json",
  apply: "application/apply-patch+yaml",
};

/** A patch body and how the server should apply it. Apply bodies are sent as JSON (valid YAML). */
export interface Patch {
  type: PatchType;
  body: unknown;
}

export interface RequestOptions {
  signal?: AbortSignal;
  timeoutMs?: number;
}

export interface ListOptions extends RequestOptions {
  /** Omit (or "") for all namespaces of a namespaced kind. */
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  limit?: number;
  continue?: string;
  resourceVersion?: string;
  resourceVersionMatch?: "Exact" | "NotOlderThan";
}

export interface WriteOptions extends RequestOptions {
  dryRun?: boolean;
  /** Defaults to the client's fieldManager. */
  fieldManager?: string;
  /** Server-side apply only: take ownership of conflicting fields. */
  force?: boolean;
}

export interface WatchOptions {
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  resourceVersion?: string;
  allowWatchBookmarks?: boolean;
  timeoutSeconds?: number;
}

export interface ClientOptions {
  fieldManager?: string;
  userAgent?: string;
}

function withTypeMeta<T extends KubeObject>(type: ResourceType<T>, obj: T): T {
  if (obj.apiVersion && obj.kind) return obj;
  return { ...obj, apiVersion: obj.apiVersion ?? apiVersionOf(type), kind: obj.kind ?? type.kind };
}

function namespaceFor(type: ResourceType, ns: string | undefined, what: string): string | undefined {
  if (!type.namespaced) return undefined;
  if (!ns) throw new Error(`${what} ${type.plural}: a namespaced kind needs a namespace`);
  return ns;
}

export class Client {
  readonly transport: Transport;
  readonly fieldManager: string | undefined;

  constructor(source: KubeConfig | Transport, opts: ClientOptions = {}) {
    this.transport = source instanceof KubeConfig ? new KubeConfigTransport(source, opts.userAgent) : source;
    this.fieldManager = opts.fieldManager;
  }

  static fromKubeconfigFile(path: string, opts?: ClientOptions): Client {
    const kc = new KubeConfig();
    kc.loadFromFile(path);
    return new Client(kc, opts);
  }

  private writeQuery(opts: WriteOptions | undefined, patchType?: PatchType): Record<string, QueryValue> {
    const q: Record<string, QueryValue> = {
      fieldManager: opts?.fieldManager ?? this.fieldManager,
      dryRun: opts?.dryRun ? "All" : undefined,
    };
    if (patchType === "apply" && opts?.force) q.force = true;
    return q;
  }

  async get<T extends KubeObject>(type: ResourceType<T>, key: ObjectKey, opts?: RequestOptions): Promise<T> {
    const ns = namespaceFor(type, key.namespace, "get");
    return this.transport.request<T>({ method: "GET", path: resourcePath(type, ns, key.name), signal: opts?.signal, timeoutMs: opts?.timeoutMs });
  }

  /** One list request (one page when `limit` is set). Items get apiVersion and kind filled in. */
  async list<T extends KubeObject>(type: ResourceType<T>, opts: ListOptions = {}): Promise<KubeList<T>> {
    const list = await this.transport.request<KubeList<T>>({
      method: "GET",
      path: resourcePath(type, opts.namespace || undefined),
      query: {
        labelSelector: opts.labelSelector,
        fieldSelector: opts.fieldSelector,
        limit: opts.limit,
        continue: opts.continue,
        resourceVersion: opts.resourceVersion,
        resourceVersionMatch: opts.resourceVersionMatch,
      },
      signal: opts.signal,
      timeoutMs: opts.timeoutMs,
    });
    list.items = (list.items ?? []).map((o) => withTypeMeta(type, o));
    return list;
  }

  /** Lists every page (pageSize items per request) and returns one list at the first page's resourceVersion. */
  async listAll<T extends KubeObject>(type: ResourceType<T>, opts: Omit<ListOptions, "limit" | "continue"> & { pageSize?: number } = {}): Promise<KubeList<T>> {
    const { pageSize = 500, ...rest } = opts;
    const first = await this.list(type, { ...rest, limit: pageSize });
    const items = first.items;
    let next = first.metadata?.continue;
    while (next) {
      const page = await this.list(type, { ...rest, limit: pageSize, continue: next, resourceVersion: undefined });
      for (const o of page.items) items.push(o);
      next = page.metadata?.continue;
    }
    return { ...first, metadata: { resourceVersion: first.metadata?.resourceVersion }, items };
  }

  async create<T extends KubeObject>(type: ResourceType<T>, obj: T, opts?: WriteOptions): Promise<T> {
    const ns = namespaceFor(type, obj.metadata.namespace, "create");
    return this.transport.request<T>({
      method: "POST",
      path: resourcePath(type, ns),
      query: this.writeQuery(opts),
      body: withTypeMeta(type, obj),
      signal: opts?.signal,
      timeoutMs: opts?.timeoutMs,
    });
  }

  /** PUT of the whole object; conflicts (409) when metadata.resourceVersion is stale. */
  async update<T extends KubeObject>(type: ResourceType<T>, obj: T, opts?: WriteOptions): Promise<T> {
    return this.put(type, obj, undefined, opts);
  }

  /** PUT to the status subresource: only `status` changes. */
  async updateStatus<T extends KubeObject>(type: ResourceType<T>, obj: T, opts?: WriteOptions): Promise<T> {
    return this.put(type, obj, "status", opts);
  }

  private async put<T extends KubeObject>(type: ResourceType<T>, obj: T, sub: string | undefined, opts?: WriteOptions): Promise<T> {
    const ns = namespaceFor(type, obj.metadata.namespace, "update");
    return this.transport.request<T>({
      method: "PUT",
      path: resourcePath(type, ns, obj.metadata.name ?? "", sub),
      query: this.writeQuery(opts),
      body: withTypeMeta(type, obj),
      signal: opts?.signal,
      timeoutMs: opts?.timeoutMs,
    });
  }

  async patch<T extends KubeObject>(type: ResourceType<T>, key: ObjectKey, patch: Patch, opts?: WriteOptions): Promise<T> {
    return this.sendPatch(type, key, patch, undefined, opts);
  }

  async patchStatus<T extends KubeObject>(type: ResourceType<T>, key: ObjectKey, patch: Patch, opts?: WriteOptions): Promise<T> {
    return this.sendPatch(type, key, patch, "status", opts);
  }

  private async sendPatch<T extends KubeObject>(type: ResourceType<T>, key: ObjectKey, patch: Patch, sub: string | undefined, opts?: WriteOptions): Promise<T> {
    const ns = namespaceFor(type, key.namespace, "patch");
    return this.transport.request<T>({
      method: "PATCH",
      path: resourcePath(type, ns, key.name, sub),
      query: this.writeQuery(opts, patch.type),
      body: patch.body,
      contentType: patchContentTypes[patch.type],
      signal: opts?.signal,
      timeoutMs: opts?.timeoutMs,
    });
  }

  /** DELETE; answers the deleted object, the object now being finalized, or a Success Status. */
  async delete<T extends KubeObject>(type: ResourceType<T>, key: ObjectKey, opts?: Omit<DeleteOptions, "dryRun"> & WriteOptions): Promise<T | Status> {
    const ns = namespaceFor(type, key.namespace, "delete");
    const body: DeleteOptions = { apiVersion: "v1", kind: "DeleteOptions" };
    if (opts?.gracePeriodSeconds !== undefined) body.gracePeriodSeconds = opts.gracePeriodSeconds;
    if (opts?.preconditions) body.preconditions = opts.preconditions;
    if (opts?.propagationPolicy) body.propagationPolicy = opts.propagationPolicy;
    return this.transport.request<T | Status>({
      method: "DELETE",
      path: resourcePath(type, ns, key.name),
      query: { dryRun: opts?.dryRun ? "All" : undefined },
      body,
      signal: opts?.signal,
      timeoutMs: opts?.timeoutMs,
    });
  }

  /** Runs one watch stream; see watchStream for how it ends. */
  watch<T extends KubeObject>(type: ResourceType<T>, opts: WatchOptions, onEvent: (ev: WatchEvent<T>) => void, signal: AbortSignal): Promise<void> {
    const query: Record<string, QueryValue> = {
      labelSelector: opts.labelSelector,
      fieldSelector: opts.fieldSelector,
      resourceVersion: opts.resourceVersion,
      allowWatchBookmarks: opts.allowWatchBookmarks ? true : undefined,
      timeoutSeconds: opts.timeoutSeconds,
    };
    return watchStream<T>(this.transport, resourcePath(type, opts.namespace || undefined), query, onEvent, signal);
  }

  close(): void {
    this.transport.close();
  }
}
