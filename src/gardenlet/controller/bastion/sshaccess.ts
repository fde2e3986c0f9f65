// SSH access disabled (docs/bastion.md#ssh-access-disabled): when a Shoot of this seed no longer allows SSH
// access, every extension Bastion in its control-plane namespace is deleted at once, without
// waiting; the provider cleans up, and the garden Bastions (deleted by the controller manager)
// finish through the normal deletion flow.
import type { Shoot } from "../../../apis/gardencore/v1beta1/types.ts";
import { isSSHAccessEnabled, technicalIDOf } from "../../../api/gardencore/shoot.ts";
import type { Client } from "../../../client/client.ts";
import { keyOf } from "../../../client/resource.ts";
import type { Cache } from "../../../controllerruntime/cache/cache.ts";
import type { Predicate } from "../../../controllerruntime/predicates.ts";
import type { ReconcileContext, Reconciler, Request, Result } from "../../../controllerruntime/reconcile.ts";
import { ExtensionBastions } from "../../../extensions/resources.ts";
import { Shoots } from "../../../client/garden.ts";
import { unlessNotFound } from "../../../client/helpers.ts";

/** Shoots created, or changed, without SSH access. */
export function sshAccessPredicate(): Predicate<Shoot> {
  return { create: (s) => !isSSHAccessEnabled(s), update: (_o, n) => !isSSHAccessEnabled(n), delete: () => false };
}

export class SSHAccessReconciler implements Reconciler {
  constructor(private readonly d: { gardenCache: Cache; seedClient: Client; seedCache: Cache }) {}

  async reconcile(req: Request, rc: ReconcileContext): Promise<Result | void> {
    const shoot = await unlessNotFound(this.d.gardenCache.get(Shoots, req, rc.signal));
    if (!shoot) return;
    const namespace = technicalIDOf(shoot);
    if (isSSHAccessEnabled(shoot) || !namespace) return;
    for (const ext of await this.d.seedCache.list(ExtensionBastions, { namespace }, rc.signal)) {
      if (ext.metadata.deletionTimestamp) continue;
      if (await unlessNotFound(this.d.seedClient.delete(ExtensionBastions, keyOf(ext), { signal: rc.signal }).then(() => true))) {
        rc.log.info({ extension: `${namespace}/${ext.metadata.name}` }, "deleted extension bastion: SSH access is disabled");
      }
    }
  }
}
