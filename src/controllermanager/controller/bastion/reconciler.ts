// The GCM's bastion lifetime controller (docs/bastion.md#lifetime-controller): deletes garden Bastions whose Shoot
// is gone, in deletion, moved, hibernated or without SSH access, and Bastions whose heartbeat
// expired or whose maximum lifetime passed; otherwise looks again at the nearest deadline.
// Decisions come from the cache; a delete is re-decided on a live read first, so a lagging cache
// (a Shoot created a moment ago, a keepalive just sent) never deletes a Bastion that should live.
import { unlessNotFound } from "../../../client/helpers.ts";
import type { Shoot } from "../../../apis/gardencore/v1beta1/types.ts";
import type { Bastion } from "../../../apis/operations/v1alpha1/types.ts";
import type { Client } from "../../../client/client.ts";
import type { EventRecorder } from "../../../client/events.ts";
import type { ObjectKey, ResourceType } from "../../../client/resource.ts";
import type { Cache } from "../../../controllerruntime/cache/cache.ts";
import type { ReconcileContext, Reconciler, Request, Result } from "../../../controllerruntime/reconcile.ts";
import type { Clock } from "../../../utils/clock.ts";
import { Bastions, Shoots } from "../../../client/garden.ts";
import { type Decision, decide } from "./decide.ts";

export const RECONCILE_TIMEOUT_MS = 3 * 60 * 1000;
/** The reason of the Event on a Bastion the controller deletes (the message says why). */
export const EVENT_DELETING = "Deleting";
export const DEFAULT_MAX_LIFETIME_MS = 24 * 60 * 60 * 1000;

export interface BastionReconcilerDeps {
  client: Client;
  cache: Cache;
  clock: Clock;
  maxLifetimeMs: number;
  /** Events on the Bastion (`kubectl describe bastion`). */
  recorder?: EventRecorder;
}

export class BastionReconciler implements Reconciler {
  constructor(private readonly d: BastionReconcilerDeps) {}

  async reconcile(req: Request, rc: ReconcileContext): Promise<Result | void> {
    const signal = AbortSignal.any([rc.signal, AbortSignal.timeout(RECONCILE_TIMEOUT_MS)]);
    const cached = <T extends Bastion | Shoot>(type: ResourceType<T>, key: ObjectKey) => unlessNotFound(this.d.cache.get(type, key, signal));
    const live = <T extends Bastion | Shoot>(type: ResourceType<T>, key: ObjectKey) => unlessNotFound(this.d.client.get(type, key, { signal }));

    let { decision, uid, bastion } = await this.decideWith(req, cached);
    if (decision.kind === "delete") ({ decision, uid, bastion } = await this.decideWith(req, live));

    switch (decision.kind) {
      case "done":
        return;
      case "error":
        throw new Error(decision.message);
      case "requeue":
        // A delay of exactly 0 still looks again (1 ms later, when now is strictly past the deadline).
        return { requeueAfterMs: Math.max(decision.afterMs, 1) };
      case "delete":
        rc.log.info(decision.reason);
        // The uid precondition: never delete a Bastion recreated under the same name meanwhile.
        await unlessNotFound(this.d.client.delete(Bastions, req, { signal, ...(uid ? { preconditions: { uid } } : {}) }));
        if (bastion) this.d.recorder?.event(bastion, "Normal", EVENT_DELETING, decision.reason);
        return;
    }
  }

  private async decideWith(
    req: Request,
    read: <T extends Bastion | Shoot>(type: ResourceType<T>, key: ObjectKey) => Promise<T | undefined>,
  ): Promise<{ decision: Decision; uid?: string; bastion?: Bastion }> {
    const bastion = await read(Bastions, req);
    if (!bastion || bastion.metadata.deletionTimestamp) return { decision: { kind: "done" } };
    const shootName = bastion.spec?.shootRef?.name ?? "";
    let shoot: Shoot | undefined;
    if (shootName !== "") {
      const key = { namespace: req.namespace, name: shootName };
      // A Shoot missing from the cache may just not have arrived yet: only the API server can say it is gone.
      shoot = (await read(Shoots, key)) ?? (await unlessNotFound(this.d.client.get(Shoots, key)));
    }
    return { decision: decide(bastion, shoot, this.d.clock.nowMs(), this.d.maxLifetimeMs), uid: bastion.metadata.uid, bastion };
  }
}
