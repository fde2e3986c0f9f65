// When the generic bastion reconciler runs (docs/bastion.md#generic-reconciler): only extension Bastions of the
// provider's type and served classes, and of those only the events that ask for work.
import { isDeepStrictEqual } from "node:util";
import {
  ANNOTATION_OPERATION,
  OPERATION_MIGRATE,
  OPERATION_RECONCILE,
  OPERATION_RESTORE,
} from "../../../apis/gardencore/v1beta1/types.ts";
import type { ExtensionBastion, ExtensionClass } from "../../../apis/extensions/v1alpha1/types.ts";
import type { Predicate } from "../../../controllerruntime/predicates.ts";
import { generationChanged } from "../../../controllerruntime/predicates.ts";

const TRIGGERING_OPERATIONS = [OPERATION_RECONCILE, OPERATION_MIGRATE, OPERATION_RESTORE];

function hasTriggeringOperation(b: ExtensionBastion): boolean {
  const op = b.metadata.annotations?.[ANNOTATION_OPERATION];
  return op !== undefined && TRIGGERING_OPERATIONS.includes(op);
}

/** Objects of this provider type whose class (unset means `shoot`) is served; every event. */
export function typeAndClass(type: string, classes: readonly ExtensionClass[]): Predicate<ExtensionBastion> {
  const test = (b: ExtensionBastion): boolean => b.spec?.type === type && classes.includes(b.spec?.class ?? "shoot");
  return { create: test, update: (_o, n) => test(n), delete: test };
}

/**
 * The default trigger: create when an operation is requested, the object is being deleted, or its
 * last operation is missing or not Succeeded; update when an operation is requested or the
 * object is being deleted with unchanged status (the reconciler's own status writes never
 * trigger it); never on delete. With ignoreOperationAnnotation: generation changes instead.
 */
export function defaultTrigger(ignoreOperationAnnotation: boolean): Predicate<ExtensionBastion> {
  if (ignoreOperationAnnotation) return { ...generationChanged<ExtensionBastion>(), delete: () => false };
  return {
    create: (b) =>
      hasTriggeringOperation(b) || Boolean(b.metadata.deletionTimestamp) || b.status?.lastOperation?.state !== "Succeeded",
    update: (o, n) => hasTriggeringOperation(n) || (Boolean(n.metadata.deletionTimestamp) && isDeepStrictEqual(o.status ?? {}, n.status ?? {})),
    delete: () => false,
  };
}
