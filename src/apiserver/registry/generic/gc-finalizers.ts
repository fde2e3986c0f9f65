// The garbage-collection finalizers a delete sets (kube-apiserver's deletionFinalizersForGarbageCollection):
// propagationPolicy Orphan (or orphanDependents=true) -> "orphan", Foreground -> "foregroundDeletion",
// Background -> neither. Without an explicit policy a GC finalizer already on the object decides,
// then the kind's default. Kinds whose policy is "Unsupported" (events) never get either.
import type { KubeObject } from "../../../apis/meta/v1/types.ts";
import { FINALIZER_DELETE_DEPENDENTS, FINALIZER_ORPHAN_DEPENDENTS } from "../../../apimachinery/validation/objectmeta.ts";
import type { ResourceDefinition } from "../types.ts";
import type { StoreDeleteOptions } from "./interface.ts";

type GCOptions = Pick<StoreDeleteOptions, "propagationPolicy" | "orphanDependents">;

function defaultPolicy(def: ResourceDefinition): "DeleteDependents" | "OrphanDependents" | "Unsupported" {
  return def.strategy.defaultGarbageCollectionPolicy ?? "DeleteDependents";
}

export function shouldOrphanDependents(def: ResourceDefinition, obj: KubeObject, options: GCOptions): boolean {
  const policy = defaultPolicy(def);
  if (policy === "Unsupported") return false;
  if (options.orphanDependents !== undefined) return options.orphanDependents;
  if (options.propagationPolicy) return options.propagationPolicy === "Orphan";
  for (const f of obj.metadata.finalizers ?? []) {
    if (f === FINALIZER_ORPHAN_DEPENDENTS) return true;
    if (f === FINALIZER_DELETE_DEPENDENTS) return false;
  }
  return policy === "OrphanDependents";
}

export function shouldDeleteDependents(def: ResourceDefinition, obj: KubeObject, options: GCOptions): boolean {
  if (defaultPolicy(def) === "Unsupported") return false;
  if (options.orphanDependents !== undefined) return false;
  if (options.propagationPolicy) return options.propagationPolicy === "Foreground";
  for (const f of obj.metadata.finalizers ?? []) {
    if (f === FINALIZER_DELETE_DEPENDENTS) return true;
    if (f === FINALIZER_ORPHAN_DEPENDENTS) return false;
  }
  return false;
}

/** The object's metadata.finalizers after this delete, or undefined when they stay as they are. */
export function gcFinalizersOnDelete(def: ResourceDefinition, obj: KubeObject, options: GCOptions): string[] | undefined {
  const old = obj.metadata.finalizers ?? [];
  const next = old.filter((f) => f !== FINALIZER_ORPHAN_DEPENDENTS && f !== FINALIZER_DELETE_DEPENDENTS);
  if (shouldOrphanDependents(def, obj, options)) next.push(FINALIZER_ORPHAN_DEPENDENTS);
  if (shouldDeleteDependents(def, obj, options)) next.push(FINALIZER_DELETE_DEPENDENTS);
  const before = new Set(old);
  const after = new Set(next);
  const same = before.size === after.size && [...before].every((f) => after.has(f));
  return same ? undefined : next;
}
