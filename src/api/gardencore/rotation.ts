// SSH key pair rotation vocabulary shared by the garden API server, the controller manager and the
// gardenlet (docs/maintenance-and-rotation.md): the operation annotations, the rotation status and its
// predicates, and the automatic rotation period. Pure.
import { ANNOTATION_OPERATION } from "../../apis/gardencore/v1beta1/types.ts";
import { DurationError, parseDuration } from "../../utils/duration.ts";
import { isRecord } from "../../utils/guards.ts";

export const ANNOTATION_MAINTENANCE_OPERATION = "maintenance.gardener.cloud/operation";
export const OPERATION_ROTATE_SSH_KEYPAIR = "rotate-ssh-keypair";
export const OPERATION_ROTATE_CREDENTIALS_START = "rotate-credentials-start";
export const OPERATION_ROTATE_CREDENTIALS_START_WITHOUT_WORKERS_ROLLOUT = "rotate-credentials-start-without-workers-rollout";
export const OPERATION_ROTATE_CREDENTIALS_COMPLETE = "rotate-credentials-complete";
export const OPERATION_MAINTAIN = "maintain";
export const OPERATION_RETRY = "retry";
export const OPERATION_RECONCILE = "reconcile";

/** Operations that start an SSH key pair rotation. */
export const SSH_ROTATION_OPERATIONS = [OPERATION_ROTATE_SSH_KEYPAIR, OPERATION_ROTATE_CREDENTIALS_START, OPERATION_ROTATE_CREDENTIALS_START_WITHOUT_WORKERS_ROLLOUT] as const;

export const DEFAULT_ROTATION_PERIOD = "168h";
export const MIN_ROTATION_PERIOD_MS = 30 * 60 * 1000;
export const MAX_ROTATION_PERIOD_MS = 90 * 24 * 3600 * 1000;
/** Default of the garden API server's `--shoot-credentials-rotation-interval`. */
export const DEFAULT_CREDENTIALS_ROTATION_INTERVAL_MS = 90 * 24 * 3600 * 1000;

/** status.constraints type while a requested rotation waits for the nodes. */
export const CONSTRAINT_SSH_ROTATION_POSSIBLE = "SSHKeypairRotationPossible";
export const REASON_NODES_NOT_UP_TO_DATE = "NodesNotUpToDate";

/** An annotation value as a list: split on ";", trimmed, empty entries dropped, duplicates removed (first wins). */
export function splitOperations(value: string | undefined): string[] {
  const out: string[] = [];
  for (const part of (value ?? "").split(";")) {
    const op = part.trim();
    if (op && !out.includes(op)) out.push(op);
  }
  return out;
}

/** The annotation value of a list; undefined when empty (the annotation is removed). */
export function joinOperations(ops: readonly string[]): string | undefined {
  return ops.length ? ops.join(";") : undefined;
}

type Annotated = { metadata: { annotations?: Record<string, string> } };

export function operationsOf(obj: Annotated, annotation: string = ANNOTATION_OPERATION): string[] {
  return splitOperations(obj.metadata.annotations?.[annotation]);
}

/** Whether `gardener.cloud/operation` asks for an SSH key pair rotation. */
export function rotationRequested(obj: Annotated): boolean {
  return operationsOf(obj).some((op) => (SSH_ROTATION_OPERATIONS as readonly string[]).includes(op));
}

export interface SSHKeypairRotation {
  lastInitiationTime?: string;
  lastCompletionTime?: string;
}

/** `status.credentials.rotation.sshKeypair`, undefined when absent. */
export function sshKeypairRotation(shoot: { status?: unknown }): SSHKeypairRotation | undefined {
  const status = shoot.status as { credentials?: { rotation?: { sshKeypair?: unknown } } } | undefined;
  const r = status?.credentials?.rotation?.sshKeypair;
  return isRecord(r) ? (r as SSHKeypairRotation) : undefined;
}

function timeMs(t: string | undefined): number | undefined {
  if (!t) return undefined;
  const ms = Date.parse(t);
  return Number.isNaN(ms) ? undefined : ms;
}

/** In progress iff lastInitiationTime is set and lastCompletionTime is unset or earlier. */
export function rotationInProgress(shoot: { status?: unknown }): boolean {
  const r = sshKeypairRotation(shoot);
  const started = timeMs(r?.lastInitiationTime);
  if (started === undefined) return false;
  const done = timeMs(r?.lastCompletionTime);
  return done === undefined || done < started;
}

/**
 * Whether the rotation request on the Shoot is one the gardenlet already started. Starting writes
 * `lastInitiationTime` and `status.observedGeneration` (the Shoot's generation it acted on) in one status
 * write, before the request is removed; the API server bumps the generation whenever a rotation is newly
 * requested. So a request still present while `observedGeneration` equals the generation and a rotation
 * was initiated is the one that was started, left behind by a gardenlet that stopped before removing it.
 * A newer request (or any spec change since) bumped the generation: it is not started, and waits. With
 * `lastOperation.state: Failed` the API server bumps nothing, so the generation proves nothing: the
 * request counts as new (one rotation too many is safe; one too few is not).
 */
export function rotationRequestStarted(shoot: { metadata: { generation?: number; annotations?: Record<string, string> }; status?: unknown }): boolean {
  if (!rotationRequested(shoot) || !sshKeypairRotation(shoot)?.lastInitiationTime || lastOperationState(shoot) === "Failed") return false;
  const observed = (shoot.status as { observedGeneration?: unknown } | undefined)?.observedGeneration;
  return typeof observed === "number" && observed === shoot.metadata.generation;
}

/** `spec.maintenance.autoRotation.credentials.sshKeypair` (undefined when absent). */
export function sshKeypairAutoRotation(shoot: { spec?: unknown }): { rotationPeriod?: unknown } | undefined {
  const spec = shoot.spec as { maintenance?: { autoRotation?: { credentials?: { sshKeypair?: unknown } } } } | undefined;
  const v = spec?.maintenance?.autoRotation?.credentials?.sshKeypair;
  return isRecord(v) ? v : undefined;
}

/** The rotation period in ms (0: disabled); undefined when unset or unparsable. */
export function rotationPeriodMs(shoot: { spec?: unknown }): number | undefined {
  const p = sshKeypairAutoRotation(shoot)?.rotationPeriod;
  if (typeof p !== "string") return undefined;
  try {
    return parseDuration(p);
  } catch (err) {
    if (err instanceof DurationError) return undefined;
    throw err;
  }
}

/** `0` or 30m..90d inclusive. */
export function isValidRotationPeriod(ms: number): boolean {
  return ms === 0 || (ms >= MIN_ROTATION_PERIOD_MS && ms <= MAX_ROTATION_PERIOD_MS);
}

/** `status.lastOperation.state`, or "" when unset. */
export function lastOperationState(shoot: { status?: unknown }): string {
  const s = (shoot.status as { lastOperation?: { state?: unknown } } | undefined)?.lastOperation?.state;
  return typeof s === "string" ? s : "";
}
