// When the GCM's bastion controller runs (docs/bastion.md#lifetime-controller): Bastion creates and generation
// changes (keepalives do not trigger it; its scheduled requeue covers them), and Shoot events
// that can end a Bastion's life, mapped through a field index to the Shoot's Bastions.
import type { Shoot } from "../../../apis/gardencore/v1beta1/types.ts";
import type { KubeObject } from "../../../apis/meta/v1/types.ts";
import type { Bastion } from "../../../apis/operations/v1alpha1/types.ts";
import { isHibernated, isSSHAccessEnabled, seedNameOf } from "../../../api/gardencore/shoot.ts";
import { keyOf, type ObjectKey } from "../../../client/resource.ts";
import { newControllerManagedBy } from "../../../controllerruntime/builder.ts";
import { type EventHandler, enqueueFromMapFunc } from "../../../controllerruntime/handlers.ts";
import type { Controller } from "../../../controllerruntime/controller.ts";
import type { Manager } from "../../../controllerruntime/manager.ts";
import type { Predicate } from "../../../controllerruntime/predicates.ts";
import { Bastions, Shoots } from "../../../client/garden.ts";
import { BastionReconciler, DEFAULT_MAX_LIFETIME_MS } from "./reconciler.ts";

export const CONTROLLER_NAME = "bastion";
export const SHOOT_REF_FIELD = "spec.shootRef.name";

export interface AddOptions {
  /** `--bastion-max-lifetime`; default 24h. */
  maxLifetimeMs?: number;
  /** Default 5. */
  maxConcurrentReconciles?: number;
}

/** Bastions: create, and updates that changed metadata.generation; never delete. */
export function bastionPredicate(): Predicate<Bastion> {
  return { create: () => true, update: (o, n) => o.metadata.generation !== n.metadata.generation, delete: () => false };
}

function endsBastions(shoot: Shoot): boolean {
  return Boolean(shoot.metadata.deletionTimestamp) || isHibernated(shoot) || !isSSHAccessEnabled(shoot);
}

/** Shoot events that can end the life of its Bastions (a first scheduling does not). */
export function shootPredicate(): Predicate<Shoot> {
  return {
    create: endsBastions,
    update: (o, n) =>
      Boolean(n.metadata.deletionTimestamp) ||
      (seedNameOf(o) !== "" && seedNameOf(o) !== seedNameOf(n)) ||
      (!isHibernated(o) && isHibernated(n)) ||
      (isSSHAccessEnabled(o) && !isSSHAccessEnabled(n)),
    delete: () => true,
  };
}

/** Maps only the new Shoot of an update: its Bastions are the old one's, and an asynchronous mapper would enqueue them twice. */
function newObjectOnly<T extends KubeObject>(h: EventHandler<T>): EventHandler<T> {
  return { create: h.create, update: (_o, n, enqueue) => h.create(n, enqueue), delete: h.delete };
}

export function addBastionController(mgr: Manager, o: AddOptions = {}): { controller: Controller; reconciler: BastionReconciler } {
  mgr.cache.indexField(Bastions, SHOOT_REF_FIELD);
  const bastionsOfShoot = async (shoot: Shoot): Promise<ObjectKey[]> => {
    const list = await mgr.cache.list(Bastions, { namespace: shoot.metadata.namespace, fields: { [SHOOT_REF_FIELD]: shoot.metadata.name ?? "" } });
    return list.map(keyOf);
  };
  const reconciler = new BastionReconciler({
    client: mgr.client,
    cache: mgr.cache,
    clock: mgr.clock,
    maxLifetimeMs: o.maxLifetimeMs ?? DEFAULT_MAX_LIFETIME_MS,
    recorder: mgr.eventRecorderFor("gardener-controller-manager"),
  });
  const controller = newControllerManagedBy(mgr)
    .named(CONTROLLER_NAME)
    .for(Bastions, [bastionPredicate()])
    .watches(Shoots, newObjectOnly(enqueueFromMapFunc(bastionsOfShoot, mgr.logger)), [shootPredicate()])
    .withOptions({ maxConcurrentReconciles: o.maxConcurrentReconciles ?? 5 })
    .complete(reconciler);
  return { controller, reconciler };
}
