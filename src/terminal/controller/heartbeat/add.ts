// When the heartbeat controller runs: every Terminal event but deletion; its requeue covers the rest.
import type { Manager } from "../../../controllerruntime/manager.ts";
import type { Controller } from "../../../controllerruntime/controller.ts";
import { newControllerManagedBy } from "../../../controllerruntime/builder.ts";
import { Terminals } from "../../resources.ts";
import { DEFAULT_TIME_TO_LIVE_MS, HeartbeatReconciler } from "./reconciler.ts";

export function addHeartbeatController(mgr: Manager, o: { timeToLiveMs?: number; maxConcurrentReconciles?: number } = {}): { controller: Controller; reconciler: HeartbeatReconciler } {
  const reconciler = new HeartbeatReconciler({
    client: mgr.client,
    cache: mgr.cache,
    clock: mgr.clock,
    timeToLiveMs: o.timeToLiveMs ?? DEFAULT_TIME_TO_LIVE_MS,
    recorder: mgr.eventRecorderFor("terminal-controller-manager"),
  });
  const controller = newControllerManagedBy(mgr)
    .named("heartbeat")
    .for(Terminals, [{ create: () => true, update: () => true, delete: () => false }])
    .withOptions({ maxConcurrentReconciles: o.maxConcurrentReconciles ?? 1 })
    .complete(reconciler);
  return { controller, reconciler };
}
