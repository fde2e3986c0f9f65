// What a provider implements for Bastions (docs/bastion.md#actuator); the generic reconciler
// (reconciler.ts) does everything else: finalizer, lastOperation/lastError, validation, retries.
import type { Logger } from "pino";
import type { Cluster, ExtensionBastion, ExtensionBastionStatus } from "../../../apis/extensions/v1alpha1/types.ts";

export interface ActuatorContext {
  log: Logger;
  /** Aborted when the reconcile times out (20 min) or the controller stops; pass it on. */
  signal: AbortSignal;
}

/**
 * What reconcile may hand back instead of writing it itself: the reconciler writes it in the same status
 * patch as `lastOperation` Succeeded (one write less on the create path; the Bastion shows its ingress
 * and its success together).
 */
export type ReconciledStatus = Pick<ExtensionBastionStatus, "ingress" | "providerStatus">;

/**
 * Errors: throw a RequeueAfterError ("not done yet, look again in D") to be retried after D
 * without backoff; ErrorWithCodes to set `lastError.codes`; anything else backs off exponentially.
 */
export interface Actuator {
  /**
   * Creates or updates, idempotently, a host booted with `spec.userData` that accepts TCP 22 only
   * from `spec.ingress` (honouring `except`) and may open only TCP 22 to the shoot's workers; lets
   * the workers accept SSH from it; applies ingress changes in place. Writes `status.ingress` and
   * `status.providerStatus.sshHostKeys` (through the status subresource) before returning, or returns
   * them for the reconciler to write with its success.
   */
  reconcile(ctx: ActuatorContext, bastion: ExtensionBastion, cluster: Cluster): Promise<void | ReconciledStatus>;
  /** Reverts everything reconcile created or changed; throws a RequeueAfterError while anything remains. */
  delete(ctx: ActuatorContext, bastion: ExtensionBastion, cluster: Cluster): Promise<void>;
  /** Force deletion: removes what can be removed without blocking on unreachable infrastructure, then succeeds. */
  forceDelete(ctx: ActuatorContext, bastion: ExtensionBastion, cluster: Cluster): Promise<void>;
}
