// The controller runtime's public surface: manager, builder, reconciler contract, predicates,
// handlers, cache, work queue, leader election.
export { Builder, newControllerManagedBy } from "./builder.ts";
export type { BuilderOptions } from "./builder.ts";
export { Cache, fieldIndexName } from "./cache/cache.ts";
export type { ByObject, CacheOptions, ListFilter } from "./cache/cache.ts";
export { Informer } from "./cache/informer.ts";
export type { InformerHandler, InformerOptions, ListerWatcher } from "./cache/informer.ts";
export { clientListerWatcher } from "./cache/listwatch.ts";
export { Store, fieldIndexFunc, namespaceIndex } from "./cache/store.ts";
export type { IndexFunc } from "./cache/store.ts";
export { Controller } from "./controller.ts";
export type { ControllerOptions, Source } from "./controller.ts";
export { enqueueForObject, enqueueForOwner, enqueueFromMapFunc, ownerRequests } from "./handlers.ts";
export type { Enqueue, EventHandler, MapFunc } from "./handlers.ts";
export { LeaderElector } from "./leaderelection/leaderelection.ts";
export type { LeaderElectionConfig } from "./leaderelection/leaderelection.ts";
export { Manager } from "./manager.ts";
export type { LeaderElectionOptions, ManagerOptions, Runnable } from "./manager.ts";
export { RuntimeMetrics } from "./metrics.ts";
export * as predicates from "./predicates.ts";
export type { Predicate } from "./predicates.ts";
export { TerminalError, isTerminal, terminal } from "./reconcile.ts";
export type { ReconcileContext, ReconcileFunc, Reconciler, Request, Result } from "./reconcile.ts";
export { stopOnSignals } from "./signals.ts";
export { kindSource } from "./source.ts";
export { WorkQueue } from "./workqueue/queue.ts";
export { BucketRateLimiter, ItemExponentialFailureRateLimiter, MaxOfRateLimiter, defaultControllerRateLimiter } from "./workqueue/ratelimiter.ts";
export type { RateLimiter } from "./workqueue/ratelimiter.ts";
