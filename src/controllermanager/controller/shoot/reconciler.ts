// The GCM's shoot-bastions controller (docs/bastion.md#shoot): a Shoot's deletion does not complete
// while Bastions of it exist in its namespace. Every Shoot carries the finalizer
// `operations.gardener.cloud/bastions`; once the Shoot is in deletion (which makes the bastion
// controller delete its Bastions), the finalizer stays until the last Bastion is gone, and the Shoot
// says why in `status.lastErrors` (`shoot has still Bastions`). A force-deleted Shoot (annotation
// `confirmation.gardener.cloud/force-deletion: "true"`) passes the annotation on to its Bastions first.
import { ANNOTATION_CONFIRMATION_FORCE_DELETION, type Shoot } from "../../../apis/gardencore/v1beta1/types.ts";
import type { Bastion } from "../../../apis/operations/v1alpha1/types.ts";
import type { Client } from "../../../client/client.ts";
import { Bastions, Shoots } from "../../../client/garden.ts";
import { addFinalizer, removeFinalizer, unlessNotFound } from "../../../client/helpers.ts";
import { keyOf } from "../../../client/resource.ts";
import type { Cache } from "../../../controllerruntime/cache/cache.ts";
import type { ReconcileContext, Reconciler, Request, Result } from "../../../controllerruntime/reconcile.ts";
import type { Clock } from "../../../utils/clock.ts";
import { metaTime } from "../../../utils/time.ts";
import { SHOOT_REF_FIELD } from "../bastion/add.ts";

export const FINALIZER_BASTIONS = "operations.gardener.cloud/bastions";
export const MESSAGE_STILL_BASTIONS = "shoot has still Bastions";
export const TASK_ID = "bastions";
/** Re-check while Bastions remain (their deletion also triggers a pass). */
export const RECHECK_MS = 5_000;

interface LastError {
  description: string;
  taskID?: string;
  lastUpdateTime?: string;
}

export class ShootBastionsReconciler implements Reconciler {
  constructor(private readonly d: { client: Client; cache: Cache; clock: Clock }) {}

  async reconcile(req: Request, rc: ReconcileContext): Promise<Result | void> {
    const opts = { signal: rc.signal };
    const shoot = await unlessNotFound(this.d.cache.get(Shoots, req, rc.signal));
    if (!shoot) return;
    const finalizers = shoot.metadata.finalizers ?? [];
    if (!shoot.metadata.deletionTimestamp) {
      if (!finalizers.includes(FINALIZER_BASTIONS)) await addFinalizer(this.d.client, Shoots, shoot, FINALIZER_BASTIONS, opts);
      return;
    }
    if (!finalizers.includes(FINALIZER_BASTIONS)) return;
    const bastions = await this.d.cache.list(Bastions, { namespace: shoot.metadata.namespace, fields: { [SHOOT_REF_FIELD]: shoot.metadata.name ?? "" } }, rc.signal);
    if (bastions.length > 0) {
      if (shoot.metadata.annotations?.[ANNOTATION_CONFIRMATION_FORCE_DELETION] === "true") {
        for (const b of bastions) await this.confirmForceDeletion(b, rc);
      }
      rc.log.info({ bastions: bastions.map((b) => b.metadata.name) }, MESSAGE_STILL_BASTIONS);
      await this.setLastError(shoot, { description: MESSAGE_STILL_BASTIONS, taskID: TASK_ID, lastUpdateTime: metaTime(this.d.clock.nowMs()) }, rc);
      return { requeueAfterMs: RECHECK_MS };
    }
    await this.setLastError(shoot, undefined, rc);
    await removeFinalizer(this.d.client, Shoots, shoot, FINALIZER_BASTIONS, opts);
  }

  private async confirmForceDeletion(b: Bastion, rc: ReconcileContext): Promise<void> {
    if (b.metadata.annotations?.[ANNOTATION_CONFIRMATION_FORCE_DELETION] === "true") return;
    const body = { metadata: { annotations: { [ANNOTATION_CONFIRMATION_FORCE_DELETION]: "true" } } };
    await unlessNotFound(this.d.client.patch(Bastions, keyOf(b), { type: "merge", body }, { signal: rc.signal }));
  }

  /** Sets (or with undefined clears) this controller's entry of status.lastErrors; other entries stay. */
  private async setLastError(shoot: Shoot, err: LastError | undefined, rc: ReconcileContext): Promise<void> {
    const current = Array.isArray(shoot.status?.lastErrors) ? (shoot.status.lastErrors as LastError[]) : [];
    const others = current.filter((e) => e.taskID !== TASK_ID);
    const mine = current.find((e) => e.taskID === TASK_ID);
    if (err === undefined ? mine === undefined : mine?.description === err.description) return;
    const lastErrors = err === undefined ? others : [...others, err];
    await unlessNotFound(this.d.client.patchStatus(Shoots, keyOf(shoot), { type: "merge", body: { status: { lastErrors: lastErrors.length ? lastErrors : null } } }, { signal: rc.signal }));
  }
}
