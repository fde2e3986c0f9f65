// When the project controller runs: Project changes, and changes to the RoleBindings it controls
// (a binding edited or deleted by hand is restored).
import { newControllerManagedBy } from "../../../controllerruntime/builder.ts";
import type { Controller } from "../../../controllerruntime/controller.ts";
import type { Manager } from "../../../controllerruntime/manager.ts";
import { Projects } from "../../../client/garden.ts";
import { RoleBindings } from "../../../client/builtins.ts";
import { ProjectReconciler } from "./reconciler.ts";

export const CONTROLLER_NAME = "project";

export function addProjectController(mgr: Manager, o: { maxConcurrentReconciles?: number } = {}): { controller: Controller; reconciler: ProjectReconciler } {
  const reconciler = new ProjectReconciler({ client: mgr.client, cache: mgr.cache });
  const controller = newControllerManagedBy(mgr)
    .named(CONTROLLER_NAME)
    .for(Projects)
    .owns(RoleBindings)
    .withOptions({ maxConcurrentReconciles: o.maxConcurrentReconciles ?? 5 })
    .complete(reconciler);
  return { controller, reconciler };
}
