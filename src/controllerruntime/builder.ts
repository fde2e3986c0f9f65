// The controller builder (controller-runtime's builder): what a controller is `for`, what
// else it `watches` (with a mapper) and what it `owns`, with predicates, then complete() with
// the reconciler. add.ts files of controllers are written with it:
//
//   newControllerManagedBy(mgr).named("bastion").for(Bastions, [generationChanged()])
//     .watches(Shoots, (shoot) => bastionsOf(shoot)).owns(Secrets)
//     .withOptions({ maxConcurrentReconciles: 5 }).complete(new Reconciler(...));
import type { KubeObject } from "../apis/meta/v1/types.ts";
import type { ResourceType } from "../client/resource.ts";
import { Controller } from "./controller.ts";
import { type EventHandler, type MapFunc, enqueueForObject, enqueueForOwner, enqueueFromMapFunc } from "./handlers.ts";
import type { Manager } from "./manager.ts";
import type { Predicate } from "./predicates.ts";
import type { ReconcileFunc, Reconciler } from "./reconcile.ts";
import { kindSource } from "./source.ts";
import type { RateLimiter } from "./workqueue/ratelimiter.ts";

export interface BuilderOptions {
  maxConcurrentReconciles?: number;
  rateLimiter?: RateLimiter;
}

interface WatchSpec {
  type: ResourceType;
  handler: (forType: ResourceType) => EventHandler;
  predicates: Predicate[];
}

export class Builder {
  private name: string | undefined;
  private forSpec: WatchSpec | undefined;
  private readonly others: WatchSpec[] = [];
  private readonly globalPredicates: Predicate[] = [];
  private options: BuilderOptions = {};

  constructor(private readonly mgr: Manager) {}

  /** The controller's name in logs and metrics; default the lower-case kind of `for`. Unique per manager. */
  named(name: string): this {
    this.name = name;
    return this;
  }

  /** The kind this controller reconciles: its events enqueue the object itself. */
  for<T extends KubeObject>(type: ResourceType<T>, predicates: Predicate<T>[] = []): this {
    if (this.forSpec) throw new Error("builder: for() may be called once");
    this.forSpec = { type, handler: () => enqueueForObject(), predicates: predicates as Predicate[] };
    return this;
  }

  /** Objects of `type` controlled by the `for` object (ownerReferences with controller: true) enqueue their owner. */
  owns<T extends KubeObject>(type: ResourceType<T>, predicates: Predicate<T>[] = []): this {
    this.others.push({ type, handler: (f) => enqueueForOwner({ group: f.group, kind: f.kind, namespaced: f.namespaced }), predicates: predicates as Predicate[] });
    return this;
  }

  /** Events of another kind enqueue what the mapper returns (or what a custom handler enqueues). */
  watches<T extends KubeObject>(type: ResourceType<T>, mapper: MapFunc<T> | EventHandler<T>, predicates: Predicate<T>[] = []): this {
    const handler = typeof mapper === "function" ? enqueueFromMapFunc(mapper, this.mgr.logger) : mapper;
    this.others.push({ type, handler: () => handler as unknown as EventHandler, predicates: predicates as Predicate[] });
    return this;
  }

  /** Predicates applied to every watch of this controller. */
  withEventFilter(p: Predicate): this {
    this.globalPredicates.push(p);
    return this;
  }

  withOptions(opts: BuilderOptions): this {
    this.options = { ...this.options, ...opts };
    return this;
  }

  /** Builds the controller, wires its watches to the manager's shared informers and adds it to the manager. */
  complete(reconciler: Reconciler | ReconcileFunc): Controller {
    const forSpec = this.forSpec;
    if (!forSpec) throw new Error("builder: for() is required");
    const name = this.name ?? forSpec.type.kind.toLowerCase();
    const maxConcurrentReconciles = this.options.maxConcurrentReconciles ?? 1;
    const controller = new Controller(
      {
        name,
        maxConcurrentReconciles,
        clock: this.mgr.clock,
        logger: this.mgr.logger,
        rateLimiter: this.options.rateLimiter,
        metrics: this.mgr.metrics.forController(name, maxConcurrentReconciles),
      },
      reconciler,
    );
    for (const spec of [forSpec, ...this.others]) {
      const informer = this.mgr.cache.informerFor(spec.type);
      controller.watch(kindSource(informer, spec.handler(forSpec.type), [...this.globalPredicates, ...spec.predicates]));
    }
    this.mgr.addController(controller);
    return controller;
  }
}

export function newControllerManagedBy(mgr: Manager): Builder {
  return new Builder(mgr);
}
