// Shoot strategy hooks of node SSH key pair rotation (docs/maintenance-and-rotation.md): defaults of
// the maintenance time window and the rotation period, the `gardener.cloud/operation` normalisation
// with its generation bumps, and the rotation reminder warning. Pure apart from mutating the object.
import { ANNOTATION_OPERATION, type Shoot } from "../../../../apis/gardencore/v1beta1/types.ts";
import { isSSHAccessEnabled } from "../../../../api/gardencore/shoot.ts";
import {
  DEFAULT_CREDENTIALS_ROTATION_INTERVAL_MS,
  DEFAULT_ROTATION_PERIOD,
  OPERATION_RECONCILE,
  OPERATION_ROTATE_CREDENTIALS_START,
  OPERATION_ROTATE_CREDENTIALS_START_WITHOUT_WORKERS_ROLLOUT,
  OPERATION_ROTATE_SSH_KEYPAIR,
  joinOperations,
  lastOperationState,
  splitOperations,
  sshKeypairRotation,
} from "../../../../api/gardencore/rotation.ts";
import { randomMaintenanceWindow } from "../../../../api/gardencore/timewindow.ts";
import { isRecord } from "../../../../utils/guards.ts";

export const ROTATION_WARNING =
  "you should consider rotating the SSH keypair, see https://github.com/gardener/gardener/blob/master/docs/usage/shoot-operations/shoot_credentials_rotation.md#ssh-key-pair-for-worker-nodes for details";

type Obj = Record<string, unknown>;

/** The object at `path` under `root`, created (as {}) where missing; undefined when a non-object is in the way. */
function ensurePath(root: Obj, path: string[]): Obj | undefined {
  let cur = root;
  for (const key of path) {
    if (cur[key] === undefined || cur[key] === null) cur[key] = {};
    const next = cur[key];
    if (!isRecord(next)) return undefined;
    cur = next;
  }
  return cur;
}

function hasWorkers(shoot: Shoot): boolean {
  const workers = (shoot.spec as { provider?: { workers?: unknown } } | undefined)?.provider?.workers;
  return Array.isArray(workers) && workers.length > 0;
}

/**
 * Defaults: a random one-hour maintenance window (kept from `old` when the update dropped it), and
 * for Shoots with workers the SSH key pair rotation period 168h when unset (R2).
 */
export function applyShootDefaults(shoot: Shoot, old?: Shoot, random: () => number = Math.random): void {
  if (!isRecord(shoot.spec)) return;
  const spec = shoot.spec as Obj;
  const maintenance = ensurePath(spec, ["maintenance"]);
  if (maintenance && maintenance.timeWindow === undefined) {
    const previous = (old?.spec as { maintenance?: { timeWindow?: unknown } } | undefined)?.maintenance?.timeWindow;
    maintenance.timeWindow = isRecord(previous) ? structuredClone(previous) : randomMaintenanceWindow(random);
  }
  if (!hasWorkers(shoot)) return;
  const sshKeypair = ensurePath(spec, ["maintenance", "autoRotation", "credentials", "sshKeypair"]);
  if (sshKeypair && sshKeypair.rotationPeriod === undefined) sshKeypair.rotationPeriod = DEFAULT_ROTATION_PERIOD;
}

/**
 * Normalises `gardener.cloud/operation` (split on ";", trimmed, deduplicated) and, unless the last
 * operation failed: drops `reconcile`; drops `rotate-ssh-keypair` when SSH access is off or a
 * credentials rotation start includes it. Returns whether the generation must be bumped: `reconcile`
 * was given, or a rotation operation was newly added.
 */
export function normaliseOperation(shoot: Shoot, old?: Shoot): boolean {
  const annotations = shoot.metadata.annotations;
  if (!annotations || annotations[ANNOTATION_OPERATION] === undefined) return false;
  let ops = splitOperations(annotations[ANNOTATION_OPERATION]);
  let bump = false;
  if (lastOperationState(shoot) !== "Failed") {
    if (ops.includes(OPERATION_RECONCILE)) {
      ops = ops.filter((op) => op !== OPERATION_RECONCILE);
      bump = true;
    }
    const credentialsStart = ops.includes(OPERATION_ROTATE_CREDENTIALS_START) || ops.includes(OPERATION_ROTATE_CREDENTIALS_START_WITHOUT_WORKERS_ROLLOUT);
    if (!isSSHAccessEnabled(shoot) || credentialsStart) ops = ops.filter((op) => op !== OPERATION_ROTATE_SSH_KEYPAIR);
    const before = old ? splitOperations(old.metadata.annotations?.[ANNOTATION_OPERATION]) : [];
    const rotations = [OPERATION_ROTATE_SSH_KEYPAIR, OPERATION_ROTATE_CREDENTIALS_START, OPERATION_ROTATE_CREDENTIALS_START_WITHOUT_WORKERS_ROLLOUT];
    if (ops.some((op) => rotations.includes(op) && !before.includes(op))) bump = true;
  }
  const value = joinOperations(ops);
  if (value === undefined) delete annotations[ANNOTATION_OPERATION];
  else annotations[ANNOTATION_OPERATION] = value;
  return bump;
}

/**
 * The reminder (docs/maintenance-and-rotation.md#the-reminder): SSH access enabled, the Shoot older than the interval, and its key pair never
 * rotated or last rotated longer ago than that.
 */
export function rotationWarnings(shoot: Shoot, nowMs: number, intervalMs: number = DEFAULT_CREDENTIALS_ROTATION_INTERVAL_MS): string[] {
  if (!isSSHAccessEnabled(shoot)) return [];
  const created = Date.parse(shoot.metadata.creationTimestamp ?? "");
  if (Number.isNaN(created) || nowMs - created <= intervalMs) return [];
  const started = Date.parse(sshKeypairRotation(shoot)?.lastInitiationTime ?? "");
  if (!Number.isNaN(started) && nowMs - started <= intervalMs) return [];
  return [ROTATION_WARNING];
}
