// LocalClient: the InternalClient of the server itself. Calls run as system:apiserver (group
// system:masters), go through the same ObjectStores (and so the same admission) as REST, and
// resolve a GroupResource to its preferred (first registered) version.
import type { KubeList, KubeObject, WatchEvent } from "../../apis/meta/v1/types.ts";
import { newPathNotFound, StatusError, unlessNotFound } from "../../apimachinery/errors.ts";
import type { Clock } from "../../utils/clock.ts";
import { GROUP_AUTHENTICATED, GROUP_MASTERS, type UserInfo } from "../authentication/types.ts";
import type { InternalClient } from "./client.ts";
import type { ListOptions, ObjectStore, PatchType, StoreDeleteOptions, WatchHandle } from "./generic/interface.ts";
import type { ResourceRegistry } from "./registry.ts";
import type { GroupResource, RequestContext, ResourceDefinition } from "./types.ts";

export const SYSTEM_APISERVER_USER: UserInfo = { username: "system:apiserver", groups: [GROUP_MASTERS, GROUP_AUTHENTICATED] };

export class LocalClient implements InternalClient {
  constructor(
    private readonly registry: ResourceRegistry,
    private readonly storeFor: (def: ResourceDefinition) => ObjectStore,
    private readonly clock: Clock,
    private readonly user: UserInfo = SYSTEM_APISERVER_USER,
  ) {}

  /** The preferred (first registered) version of gr; 404 when the server does not serve it. */
  resolve(gr: GroupResource): ResourceDefinition {
    const def = this.registry.anyVersion(gr.group, gr.resource);
    if (!def) {
      const name = gr.group ? `${gr.resource}.${gr.group}` : gr.resource;
      throw new StatusError(404, "NotFound", `the server doesn't have a resource type "${name}"`, { group: gr.group, kind: gr.resource });
    }
    return def;
  }

  private ctx(namespace: string | undefined): RequestContext {
    const ctx: RequestContext = { user: this.user, clock: this.clock, dryRun: false };
    if (namespace) ctx.namespace = namespace;
    return ctx;
  }

  private store(gr: GroupResource): ObjectStore {
    return this.storeFor(this.resolve(gr));
  }

  async get(gr: GroupResource, namespace: string | undefined, name: string, options?: { readOnly?: boolean; allowStale?: boolean }): Promise<KubeObject | undefined> {
    const store = this.store(gr);
    return unlessNotFound(store.get(this.ctx(namespace), name, { readOnly: options?.readOnly, allowStale: options?.allowStale }));
  }

  async list(gr: GroupResource, namespace: string | undefined, options?: ListOptions): Promise<KubeList> {
    return this.store(gr).list(this.ctx(namespace), options);
  }

  async watch(
    gr: GroupResource,
    namespace: string | undefined,
    onEvent: (event: WatchEvent) => void,
    onError: (err: StatusError) => void,
    options: ListOptions & { resourceVersion?: string; readOnly?: boolean } = {},
  ): Promise<WatchHandle> {
    // Without a resourceVersion the store's watch is exactly list + watch from the list's RV:
    // ADDED for every existing object, then the changes.
    const { limit: _limit, continue: _continue, readOnly, ...watchOptions } = options;
    return this.store(gr).watch(this.ctx(namespace), watchOptions, {
      shared: readOnly === true,
      onEvent: (event) => {
        onEvent(event);
      },
      onEnd: (err) => onError(err ?? new StatusError(500, "InternalError", "the watch ended")),
    });
  }

  async create(gr: GroupResource, obj: KubeObject): Promise<KubeObject> {
    return (await this.store(gr).create(this.ctx(obj.metadata.namespace), obj)).object;
  }

  async update(gr: GroupResource, obj: KubeObject, subresource = ""): Promise<KubeObject> {
    const def = this.resolve(gr);
    const ctx = this.ctx(obj.metadata.namespace);
    const name = obj.metadata.name ?? "";
    if (subresource === "" || subresource === "status") {
      return (await this.storeFor(def).update(ctx, name, obj, {}, subresource)).object;
    }
    const handler = def.subresources?.[subresource];
    if (!handler?.handle) throw newPathNotFound();
    const req = { ctx, verb: "update", name, query: new URLSearchParams(), body: obj };
    const res = await handler.handle(obj.metadata.namespace ? { ...req, namespace: obj.metadata.namespace } : req);
    return res.body as KubeObject;
  }

  async patch(
    gr: GroupResource,
    namespace: string | undefined,
    name: string,
    type: PatchType,
    patch: unknown,
    subresource = "",
  ): Promise<KubeObject> {
    return (await this.store(gr).patch(this.ctx(namespace), name, type, patch, {}, subresource)).object;
  }

  async delete(gr: GroupResource, namespace: string | undefined, name: string, options?: StoreDeleteOptions): Promise<void> {
    const store = this.store(gr);
    await unlessNotFound(store.delete(this.ctx(namespace), name, options));
  }
}
