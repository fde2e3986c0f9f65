// When the project controller runs (Gardener's): a Project's spec or deletion changes (its generation),
// changes to the RoleBindings, ClusterRoles and ClusterRoleBindings it controls (a binding edited or deleted by hand is restored), the
// deletion of its namespace, and the deletion of a Shoot in the namespace of a Project being deleted
// (the last one lets the namespace go).
import type { KubeObject } from "../../../apis/meta/v1/types.ts";
import type { Shoot } from "../../../apis/gardencore/v1beta1/types.ts";
import { ClusterRoleBindings, ClusterRoles, Namespaces, RoleBindings } from "../../../client/builtins.ts";
import { Projects, Shoots } from "../../../client/garden.ts";
import { newControllerManagedBy } from "../../../controllerruntime/builder.ts";
import type { Controller } from "../../../controllerruntime/controller.ts";
import { enqueueFromMapFunc } from "../../../controllerruntime/handlers.ts";
import type { Manager } from "../../../controllerruntime/manager.ts";
import { generationChanged, type Predicate } from "../../../controllerruntime/predicates.ts";
import { ProjectReconciler } from "./reconciler.ts";

export const CONTROLLER_NAME = "project";

function deletionsOnly<T extends KubeObject>(): Predicate<T> {
  return { create: () => false, update: () => false, delete: () => true };
}

export function addProjectController(mgr: Manager, o: { maxConcurrentReconciles?: number } = {}): { controller: Controller; reconciler: ProjectReconciler } {
  const reconciler = new ProjectReconciler({ client: mgr.client, cache: mgr.cache, recorder: mgr.eventRecorderFor("gardener-controller-manager") });
  const projectInDeletion = async (shoot: Shoot) => {
    const projects = await mgr.cache.list(Projects);
    return projects.filter((p) => p.metadata.deletionTimestamp && p.spec?.namespace === shoot.metadata.namespace).map((p) => ({ name: p.metadata.name ?? "" }));
  };
  const controller = newControllerManagedBy(mgr)
    .named(CONTROLLER_NAME)
    .for(Projects, [generationChanged()])
    .owns(RoleBindings)
    .owns(ClusterRoles)
    .owns(ClusterRoleBindings)
    .owns(Namespaces, [deletionsOnly()])
    .watches(Shoots, enqueueFromMapFunc(projectInDeletion, mgr.logger), [deletionsOnly()])
    .withOptions({ maxConcurrentReconciles: o.maxConcurrentReconciles ?? 5 })
    .complete(reconciler);
  return { controller, reconciler };
}
