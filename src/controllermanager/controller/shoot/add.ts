// When the shoot-bastions controller runs: Shoot changes, and Bastion events mapped to their Shoot
// (a deleted Bastion may be the last one a Shoot in deletion waits for).
import type { Bastion } from "../../../apis/operations/v1alpha1/types.ts";
import { Bastions, Shoots } from "../../../client/garden.ts";
import type { ObjectKey } from "../../../client/resource.ts";
import { newControllerManagedBy } from "../../../controllerruntime/builder.ts";
import type { Controller } from "../../../controllerruntime/controller.ts";
import { enqueueFromMapFunc } from "../../../controllerruntime/handlers.ts";
import type { Manager } from "../../../controllerruntime/manager.ts";
import { SHOOT_REF_FIELD } from "../bastion/add.ts";
import { ShootBastionsReconciler } from "./reconciler.ts";

export const CONTROLLER_NAME = "shoot-bastions";

export function addShootBastionsController(mgr: Manager, o: { maxConcurrentReconciles?: number } = {}): { controller: Controller; reconciler: ShootBastionsReconciler } {
  mgr.cache.indexField(Bastions, SHOOT_REF_FIELD);
  const shootOf = (b: Bastion): Promise<ObjectKey[]> => Promise.resolve(b.spec?.shootRef?.name ? [{ namespace: b.metadata.namespace, name: b.spec.shootRef.name }] : []);
  const reconciler = new ShootBastionsReconciler({ client: mgr.client, cache: mgr.cache, clock: mgr.clock });
  const controller = newControllerManagedBy(mgr)
    .named(CONTROLLER_NAME)
    .for(Shoots)
    .watches(Bastions, enqueueFromMapFunc(shootOf, mgr.logger))
    .withOptions({ maxConcurrentReconciles: o.maxConcurrentReconciles ?? 5 })
    .complete(reconciler);
  return { controller, reconciler };
}
