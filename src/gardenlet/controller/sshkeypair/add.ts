// Wires the gardenlet's `sshkeypair` controller (docs/maintenance-and-rotation.md): garden Shoots of
// this seed (the manager's cache holds only those) on create, on deletion starting and on updates that
// can change key pairs, node configuration or the rotation; the seed's key pair Secrets mapped to their
// Shoot through its technical ID; and, per shoot, Nodes and OSC Secrets (shootwatch.ts).
import { Gauge } from "prom-client";
import { ANNOTATION_OPERATION, type Shoot } from "../../../apis/gardencore/v1beta1/types.ts";
import { technicalIDOf } from "../../../api/gardencore/shoot.ts";
import { type Secret, Secrets } from "../../../client/builtins.ts";
import type { Client } from "../../../client/client.ts";
import { Shoots } from "../../../client/garden.ts";
import { unlessNotFound } from "../../../client/helpers.ts";
import { type ObjectKey, keyOf } from "../../../client/resource.ts";
import { newControllerManagedBy } from "../../../controllerruntime/builder.ts";
import type { Cache } from "../../../controllerruntime/cache/cache.ts";
import type { Controller } from "../../../controllerruntime/controller.ts";
import { enqueueFromMapFunc } from "../../../controllerruntime/handlers.ts";
import type { Manager } from "../../../controllerruntime/manager.ts";
import type { Predicate } from "../../../controllerruntime/predicates.ts";
import { kindSource } from "../../../controllerruntime/source.ts";
import type { KeyGenerator } from "./keypair.ts";
import { type ShootClients, SSHKeypairReconciler } from "./reconciler.ts";
import { LABEL_NAME, SECRET_CURRENT, SECRET_OLD } from "./secrets.ts";

export const CONTROLLER_NAME = "sshkeypair";

export interface AddOptions {
  seedClient: Client;
  shootClients: ShootClients;
  /** The seed's cache (key pair Secrets are watched through it); the caller starts and stops it. */
  seedCache?: Cache;
  generateKeyPair?: KeyGenerator;
  /** Pairs the key pool holds (without generateKeyPair); default KEY_POOL_SIZE (keypool.ts). */
  keyPoolSize?: number;
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
  const ssh = (s: Shoot): string => JSON.stringify([s.spec.provider?.workers ?? null, s.spec.provider?.workersSettings ?? null]);
  return {
    update: (o, n) =>
      o.metadata.generation !== n.metadata.generation ||
      o.metadata.annotations?.[ANNOTATION_OPERATION] !== n.metadata.annotations?.[ANNOTATION_OPERATION] ||
      o.metadata.deletionTimestamp !== n.metadata.deletionTimestamp ||
      technicalIDOf(o) !== technicalIDOf(n) ||
      ssh(o) !== ssh(n) ||
      rotation(o) !== rotation(n),
  };
}

/** The key pool's gauges in the manager's /metrics; returns what updates them. */
function keyPoolGauges(mgr: Manager): (available: number, size: number) => void {
  const registers = [mgr.registry];
  const available = new Gauge({ name: "gardenlet_ssh_keypair_pool_available", help: "Node SSH key pairs generated ahead and ready now", registers });
  const size = new Gauge({ name: "gardenlet_ssh_keypair_pool_size", help: "Node SSH key pairs the pool holds at most", registers });
  const filled = new Gauge({ name: "gardenlet_ssh_keypair_pool_filled", help: "1 once the SSH key pair pool has been full since the gardenlet started", registers });
  return (n, max) => {
    available.set(n);
    size.set(max);
    if (n >= max) filled.set(1);
  };
}

export function addSSHKeypairController(mgr: Manager, o: AddOptions): SSHKeypairController {
  const late: { controller?: Controller } = {};
  // The key pool's fill (docs/maintenance-and-rotation.md#the-key-pool): pairs ready now, the pool's
  // size, and 1 once it has been full since the start (what a benchmark waits on before timing).
  const onKeyPoolLevel = o.generateKeyPair ? undefined : keyPoolGauges(mgr);
  const reconciler = new SSHKeypairReconciler({
    gardenClient: mgr.client,
    seedClient: o.seedClient,
    shootClients: o.shootClients,
    clock: mgr.clock,
    enqueue: (key) => late.controller?.enqueue(key),
    generateKeyPair: o.generateKeyPair,
    keyPoolSize: o.keyPoolSize,
    ...(onKeyPoolLevel ? { onKeyPoolLevel } : {}),
    // The manager's cache holds this seed's Shoots: a direct completion reads the Shoot there.
    readShoot: (key, signal) => unlessNotFound(mgr.cache.get(Shoots, key, signal)),
    logger: mgr.logger.child({ controller: CONTROLLER_NAME }),
  });
  const controller = newControllerManagedBy(mgr)
    .named(CONTROLLER_NAME)
    .for(Shoots, [shootPredicate()])
    .withOptions({ maxConcurrentReconciles: o.maxConcurrentReconciles ?? 5 })
    .complete(reconciler);
  late.controller = controller;

  if (o.seedCache) {
    // Seed -> garden: the Shoot of this seed whose technical ID is the Secret's namespace.
    o.seedCache.configure(Secrets, { labelSelector: `${LABEL_NAME} in (${SECRET_CURRENT},${SECRET_OLD})` });
    const toShoot = async (s: Secret): Promise<ObjectKey[]> =>
      (await mgr.cache.list(Shoots)).filter((shoot) => technicalIDOf(shoot) === s.metadata.namespace).map((shoot) => keyOf(shoot));
    controller.watch(kindSource(o.seedCache.informerFor(Secrets), enqueueFromMapFunc(toShoot, mgr.logger)));
  }
  mgr.add({ start: (signal) => signal.addEventListener("abort", () => void reconciler.stop(), { once: true }) });
  return { controller, reconciler };
}
