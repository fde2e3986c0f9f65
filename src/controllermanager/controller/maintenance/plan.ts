// What a maintenance run does to a Shoot (docs/maintenance-and-rotation.md; Gardener's
// pkg/controllermanager/controller/shoot/maintenance): the new `gardener.cloud/operation` (reconcile,
// the deferred maintenance operations, an automatic SSH key pair rotation when its period has passed)
// and `status.lastMaintenance`. Pure: the reconciler writes what this returns.
import { ANNOTATION_OPERATION, type Shoot } from "../../../apis/gardencore/v1beta1/types.ts";
import {
  ANNOTATION_MAINTENANCE_OPERATION,
  OPERATION_MAINTAIN,
  OPERATION_RECONCILE,
  OPERATION_RETRY,
  OPERATION_ROTATE_SSH_KEYPAIR,
  isValidRotationPeriod,
  joinOperations,
  lastOperationState,
  operationsOf,
  rotationInProgress,
  rotationPeriodMs,
  rotationRequested,
  sshKeypairRotation,
} from "../../../api/gardencore/rotation.ts";
import { isSSHAccessEnabled } from "../../../api/gardencore/shoot.ts";
import { shootMaintenanceWindow } from "../../../api/gardencore/timewindow.ts";
import { metaTime } from "../../../utils/time.ts";

export const DESCRIPTION_SUCCESS = "All maintenance operations successful.";
export const DESCRIPTION_SSH_ROTATION = 'Credentials "rotate-ssh-keypair": SSH keypair rotation started. Reason: Automatic rotation of SSH keypair configured';

export interface LastMaintenance {
  description: string;
  triggeredTime: string;
  state: "Succeeded" | "Failed";
}

export interface MaintenancePlan {
  /** The new `gardener.cloud/operation`; undefined removes it. */
  operation: string | undefined;
  /** Written to `status.lastMaintenance`; undefined leaves it alone (failed shoots only get `retry`). */
  lastMaintenance: LastMaintenance | undefined;
  /** An automatic SSH key pair rotation is requested. */
  rotation: boolean;
}

/** `gardener.cloud/operation` contains `maintain`. */
export function maintainNowRequested(shoot: Shoot): boolean {
  return operationsOf(shoot).includes(OPERATION_MAINTAIN);
}

/** The run is due: `maintain` was asked for, or now is inside the effective window. */
export function mustMaintainNow(shoot: Shoot, nowMs: number): boolean {
  return maintainNowRequested(shoot) || shootMaintenanceWindow(shoot).effective().contains(nowMs);
}

/**
 * The automatic rotation is due: a non-zero period, SSH access, the last completion (else the
 * creation) strictly before now − period, and no rotation pending or in progress.
 */
export function sshRotationDue(shoot: Shoot, nowMs: number): boolean {
  const period = rotationPeriodMs(shoot);
  if (!period || !isValidRotationPeriod(period) || !isSSHAccessEnabled(shoot)) return false;
  if (rotationRequested(shoot) || rotationInProgress(shoot)) return false;
  const reference = Date.parse(sshKeypairRotation(shoot)?.lastCompletionTime ?? shoot.metadata.creationTimestamp ?? "");
  return !Number.isNaN(reference) && reference < nowMs - period;
}

export function maintenancePlan(shoot: Shoot, nowMs: number): MaintenancePlan {
  const current = operationsOf(shoot).filter((op) => op !== OPERATION_MAINTAIN);
  if (lastOperationState(shoot) === "Failed") return { operation: OPERATION_RETRY, lastMaintenance: undefined, rotation: false };
  const deferred = operationsOf(shoot, ANNOTATION_MAINTENANCE_OPERATION);
  const rotation = sshRotationDue(shoot, nowMs);
  const ops = [OPERATION_RECONCILE, ...current, ...deferred, ...(rotation ? [OPERATION_ROTATE_SSH_KEYPAIR] : [])];
  const description = rotation ? `${DESCRIPTION_SUCCESS} ${DESCRIPTION_SSH_ROTATION}` : DESCRIPTION_SUCCESS;
  return {
    operation: joinOperations([...new Set(ops)]),
    lastMaintenance: { description, triggeredTime: metaTime(nowMs), state: "Succeeded" },
    rotation,
  };
}

/** The metadata patch of a plan: the new operation, the maintenance annotation removed. */
export function annotationPatch(shoot: Shoot, plan: MaintenancePlan): Record<string, string | null> {
  const patch: Record<string, string | null> = { [ANNOTATION_OPERATION]: plan.operation ?? null };
  if (shoot.metadata.annotations?.[ANNOTATION_MAINTENANCE_OPERATION] !== undefined && plan.lastMaintenance) patch[ANNOTATION_MAINTENANCE_OPERATION] = null;
  return patch;
}
