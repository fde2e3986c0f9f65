// Wires the gardenlet's bastion controllers (docs/bastion.md#watches): garden Bastions of this seed
// (the manager's cache is restricted to spec.seedName=<seed>), extension Bastions from the seed
// cache mapped back through their Cluster, and Shoots losing SSH access (docs/bastion.md#ssh-access-disabled).
import type { ExtensionBastion } from "../../../apis/extensions/v1alpha1/types.ts";
import type { KubeObject } from "../../../apis/meta/v1/types.ts";
import { unlessNotFound } from "../../../apimachinery/errors.ts";
import type { Client } from "../../../client/client.ts";
import type { ObjectKey } from "../../../client/resource.ts";
import { newControllerManagedBy } from "../../../controllerruntime/builder.ts";
import type { Cache } from "../../../controllerruntime/cache/cache.ts";
import type { Controller } from "../../../controllerruntime/controller.ts";
import { type EventHandler, enqueueFromMapFunc } from "../../../controllerruntime/handlers.ts";
import type { Manager } from "../../../controllerruntime/manager.ts";
import { kindSource } from "../../../controllerruntime/source.ts";
import { Clusters, ExtensionBastions } from "../../../extensions/resources.ts";
import { Bastions, Shoots } from "../../../client/garden.ts";
import { shootOfCluster } from "./clusters.ts";
import { extensionBastionPredicate, gardenBastionPredicate } from "./predicates.ts";
import { BastionReconciler } from "./reconciler.ts";
import { SSHAccessReconciler, sshAccessPredicate } from "./sshaccess.ts";

export const CONTROLLER_NAME = "bastion";
export const SSH_ACCESS_CONTROLLER_NAME = "bastion-ssh-access";

export interface AddOptions {
  seedClient: Client;
  /** The seed's cache; the caller starts and stops it (see app.ts). */
  seedCache: Cache;
  /** Default 5. */
  maxConcurrentReconciles?: number;
}

export interface BastionControllers {
  controller: Controller;
  reconciler: BastionReconciler;
  sshAccess: Controller;
}

/** Maps only the new object of an update: old and new have the same key, and an asynchronous mapper would enqueue it twice. */
export function newObjectOnly<T extends KubeObject>(h: EventHandler<T>): EventHandler<T> {
  return { create: h.create, update: (_o, n, enqueue) => h.create(n, enqueue), delete: h.delete };
}

export function addBastionControllers(mgr: Manager, o: AddOptions): BastionControllers {
  const reconciler = new BastionReconciler({
    gardenClient: mgr.client,
    gardenCache: mgr.cache,
    seedClient: o.seedClient,
    seedCache: o.seedCache,
    clock: mgr.clock,
    recorder: mgr.eventRecorderFor("gardenlet"),
  });
  const controller = newControllerManagedBy(mgr)
    .named(CONTROLLER_NAME)
    .for(Bastions, [gardenBastionPredicate()])
    .withOptions({ maxConcurrentReconciles: o.maxConcurrentReconciles ?? 5 })
    .complete(reconciler);

  // Seed -> garden: the Cluster named like the extension's namespace names the Shoot's garden namespace.
  const toGarden = async (ext: ExtensionBastion): Promise<ObjectKey[]> => {
    const cluster = await unlessNotFound(o.seedCache.get(Clusters, { name: ext.metadata.namespace ?? "" }));
    if (!cluster) return [];
    const shoot = shootOfCluster(cluster);
    return shoot.namespace ? [{ namespace: shoot.namespace, name: ext.metadata.name ?? "" }] : [];
  };
  o.seedCache.informerFor(Clusters);
  controller.watch(kindSource(o.seedCache.informerFor(ExtensionBastions), newObjectOnly(enqueueFromMapFunc(toGarden, mgr.logger)), [extensionBastionPredicate()]));

  const sshAccess = newControllerManagedBy(mgr)
    .named(SSH_ACCESS_CONTROLLER_NAME)
    .for(Shoots, [sshAccessPredicate()])
    .withOptions({ maxConcurrentReconciles: 1 })
    .complete(new SSHAccessReconciler({ gardenCache: mgr.cache, seedClient: o.seedClient, seedCache: o.seedCache }));
  return { controller, reconciler, sshAccess };
}
