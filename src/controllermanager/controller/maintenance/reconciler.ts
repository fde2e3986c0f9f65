// The GCM's shoot maintenance controller (docs/maintenance-and-rotation.md): runs maintenance when
// `gardener.cloud/operation: maintain` asks for it or now is inside the effective maintenance window,
// then requeues for the next window. A run writes the operation annotation (which may request an
// SSH key pair rotation, carried out by the gardenlet) and `status.lastMaintenance`.
import type { Shoot } from "../../../apis/gardencore/v1beta1/types.ts";
import { shootMaintenanceWindow } from "../../../api/gardencore/timewindow.ts";
import type { Client } from "../../../client/client.ts";
import { Shoots } from "../../../client/garden.ts";
import { unlessNotFound } from "../../../client/helpers.ts";
import { keyOf } from "../../../client/resource.ts";
import type { Cache } from "../../../controllerruntime/cache/cache.ts";
import type { ReconcileContext, Reconciler, Request, Result } from "../../../controllerruntime/reconcile.ts";
import type { Clock } from "../../../utils/clock.ts";
import { annotationPatch, maintenancePlan, mustMaintainNow } from "./plan.ts";

export interface MaintenanceReconcilerDeps {
  client: Client;
  cache: Cache;
  clock: Clock;
  /** [0, 1): where in the next window the next run falls. Default Math.random. */
  random?: () => number;
}

export class MaintenanceReconciler implements Reconciler {
  constructor(private readonly d: MaintenanceReconcilerDeps) {}

  async reconcile(req: Request, rc: ReconcileContext): Promise<Result | void> {
    const shoot = await unlessNotFound(this.d.cache.get(Shoots, req, rc.signal));
    if (!shoot || shoot.metadata.deletionTimestamp) return;
    const now = this.d.clock.nowMs();
    const next = { requeueAfterMs: shootMaintenanceWindow(shoot).effective().nextRunDelayMs(now, this.d.random) };
    if (!mustMaintainNow(shoot, now)) {
      rc.log.debug({ requeueAfterMs: next.requeueAfterMs }, "not in the maintenance window; next run scheduled");
      return next;
    }
    await this.maintain(shoot, now, rc);
    return next;
  }

  private async maintain(shoot: Shoot, now: number, rc: ReconcileContext): Promise<void> {
    const plan = maintenancePlan(shoot, now);
    const key = keyOf(shoot);
    // The resourceVersion makes a concurrent change (e.g. a user's new operation) a conflict: the pass is retried.
    const body = { metadata: { resourceVersion: shoot.metadata.resourceVersion, annotations: annotationPatch(shoot, plan) } };
    const patched = await this.d.client.patch(Shoots, key, { type: "merge", body }, { signal: rc.signal });
    if (plan.lastMaintenance) {
      await this.d.client.patchStatus(Shoots, key, { type: "merge", body: { status: { lastMaintenance: plan.lastMaintenance } } }, { signal: rc.signal });
    }
    rc.log.info({ operation: patched.metadata.annotations?.["gardener.cloud/operation"] ?? null, sshKeypairRotation: plan.rotation }, "shoot maintained");
  }
}
