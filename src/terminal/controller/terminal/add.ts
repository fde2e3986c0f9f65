// When the terminal controller runs: Terminal creates, and updates that changed generation,
// annotations, labels, finalizers or the deletion timestamp (so every keepalive re-mints the token).
import type { Terminal } from "../../../apis/dashboard/v1alpha1/types.ts";
import { semanticEqual } from "../../../api/equality.ts";
import { newControllerManagedBy } from "../../../controllerruntime/builder.ts";
import type { Controller } from "../../../controllerruntime/controller.ts";
import type { Manager } from "../../../controllerruntime/manager.ts";
import type { Predicate } from "../../../controllerruntime/predicates.ts";
import type { ClusterClientFactory } from "../../clients.ts";
import { Terminals } from "../../resources.ts";
import { TerminalReconciler } from "./reconciler.ts";

export function terminalPredicate(): Predicate<Terminal> {
  return {
    create: () => true,
    update: (o, n) =>
      o.metadata.generation !== n.metadata.generation ||
      !semanticEqual(o.metadata.annotations, n.metadata.annotations) ||
      !semanticEqual(o.metadata.labels, n.metadata.labels) ||
      o.metadata.deletionTimestamp !== n.metadata.deletionTimestamp,
    delete: () => false,
  };
}

export function addTerminalController(
  mgr: Manager,
  o: { clients: ClusterClientFactory; maxConcurrentReconciles?: number; tokenExpirationSeconds?: number; honourProjectMemberships?: boolean },
): { controller: Controller; reconciler: TerminalReconciler } {
  const reconciler = new TerminalReconciler({
    garden: mgr.client,
    clients: o.clients,
    clock: mgr.clock,
    recorder: mgr.eventRecorderFor("terminal-controller-manager"),
    tokenExpirationSeconds: o.tokenExpirationSeconds,
    honourProjectMemberships: o.honourProjectMemberships,
  });
  const controller = newControllerManagedBy(mgr)
    .named("terminal")
    .for(Terminals, [terminalPredicate()])
    .withOptions({ maxConcurrentReconciles: o.maxConcurrentReconciles ?? 15 })
    .complete(reconciler);
  return { controller, reconciler };
}
