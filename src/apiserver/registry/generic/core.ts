// The pieces every GenericStore operation needs, resolved once per store.
import type { KubeObject } from "../../../apis/meta/v1/types.ts";
import { newInternalError } from "../../../apimachinery/errors.ts";
import { generateName as randomName } from "../../../apimachinery/names/generate.ts";
import type { Clock } from "../../../utils/clock.ts";
import { type Admission, noAdmission } from "../../admission/chain.ts";
import type { AdmissionAttributes, Operation } from "../../admission/types.ts";
import type { CompiledSchema } from "../../schema/interface.ts";
import type { Storage } from "../../storage/interface.ts";
import type { InternalClient } from "../client.ts";
import type { GroupResource, RequestContext, ResourceDefinition } from "../types.ts";

export interface GenericStoreOptions {
  storage: Storage;
  clock: Clock;
  /** Admission for CREATE/UPDATE/DELETE; default: none. */
  admission?: Admission;
  /** The definition's compiled schema (compileSchema(def.schema)). */
  schema: CompiledSchema;
  /** The in-process client admission plugins get; lazy because the client itself needs the stores. */
  client?: () => InternalClient;
  /**
   * Finalizers that keep a deleting object alive. Default: metadata.finalizers, plus spec.finalizers
   * for core/v1 namespaces (removed through namespaces/finalize).
   */
  finalizersOf?: (obj: KubeObject) => string[];
  /** Interval of BOOKMARK events for watches with allowWatchBookmarks (default 30 s of the clock). */
  bookmarkIntervalMs?: number;
  /** Name generator for generateName (default: base + 5 random characters). */
  generateName?: (base: string) => string;
}

export interface StoreCore {
  readonly def: ResourceDefinition;
  readonly storage: Storage;
  readonly clock: Clock;
  readonly admission: Admission;
  readonly schema: CompiledSchema;
  readonly gr: GroupResource;
  readonly gk: { group: string; kind: string };
  readonly bookmarkIntervalMs: number;
  finalizersOf(obj: KubeObject): string[];
  generateName(base: string): string;
  client(): InternalClient;
}

export function isNamespaceDefinition(def: Pick<ResourceDefinition, "group" | "plural">): boolean {
  return def.group === "" && def.plural === "namespaces";
}

function defaultFinalizersOf(def: ResourceDefinition): (obj: KubeObject) => string[] {
  const withSpec = isNamespaceDefinition(def);
  return (obj) => {
    const meta = obj.metadata.finalizers ?? [];
    if (!withSpec) return meta;
    const spec = (obj.spec as { finalizers?: unknown } | undefined)?.finalizers;
    return Array.isArray(spec) ? [...meta, ...spec.filter((f): f is string => typeof f === "string")] : meta;
  };
}

export function makeCore(def: ResourceDefinition, opts: GenericStoreOptions): StoreCore {
  return {
    def,
    storage: opts.storage,
    clock: opts.clock,
    admission: opts.admission ?? noAdmission,
    schema: opts.schema,
    gr: { group: def.group, resource: def.plural },
    gk: { group: def.group, kind: def.kind },
    bookmarkIntervalMs: opts.bookmarkIntervalMs ?? 30_000,
    finalizersOf: opts.finalizersOf ?? defaultFinalizersOf(def),
    generateName: opts.generateName ?? ((base) => randomName(base)),
    client: () => opts.client?.() ?? missingClient(def),
  };
}

/** A client whose every call fails: stores built without one still work with plugins that never call it. */
function missingClient(def: ResourceDefinition): InternalClient {
  const fail = () => Promise.reject(newInternalError(new Error(`no internal client configured for ${def.plural} admission`)));
  return new Proxy({} as InternalClient, { get: () => fail });
}

/** Runs one admission phase ("admit": mutating, "validate": validating) with the full attributes; nothing to await when every plugin was done at once. */
export function admit(
  core: StoreCore,
  ctx: RequestContext,
  attrs: { operation: Operation; subresource?: string; name: string; namespace: string | undefined; object?: KubeObject; oldObject?: KubeObject; dryRun: boolean },
  phase: "admit" | "validate",
): Promise<void> | void {
  const full: AdmissionAttributes = {
    operation: attrs.operation,
    resource: core.def,
    subresource: attrs.subresource ?? "",
    name: attrs.name,
    user: ctx.user,
    dryRun: attrs.dryRun,
  };
  if (attrs.namespace !== undefined) full.namespace = attrs.namespace;
  if (attrs.object) full.object = attrs.object;
  if (attrs.oldObject) full.oldObject = attrs.oldObject;
  if (ctx.warnings) full.warnings = ctx.warnings;
  return phase === "admit" ? core.admission.admit(full, core.client()) : core.admission.validate(full, core.client());
}
