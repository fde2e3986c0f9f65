// When the ServiceAccount controller runs (upstream's predicates): a referenced ServiceAccount is
// created, its reference label turns "true", its deletion starts, or it goes while labelled or
// finalized; and when a Terminal with `cleanupProjectMembership` and a target `serviceAccountRef`
// is deleted, that ServiceAccount is looked at again.
import type { Terminal } from "../../../apis/dashboard/v1alpha1/types.ts";
import type { KubeObject } from "../../../apis/meta/v1/types.ts";
import { newControllerManagedBy } from "../../../controllerruntime/builder.ts";
import type { Controller } from "../../../controllerruntime/controller.ts";
import type { Manager } from "../../../controllerruntime/manager.ts";
import type { Predicate } from "../../../controllerruntime/predicates.ts";
import { ServiceAccounts, Terminals } from "../../resources.ts";
import { FINALIZER_TERMINAL_REFERENCE, LABEL_TERMINAL_REFERENCE, ServiceAccountReconciler, nameAllowed } from "./reconciler.ts";

const labelled = (o: KubeObject) => o.metadata.labels?.[LABEL_TERMINAL_REFERENCE] === "true";

export function serviceAccountPredicate(allowed: string[]): Predicate {
  const ok = (o: KubeObject) => nameAllowed(allowed, o.metadata.name ?? "");
  return {
    create: (o) => ok(o) && labelled(o),
    update: (o, n) => ok(o) && ((!labelled(o) && labelled(n)) || (!o.metadata.deletionTimestamp && Boolean(n.metadata.deletionTimestamp))),
    delete: (o) => ok(o) && (labelled(o) || (o.metadata.finalizers ?? []).includes(FINALIZER_TERMINAL_REFERENCE)),
  };
}

const cleansUp = (t: Terminal) => Boolean(t.spec?.target?.cleanupProjectMembership && t.spec.target.credentials?.serviceAccountRef);

export function addServiceAccountController(mgr: Manager, o: { allowedServiceAccountNames?: string[]; honourCleanupProjectMembership: boolean; maxConcurrentReconciles?: number }): { controller: Controller; reconciler: ServiceAccountReconciler } {
  const allowed = o.allowedServiceAccountNames ?? [];
  const reconciler = new ServiceAccountReconciler({ client: mgr.client, allowedServiceAccountNames: allowed, honourCleanupProjectMembership: o.honourCleanupProjectMembership });
  const controller = newControllerManagedBy(mgr)
    .named("serviceaccount")
    .for(ServiceAccounts, [serviceAccountPredicate(allowed)])
    .watches(Terminals, (t: Terminal) => {
      const ref = t.spec.target.credentials.serviceAccountRef;
      return ref?.name ? [{ namespace: ref.namespace ?? "", name: ref.name }] : [];
    }, [{ create: () => false, update: () => false, delete: cleansUp }])
    .withOptions({ maxConcurrentReconciles: o.maxConcurrentReconciles ?? 1 })
    .complete(reconciler);
  return { controller, reconciler };
}
