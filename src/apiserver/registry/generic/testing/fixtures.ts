// Test support: resource definitions, contexts and a store factory for GenericStore tests.
import type { KubeObject } from "../../../../apis/meta/v1/types.ts";
import type { FieldError } from "../../../../apimachinery/field/errors.ts";
import { FakeClock } from "../../../../utils/clock.ts";
import type { Admission } from "../../../admission/chain.ts";
import { compileSchema } from "../../../schema/compile.ts";
import { kindSchema } from "../../../schema/objectmeta.ts";
import type { Storage } from "../../../storage/interface.ts";
import { SQLiteStorage } from "../../../storage/sqlite/sqlite.ts";
import type { InternalClient } from "../../client.ts";
import type { RequestContext, ResourceDefinition } from "../../types.ts";
import { GenericStore, type GenericStoreOptions } from "../store.ts";

/** A CRD-like namespaced kind: status subresource, no SMP, no unconditional updates, field selector spec.color. */
export function widgetDefinition(overrides: Partial<ResourceDefinition> = {}): ResourceDefinition {
  return {
    group: "demo.io",
    version: "v1",
    kind: "Widget",
    listKind: "WidgetList",
    plural: "widgets",
    singular: "widget",
    namespaced: true,
    hasStatus: true,
    strategicMergePatch: false,
    schema: kindSchema({
      properties: {
        spec: {
          type: "object",
          properties: {
            replicas: { type: "integer", minimum: 0 },
            color: { type: "string", enum: ["red", "blue", "green"] },
            size: { type: "string", default: "M" },
            items: { type: "array", items: { type: "object", properties: { name: { type: "string" }, value: { type: "string" } } } },
          },
        },
        status: { type: "object", properties: { phase: { type: "string" }, ready: { type: "boolean" } } },
      },
    }),
    strategy: {
      allowUnconditionalUpdate: false,
      validate: (_ctx, obj) => validateWidget(obj),
    },
    fieldSelectors: { "spec.color": (obj) => (obj.spec as { color?: string } | undefined)?.color },
    ...overrides,
  };
}

function validateWidget(obj: KubeObject): FieldError[] {
  const replicas = (obj.spec as { replicas?: number } | undefined)?.replicas;
  return replicas === 13 ? [{ type: "FieldValueInvalid", field: "spec.replicas", value: 13, detail: "unlucky" }] : [];
}

/** A built-in-like cluster-scoped kind without status: SMP, unconditional updates allowed. */
export function gadgetDefinition(overrides: Partial<ResourceDefinition> = {}): ResourceDefinition {
  return {
    group: "",
    version: "v1",
    kind: "Gadget",
    listKind: "GadgetList",
    plural: "gadgets",
    singular: "gadget",
    namespaced: false,
    hasStatus: false,
    strategicMergePatch: true,
    schema: kindSchema({
      properties: {
        data: { type: "object", additionalProperties: { type: "string" } },
        spec: {
          type: "object",
          properties: {
            ports: {
              type: "array",
              "x-kubernetes-patch-strategy": "merge",
              "x-kubernetes-patch-merge-key": "name",
              items: { type: "object", properties: { name: { type: "string" }, port: { type: "integer" } } },
            },
          },
        },
      },
    }),
    strategy: {},
    ...overrides,
  };
}

export const testUser = { username: "alice", groups: ["system:authenticated"] };

export function ctxFor(clock: FakeClock, namespace?: string): RequestContext {
  const ctx: RequestContext = { user: testUser, clock, dryRun: false };
  if (namespace !== undefined) ctx.namespace = namespace;
  return ctx;
}

export interface TestStore {
  store: GenericStore;
  storage: Storage;
  clock: FakeClock;
  ctx: (namespace?: string) => RequestContext;
}

let storageFactory: () => Promise<Storage> = async () => new SQLiteStorage({ path: ":memory:" });

/** Runs the store tests of this process over another storage (e.g. a Cacher over SQLite). */
export function useStorageFactory(factory: () => Promise<Storage>): void {
  storageFactory = factory;
}

export async function newTestStore(
  def: ResourceDefinition,
  opts: { storage?: Storage; clock?: FakeClock; admission?: Admission; client?: () => InternalClient } & Partial<GenericStoreOptions> = {},
): Promise<TestStore> {
  const storage = opts.storage ?? (await storageFactory());
  const clock = opts.clock ?? new FakeClock(Date.UTC(2026, 0, 1, 12, 0, 0, 500));
  const store = new GenericStore(def, { ...opts, storage, clock, schema: compileSchema(def.schema) });
  return { store, storage, clock, ctx: (ns) => ctxFor(clock, ns) };
}

export function widget(name: string, spec: Record<string, unknown> = {}, meta: Record<string, unknown> = {}): KubeObject {
  return { apiVersion: "demo.io/v1", kind: "Widget", metadata: { name, ...meta }, spec };
}
