// Wires the gardenlet's `sshkeypair` controller (spec/ssh-keypair-rotation.md §7.1): garden Shoots of
// this seed (the manager's cache holds only those) on create, on deletion starting and on updates
// that can change key pairs or node configuration. Shoot-side Node/OSC and seed secret watches come
// with rotation (they matter for its gate and completion).
import { ANNOTATION_OPERATION, type Shoot } from "../../../apis/gardencore/v1beta1/types.ts";
import { technicalIDOf } from "../../../api/gardencore/shoot.ts";
import type { Client } from "../../../client/client.ts";
import { newControllerManagedBy } from "../../../controllerruntime/builder.ts";
import type { Controller } from "../../../controllerruntime/controller.ts";
import type { Manager } from "../../../controllerruntime/manager.ts";
import type { Predicate } from "../../../controllerruntime/predicates.ts";
import { Shoots } from "../../../client/garden.ts";
import type { KeyGenerator } from "./keypair.ts";
import { type ShootClients, SSHKeypairReconciler } from "./reconciler.ts";

export const CONTROLLER_NAME = "sshkeypair";

export interface AddOptions {
  seedClient: Client;
  shootClients: ShootClients;
  generateKeyPair?: KeyGenerator;
  /** Default 5. */
  maxConcurrentReconciles?: number;
}

export interface SSHKeypairController {
  controller: Controller;
  reconciler: SSHKeypairReconciler;
}

/** Updates worth a pass: spec (generation), the operation annotation, deletion, the technical ID, rotation status. */
export function shootPredicate(): Predicate<Shoot> {
  const rotation = (s: Shoot): string => JSON.stringify((s.status?.credentials as { rotation?: unknown } | undefined)?.rotation ?? null);
  return {
    update: (o, n) =>
      o.metadata.generation !== n.metadata.generation ||
      o.metadata.annotations?.[ANNOTATION_OPERATION] !== n.metadata.annotations?.[ANNOTATION_OPERATION] ||
      o.metadata.deletionTimestamp !== n.metadata.deletionTimestamp ||
      technicalIDOf(o) !== technicalIDOf(n) ||
      rotation(o) !== rotation(n),
  };
}

export function addSSHKeypairController(mgr: Manager, o: AddOptions): SSHKeypairController {
  const reconciler = new SSHKeypairReconciler({
    gardenClient: mgr.client,
    gardenCache: mgr.cache,
    seedClient: o.seedClient,
    shootClients: o.shootClients,
    generateKeyPair: o.generateKeyPair,
  });
  const controller = newControllerManagedBy(mgr)
    .named(CONTROLLER_NAME)
    .for(Shoots, [shootPredicate()])
    .withOptions({ maxConcurrentReconciles: o.maxConcurrentReconciles ?? 5 })
    .complete(reconciler);
  return { controller, reconciler };
}
