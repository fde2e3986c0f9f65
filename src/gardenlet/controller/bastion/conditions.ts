// gardencore conditions as the gardenlet keeps them on a garden Bastion (docs/bastion.md#bastionready,
// docs/bastion.md#status-sync): initialised as Unknown when missing, lastTransitionTime moves only when the status
// changes, lastUpdateTime when status, reason, message or codes change.
import { isDeepStrictEqual } from "node:util";
import type { Condition, ConditionStatus } from "../../../apis/gardencore/v1beta1/types.ts";
import { CONDITION_BASTION_READY } from "../../../apis/operations/v1alpha1/types.ts";
import { metaTime } from "../../../utils/time.ts";

export const REASON_INITIALIZED = "ConditionInitialized";
export const MESSAGE_INITIALIZED = "The condition has been initialized but its semantic check has not been performed yet.";
export const REASON_RECONCILED = "SuccessfullyReconciled";
export const MESSAGE_RECONCILED = "The bastion has been reconciled successfully.";
export const REASON_FAILED = "FailedReconciling";
export const REASON_DELETING = "DeletionInProgress";
export const MESSAGE_DELETING = "The bastion is being deleted.";

export function initCondition(type: string, nowMs: number): Condition {
  const t = metaTime(nowMs);
  return { type, status: "Unknown", lastTransitionTime: t, lastUpdateTime: t, reason: REASON_INITIALIZED, message: MESSAGE_INITIALIZED };
}

/**
 * The condition with new status, reason, message and codes (Gardener's error codes of the cause, e.g.
 * ERR_CONFIGURATION_PROBLEM from the extension's lastError; none by default).
 */
export function updateCondition(c: Condition, status: ConditionStatus, reason: string, message: string, nowMs: number, codes: readonly string[] = []): Condition {
  const t = metaTime(nowMs);
  const changed = c.status !== status || c.reason !== reason || c.message !== message || !isDeepStrictEqual(c.codes ?? [], [...codes]);
  return {
    type: c.type,
    status,
    lastTransitionTime: c.status !== status ? t : c.lastTransitionTime,
    lastUpdateTime: changed ? t : c.lastUpdateTime,
    reason,
    message,
    ...(codes.length > 0 ? { codes: [...codes] } : {}),
  };
}

export interface ReadyUpdate {
  status: ConditionStatus;
  reason: string;
  message: string;
  /** Error codes of the cause (the extension's lastError.codes). */
  codes?: readonly string[];
}

/**
 * The garden Bastion's conditions after writing BastionReady: BastionReady first, then (docs/bastion.md#d11-extension-conditions-are-mirrored) the
 * extension's conditions other than BastionReady in its order when the extension exists
 * (`mirrored` defined), else the garden's other conditions as they were.
 */
export function withReady(current: Condition[] | undefined, ready: ReadyUpdate, nowMs: number, mirrored?: Condition[]): Condition[] {
  const existing = current?.find((c) => c.type === CONDITION_BASTION_READY) ?? initCondition(CONDITION_BASTION_READY, nowMs);
  const next = updateCondition(existing, ready.status, ready.reason, ready.message, nowMs, ready.codes);
  const others = mirrored !== undefined ? mirrored : (current ?? []);
  return [next, ...others.filter((c) => c.type !== CONDITION_BASTION_READY).map((c) => structuredClone(c))];
}
