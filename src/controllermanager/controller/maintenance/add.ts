// When the shoot maintenance controller runs: a Shoot's creation, deletion and generic events, and
// updates that newly add `maintain` or change the maintenance time window; otherwise the reconciler's
// requeue for the next window.
import type { Shoot } from "../../../apis/gardencore/v1beta1/types.ts";
import { Shoots } from "../../../client/garden.ts";
import { newControllerManagedBy } from "../../../controllerruntime/builder.ts";
import type { Controller } from "../../../controllerruntime/controller.ts";
import type { Manager } from "../../../controllerruntime/manager.ts";
import type { Predicate } from "../../../controllerruntime/predicates.ts";
import { maintainNowRequested } from "./plan.ts";
import { MaintenanceReconciler } from "./reconciler.ts";

export const CONTROLLER_NAME = "shoot-maintenance";

const timeWindow = (s: Shoot): string => JSON.stringify(s.spec?.maintenance?.timeWindow ?? null);

export function maintenancePredicate(): Predicate<Shoot> {
  return { update: (o, n) => (!maintainNowRequested(o) && maintainNowRequested(n)) || timeWindow(o) !== timeWindow(n) };
}

export function addMaintenanceController(mgr: Manager, o: { maxConcurrentReconciles?: number; random?: () => number } = {}): { controller: Controller; reconciler: MaintenanceReconciler } {
  const reconciler = new MaintenanceReconciler({ client: mgr.client, cache: mgr.cache, clock: mgr.clock, random: o.random });
  const controller = newControllerManagedBy(mgr)
    .named(CONTROLLER_NAME)
    .for(Shoots, [maintenancePredicate()])
    .withOptions({ maxConcurrentReconciles: o.maxConcurrentReconciles ?? 5 })
    .complete(reconciler);
  return { controller, reconciler };
}
