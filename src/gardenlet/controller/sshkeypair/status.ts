// The gardenlet's writes to the garden Shoot during a rotation (docs/maintenance-and-rotation.md):
// `status.credentials.rotation.sshKeypair`, the `SSHKeypairRotationPossible` constraint and the
// removal of the operations it started. Every write carries the Shoot's resourceVersion, so it never
// overwrites a change it has not seen (a conflict fails the pass, which is retried).
import { ANNOTATION_OPERATION, type Condition, type Shoot } from "../../../apis/gardencore/v1beta1/types.ts";
import { CONSTRAINT_SSH_ROTATION_POSSIBLE, REASON_NODES_NOT_UP_TO_DATE, joinOperations, operationsOf, sshKeypairRotation } from "../../../api/gardencore/rotation.ts";
import type { Client } from "../../../client/client.ts";
import { Shoots } from "../../../client/garden.ts";
import { keyOf } from "../../../client/resource.ts";
import { metaTime } from "../../../utils/time.ts";

const seconds = (t: string | undefined): number => {
  const ms = Date.parse(t ?? "");
  return Number.isNaN(ms) ? -Infinity : Math.floor(ms / 1000) * 1000;
};

/**
 * lastInitiationTime of a new rotation: now, but strictly after the previous initiation and
 * completion (times have second granularity; the key label records the initiation's second).
 */
export function initiationTime(shoot: Shoot, nowMs: number): string {
  const r = sshKeypairRotation(shoot);
  return metaTime(Math.max(nowMs, seconds(r?.lastInitiationTime) + 1000, seconds(r?.lastCompletionTime) + 1000));
}

/** lastCompletionTime: now, never before the initiation. */
export function completionTime(shoot: Shoot, nowMs: number): string {
  return metaTime(Math.max(nowMs, seconds(sshKeypairRotation(shoot)?.lastInitiationTime)));
}

function constraintsOf(shoot: Shoot): Condition[] {
  const c = (shoot.status as { constraints?: unknown } | undefined)?.constraints;
  return Array.isArray(c) ? (c as Condition[]) : [];
}

function withoutOurs(shoot: Shoot): Condition[] {
  return constraintsOf(shoot).filter((c) => c.type !== CONSTRAINT_SSH_ROTATION_POSSIBLE);
}

async function patchStatus(garden: Client, shoot: Shoot, status: Record<string, unknown>, signal: AbortSignal): Promise<Shoot> {
  const body = { metadata: { resourceVersion: shoot.metadata.resourceVersion }, status };
  return garden.patchStatus(Shoots, keyOf(shoot), { type: "merge", body }, { signal });
}

/** Writes (or refreshes) the constraint while the gate holds; unchanged: no write. */
export async function setWaitingConstraint(garden: Client, shoot: Shoot, message: string, nowMs: number, signal: AbortSignal): Promise<Shoot> {
  const existing = constraintsOf(shoot).find((c) => c.type === CONSTRAINT_SSH_ROTATION_POSSIBLE);
  if (existing?.status === "False" && existing.reason === REASON_NODES_NOT_UP_TO_DATE && existing.message === message) return shoot;
  const now = metaTime(nowMs);
  const constraint: Condition = {
    type: CONSTRAINT_SSH_ROTATION_POSSIBLE,
    status: "False",
    lastTransitionTime: existing?.status === "False" ? existing.lastTransitionTime : now,
    lastUpdateTime: now,
    reason: REASON_NODES_NOT_UP_TO_DATE,
    message,
  };
  return patchStatus(garden, shoot, { constraints: [...withoutOurs(shoot), constraint] }, signal);
}

/** Removes the constraint (gate met, request gone, SSH access off); absent: no write. */
export async function removeConstraint(garden: Client, shoot: Shoot, signal: AbortSignal): Promise<Shoot> {
  if (!constraintsOf(shoot).some((c) => c.type === CONSTRAINT_SSH_ROTATION_POSSIBLE)) return shoot;
  return patchStatus(garden, shoot, { constraints: withoutOurs(shoot) }, signal);
}

/**
 * Starts a rotation: lastInitiationTime, the generation whose request it starts (`observedGeneration`,
 * how a restarted gardenlet recognises a request it started but had not removed yet) and the
 * constraint gone, in one status write.
 */
export async function startRotation(garden: Client, shoot: Shoot, nowMs: number, signal: AbortSignal): Promise<Shoot> {
  const status: Record<string, unknown> = {
    observedGeneration: shoot.metadata.generation,
    credentials: { rotation: { sshKeypair: { lastInitiationTime: initiationTime(shoot, nowMs) } } },
  };
  if (constraintsOf(shoot).some((c) => c.type === CONSTRAINT_SSH_ROTATION_POSSIBLE)) status.constraints = withoutOurs(shoot);
  return patchStatus(garden, shoot, status, signal);
}

export async function completeRotation(garden: Client, shoot: Shoot, nowMs: number, signal: AbortSignal): Promise<Shoot> {
  return patchStatus(garden, shoot, { credentials: { rotation: { sshKeypair: { lastCompletionTime: completionTime(shoot, nowMs) } } } }, signal);
}

/** SSH access disabled and every node updated: the rotation status is dropped. */
export async function clearRotation(garden: Client, shoot: Shoot, signal: AbortSignal): Promise<Shoot> {
  if (!sshKeypairRotation(shoot)) return shoot;
  return patchStatus(garden, shoot, { credentials: { rotation: { sshKeypair: null } } }, signal);
}

/** Removes `ops` from `gardener.cloud/operation` (the annotation goes when nothing is left). */
export async function removeOperations(garden: Client, shoot: Shoot, ops: readonly string[], signal: AbortSignal): Promise<Shoot> {
  const current = operationsOf(shoot);
  const left = current.filter((op) => !ops.includes(op));
  if (left.length === current.length) return shoot;
  const body = { metadata: { resourceVersion: shoot.metadata.resourceVersion, annotations: { [ANNOTATION_OPERATION]: joinOperations(left) ?? null } } };
  return garden.patch(Shoots, keyOf(shoot), { type: "merge", body }, { signal });
}
