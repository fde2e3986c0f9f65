// Wires the gardenlet's `vpn` controller (docs/reversed-vpn.md#gardenlet): garden Shoots of this seed (the
// manager's cache holds only those) on create, deletion and updates that change the VPN (spec, the HA
// annotation, the technical ID, the CA rotation's phase); the care loop and renewals come from the reconciler's requeues.
import { type Shoot } from "../../../apis/gardencore/v1beta1/types.ts";
import { technicalIDOf } from "../../../api/gardencore/shoot.ts";
import { ANNOTATION_HA_VPN, caRotation } from "../../../api/gardencore/vpn.ts";
import type { Client } from "../../../client/client.ts";
import { Shoots } from "../../../client/garden.ts";
import { unlessNotFound } from "../../../client/helpers.ts";
import { newControllerManagedBy } from "../../../controllerruntime/builder.ts";
import type { Controller } from "../../../controllerruntime/controller.ts";
import type { Manager } from "../../../controllerruntime/manager.ts";
import type { Predicate } from "../../../controllerruntime/predicates.ts";
import type { ShootClients } from "../sshkeypair/reconciler.ts";
import type { VpnIssuer } from "./certs.ts";
import { type VpnAddresses, VpnReconciler } from "./reconciler.ts";
import type { Probe } from "./tunnelcheck.ts";

export const CONTROLLER_NAME = "vpn";

export interface VpnOptions {
  issuer: VpnIssuer;
  addresses?: VpnAddresses;
  probe?: Probe;
  /** The tunnel check's period while healthy (default 1 min). */
  careIntervalMs?: number;
  /** Where the shoot API server finds the VPN Secrets (default /srv/kubernetes/vpn). */
  egressSecretsDir?: string;
  /** Default 5. */
  maxConcurrentReconciles?: number;
}

export interface AddOptions extends VpnOptions {
  seedClient: Client;
  shootClients?: ShootClients;
}

export interface VpnController {
  controller: Controller;
  reconciler: VpnReconciler;
}

export function shootPredicate(): Predicate<Shoot> {
  return {
    update: (o, n) =>
      o.metadata.generation !== n.metadata.generation ||
      o.metadata.annotations?.[ANNOTATION_HA_VPN] !== n.metadata.annotations?.[ANNOTATION_HA_VPN] ||
      o.metadata.deletionTimestamp !== n.metadata.deletionTimestamp ||
      technicalIDOf(o) !== technicalIDOf(n) ||
      JSON.stringify(caRotation(o) ?? null) !== JSON.stringify(caRotation(n) ?? null),
  };
}

export function addVpnController(mgr: Manager, o: AddOptions): VpnController {
  const reconciler = new VpnReconciler({
    gardenClient: mgr.client,
    seedClient: o.seedClient,
    issuer: o.issuer,
    clock: mgr.clock,
    ...(o.shootClients ? { shootClients: o.shootClients } : {}),
    ...(o.addresses ? { addresses: o.addresses } : {}),
    ...(o.probe ? { probe: o.probe } : {}),
    ...(o.careIntervalMs !== undefined ? { careIntervalMs: o.careIntervalMs } : {}),
    ...(o.egressSecretsDir ? { egressSecretsDir: o.egressSecretsDir } : {}),
    readShoot: (key, signal) => unlessNotFound(mgr.cache.get(Shoots, key, signal)),
  });
  const controller = newControllerManagedBy(mgr)
    .named(CONTROLLER_NAME)
    .for(Shoots, [shootPredicate()])
    .withOptions({ maxConcurrentReconciles: o.maxConcurrentReconciles ?? 5 })
    .complete(reconciler);
  return { controller, reconciler };
}
