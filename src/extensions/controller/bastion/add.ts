// Registers the generic Bastion reconciler of one provider with a seed manager (spec/bastion.md
// docs/bastion.md#generic-reconciler): controller `bastion`, extension Bastions of the provider's type and served classes,
// the default trigger (or generation changes when the operation annotation is ignored).
import type { ExtensionClass } from "../../../apis/extensions/v1alpha1/types.ts";
import { newControllerManagedBy } from "../../../controllerruntime/builder.ts";
import type { Controller } from "../../../controllerruntime/controller.ts";
import type { Manager } from "../../../controllerruntime/manager.ts";
import { Clusters, ExtensionBastions } from "../../resources.ts";
import type { Actuator } from "./actuator.ts";
import type { ConfigValidator } from "./configvalidator.ts";
import { defaultTrigger, typeAndClass } from "./predicates.ts";
import { BastionReconciler } from "./reconciler.ts";

export const CONTROLLER_NAME = "bastion";

export interface AddOptions {
  /** The provider type this extension serves (`spec.type`), e.g. `local`. */
  type: string;
  actuator: Actuator;
  configValidator?: ConfigValidator;
  /** Served classes; default ["shoot"] (an unset class means shoot). */
  extensionClasses?: ExtensionClass[];
  /** Trigger on generation changes instead of the operation annotation. */
  ignoreOperationAnnotation?: boolean;
  /** Default 5. */
  maxConcurrentReconciles?: number;
  /** Default `bastion`; only needed when one manager serves several types. */
  name?: string;
}

export function addBastionController(mgr: Manager, o: AddOptions): { controller: Controller; reconciler: BastionReconciler } {
  const reconciler = new BastionReconciler({
    client: mgr.client,
    cache: mgr.cache,
    clock: mgr.clock,
    actuator: o.actuator,
    configValidator: o.configValidator,
    recorder: mgr.eventRecorderFor(`${o.type}-bastion`),
  });
  mgr.cache.informerFor(Clusters); // read on every reconcile: synced before the first one
  const controller = newControllerManagedBy(mgr)
    .named(o.name ?? CONTROLLER_NAME)
    .for(ExtensionBastions, [typeAndClass(o.type, o.extensionClasses ?? ["shoot"]), defaultTrigger(o.ignoreOperationAnnotation ?? false)])
    .withOptions({ maxConcurrentReconciles: o.maxConcurrentReconciles ?? 5 })
    .complete(reconciler);
  return { controller, reconciler };
}
