// The GCM's decision for one garden Bastion (docs/bastion.md#lifetime-controller), pure: delete it (and why), or
// look again at its nearest deadline. First match wins.
import type { Shoot } from "../../../apis/gardencore/v1beta1/types.ts";
import type { Bastion } from "../../../apis/operations/v1alpha1/types.ts";
import { isHibernated, isSSHAccessEnabled, seedNameOf } from "../../../api/gardencore/shoot.ts";

export type Decision =
  | { kind: "done" }
  | { kind: "delete"; reason: string }
  | { kind: "requeue"; afterMs: number }
  | { kind: "error"; message: string };

export const REASON_SHOOT_GONE = "Deleting bastion because target shoot is gone";
export const REASON_SHOOT_IN_DELETION = "Deleting bastion because target shoot is in deletion";
export const REASON_SHOOT_MOVED = "Deleting bastion because target shoot migrated to another seed";
export const REASON_HIBERNATED = "Deleting bastion because target shoot is hibernated";
export const REASON_SSH_DISABLED = "Deleting bastion because SSH access is disabled";
export const REASON_EXPIRED = "Deleting expired bastion";
export const REASON_MAX_LIFETIME = "Deleting bastion because it reached its maximum lifetime";
export const MESSAGE_OVERDUE = "the bastion should already have been deleted";

/** Reasons that depend on the Shoot (re-checked against a live read before acting). */
export const SHOOT_REASONS: readonly string[] = [REASON_SHOOT_GONE, REASON_SHOOT_IN_DELETION, REASON_SHOOT_MOVED, REASON_HIBERNATED, REASON_SSH_DISABLED];

function timeMs(t: string | undefined): number | undefined {
  if (!t) return undefined;
  const ms = Date.parse(t);
  return Number.isNaN(ms) ? undefined : ms;
}

/** `shoot` undefined means the Shoot does not exist. */
export function decide(bastion: Bastion | undefined, shoot: Shoot | undefined, nowMs: number, maxLifetimeMs: number): Decision {
  if (!bastion) return { kind: "done" };
  if (bastion.metadata.deletionTimestamp) return { kind: "done" };
  if (!shoot) return { kind: "delete", reason: REASON_SHOOT_GONE };
  if (shoot.metadata.deletionTimestamp) return { kind: "delete", reason: REASON_SHOOT_IN_DELETION };
  if (seedNameOf(shoot) !== (bastion.spec?.seedName ?? "")) return { kind: "delete", reason: REASON_SHOOT_MOVED };
  if (isHibernated(shoot)) return { kind: "delete", reason: REASON_HIBERNATED };
  if (!isSSHAccessEnabled(shoot)) return { kind: "delete", reason: REASON_SSH_DISABLED };

  const expiration = timeMs(bastion.status?.expirationTimestamp);
  if (expiration !== undefined && nowMs > expiration) return { kind: "delete", reason: REASON_EXPIRED };
  const created = timeMs(bastion.metadata.creationTimestamp) ?? nowMs;
  if (nowMs - created > maxLifetimeMs) return { kind: "delete", reason: REASON_MAX_LIFETIME };

  let afterMs = created + maxLifetimeMs - nowMs;
  if (expiration !== undefined) afterMs = Math.min(afterMs, expiration - nowMs);
  if (afterMs < 0) return { kind: "error", message: MESSAGE_OVERDUE };
  return { kind: "requeue", afterMs };
}
