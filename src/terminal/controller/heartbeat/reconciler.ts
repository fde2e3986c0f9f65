// The heartbeat controller (docs/terminals.md#deletion-and-idle-cleanup), upstream's
// TerminalHeartbeatReconciler: a Terminal whose `dashboard.gardener.cloud/last-heartbeat-at` is
// missing, unparsable or older than timeToLive is deleted; otherwise it is looked at again when it
// would expire. Time is the injected clock's.
import { ANNOTATION_LAST_HEARTBEAT } from "../../../apis/dashboard/v1alpha1/types.ts";
import type { Client } from "../../../client/client.ts";
import type { EventRecorder } from "../../../client/events.ts";
import { unlessNotFound } from "../../../client/helpers.ts";
import type { Cache } from "../../../controllerruntime/cache/cache.ts";
import type { ReconcileContext, Reconciler, Request, Result } from "../../../controllerruntime/reconcile.ts";
import type { Clock } from "../../../utils/clock.ts";
import { Terminals } from "../../resources.ts";

export const DEFAULT_TIME_TO_LIVE_MS = 5 * 60 * 1000;

export interface HeartbeatReconcilerDeps {
  client: Client;
  cache: Cache;
  clock: Clock;
  timeToLiveMs: number;
  recorder?: EventRecorder;
}

/** Milliseconds until the Terminal expires (<= 0: expired, or no usable heartbeat). */
export function expiresInMs(heartbeat: string | undefined, timeToLiveMs: number, nowMs: number): number {
  const t = heartbeat && /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/.test(heartbeat) ? Date.parse(heartbeat) : Number.NaN;
  return Number.isNaN(t) ? 0 : t + timeToLiveMs - nowMs;
}

export class HeartbeatReconciler implements Reconciler {
  constructor(private readonly d: HeartbeatReconcilerDeps) {}

  async reconcile(req: Request, rc: ReconcileContext): Promise<Result | void> {
    const cached = await unlessNotFound(this.d.cache.get(Terminals, req, rc.signal));
    if (!cached || cached.metadata.deletionTimestamp) return;
    let left = expiresInMs(cached.metadata.annotations?.[ANNOTATION_LAST_HEARTBEAT], this.d.timeToLiveMs, this.d.clock.nowMs());
    if (left > 0) return { requeueAfterMs: left };
    // Decide again on a live read: the cache may not have the latest keepalive yet.
    const t = await unlessNotFound(this.d.client.get(Terminals, req, { signal: rc.signal }));
    if (!t || t.metadata.deletionTimestamp) return;
    left = expiresInMs(t.metadata.annotations?.[ANNOTATION_LAST_HEARTBEAT], this.d.timeToLiveMs, this.d.clock.nowMs());
    if (left > 0) return { requeueAfterMs: left };
    this.d.recorder?.event(t, "Normal", "Deleting", "Deleting terminal resource due to missing heartbeat");
    await unlessNotFound(this.d.client.delete(Terminals, req, { signal: rc.signal, ...(t.metadata.uid ? { preconditions: { uid: t.metadata.uid } } : {}) }));
    rc.log.info("deleted terminal without heartbeat");
    this.d.recorder?.event(t, "Normal", "Deleted", "Deleted terminal resource");
  }
}
