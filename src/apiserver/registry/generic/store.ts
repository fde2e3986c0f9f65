// GenericStore: Kubernetes object semantics for one ResourceDefinition over a key-value Storage.
// Every object it returns is a fresh copy the caller may mutate.
import type { KubeList, KubeObject } from "../../../apis/meta/v1/types.ts";
import type { RequestContext, ResourceDefinition } from "../types.ts";
import { type GenericStoreOptions, makeCore, type StoreCore } from "./core.ts";
import { create } from "./create.ts";
import { del, deleteCollection } from "./delete.ts";
import type {
  DeleteResult,
  GetOptions,
  ListOptions,
  ObjectStore,
  PatchType,
  StoreDeleteOptions,
  WatchHandle,
  WatchOptions,
  WatchSink,
  WriteOptions,
  WriteResult,
} from "./interface.ts";
import { patch } from "./patch.ts";
import { get, list } from "./read.ts";
import { update } from "./update.ts";
import { watch } from "./watch.ts";

export type { GenericStoreOptions } from "./core.ts";

export class GenericStore implements ObjectStore {
  private readonly core: StoreCore;

  constructor(def: ResourceDefinition, options: GenericStoreOptions) {
    this.core = makeCore(def, options);
  }

  get definition(): ResourceDefinition {
    return this.core.def;
  }

  get(ctx: RequestContext, name: string, options?: GetOptions): Promise<KubeObject> {
    return get(this.core, ctx, name, options);
  }

  list(ctx: RequestContext, options?: ListOptions): Promise<KubeList> {
    return list(this.core, ctx, options);
  }

  watch(ctx: RequestContext, options: WatchOptions, sink: WatchSink): Promise<WatchHandle> {
    return watch(this.core, ctx, options, sink);
  }

  create(ctx: RequestContext, obj: KubeObject, options?: WriteOptions): Promise<WriteResult> {
    return create(this.core, ctx, obj, options);
  }

  update(ctx: RequestContext, name: string, obj: KubeObject, options?: WriteOptions, subresource = ""): Promise<WriteResult> {
    return update(this.core, ctx, name, obj, options, subresource);
  }

  patch(ctx: RequestContext, name: string, type: PatchType, patchDoc: unknown, options?: WriteOptions, subresource = ""): Promise<WriteResult> {
    return patch(this.core, ctx, name, type, patchDoc, options, subresource);
  }

  delete(ctx: RequestContext, name: string, options?: StoreDeleteOptions): Promise<DeleteResult> {
    return del(this.core, ctx, name, options);
  }

  deleteCollection(ctx: RequestContext, listOptions: ListOptions, options?: StoreDeleteOptions): Promise<KubeList> {
    return deleteCollection(this.core, ctx, listOptions, options);
  }
}
