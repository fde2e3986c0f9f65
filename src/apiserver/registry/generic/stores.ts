// One GenericStore per ResourceDefinition over shared storage, clock and admission: the
// `storeFor` that REST handlers and the LocalClient use. Stores are cached per definition object,
// so a CRD definition that is replaced gets a new store (with its new schema).
import type { Clock } from "../../../utils/clock.ts";
import type { Admission } from "../../admission/chain.ts";
import type { CompiledSchema } from "../../schema/interface.ts";
import type { Storage } from "../../storage/interface.ts";
import type { JSONSchemaProps } from "../../../apis/apiextensions/v1/types.ts";
import type { InternalClient } from "../client.ts";
import type { ResourceDefinition } from "../types.ts";
import type { ObjectStore } from "./interface.ts";
import { GenericStore } from "./store.ts";

export interface StoreSetOptions {
  storage: Storage;
  clock: Clock;
  admission?: Admission;
  /** compileSchema from src/apiserver/schema/compile.ts. */
  compile: (schema: JSONSchemaProps) => CompiledSchema;
  client?: () => InternalClient;
  bookmarkIntervalMs?: number;
}

export class StoreSet {
  private readonly stores = new WeakMap<ResourceDefinition, ObjectStore>();

  constructor(private readonly opts: StoreSetOptions) {}

  /** The (cached) store of def. */
  storeFor = (def: ResourceDefinition): ObjectStore => {
    let store = this.stores.get(def);
    if (!store) {
      store = this.create(def);
      this.stores.set(def, store);
    }
    return store;
  };

  /** A new, uncached store (e.g. for a subresource with its own strategy over the same storage). */
  create = (def: ResourceDefinition): ObjectStore => {
    const { compile, ...rest } = this.opts;
    return new GenericStore(def, { ...rest, schema: compile(def.schema) });
  };
}
