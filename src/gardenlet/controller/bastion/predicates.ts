// When seed-side changes wake the gardenlet's bastion controller (docs/bastion.md#watches).
import { isDeepStrictEqual } from "node:util";
import { ANNOTATION_OPERATION, OPERATION_RECONCILE } from "../../../apis/gardencore/v1beta1/types.ts";
import type { ExtensionBastion } from "../../../apis/extensions/v1alpha1/types.ts";
import type { Bastion } from "../../../apis/operations/v1alpha1/types.ts";
import type { Predicate } from "../../../controllerruntime/predicates.ts";

/** Garden Bastions: create and generation changes. */
export function gardenBastionPredicate(): Predicate<Bastion> {
  return { create: () => true, update: (o, n) => o.metadata.generation !== n.metadata.generation, delete: () => false };
}

/**
 * Extension Bastions: a created one only when it is not asked to reconcile and has Failed; an
 * update only when the extension has picked it up (no operation annotation) and its lastOperation
 * changed to Succeeded, Error or Failed; every delete (releases the garden finalizer at once).
 */
export function extensionBastionPredicate(): Predicate<ExtensionBastion> {
  return {
    create: (b) => b.metadata.annotations?.[ANNOTATION_OPERATION] !== OPERATION_RECONCILE && b.status?.lastOperation?.state === "Failed",
    update: (o, n) => {
      if (n.metadata.annotations?.[ANNOTATION_OPERATION] !== undefined) return false;
      const last = n.status?.lastOperation;
      if (!last || !["Succeeded", "Error", "Failed"].includes(last.state)) return false;
      return !isDeepStrictEqual(o.status?.lastOperation, last);
    },
    delete: () => true,
  };
}
