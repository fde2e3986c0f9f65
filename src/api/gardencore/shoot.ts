// Shoot predicates shared by admission, the controller manager and the gardenlet
// (docs/bastion.md#vocabulary). They tolerate partial objects: anything missing counts as its default.
import type { Shoot } from "../../apis/gardencore/v1beta1/types.ts";
import { isRecord } from "../../utils/guards.ts";

/** Any object; a Shoot's fields are read defensively. */
type ShootLike = object;

function spec(shoot: ShootLike): Partial<Shoot["spec"]> {
  const s = (shoot as { spec?: unknown }).spec;
  return isRecord(s) ? (s as Partial<Shoot["spec"]>) : {};
}

/**
 * SSH access is enabled iff the Shoot has at least one worker and `workersSettings.sshAccess.enabled`
 * is not false (absent settings mean enabled). Workerless shoots never allow SSH access.
 */
export function isSSHAccessEnabled(shoot: ShootLike): boolean {
  const provider = spec(shoot).provider;
  const workers = provider?.workers;
  if (!Array.isArray(workers) || workers.length === 0) return false;
  const sshAccess = provider?.workersSettings?.sshAccess;
  if (sshAccess === undefined || sshAccess === null) return true;
  return sshAccess.enabled === undefined || sshAccess.enabled === true;
}

/** Hibernated iff `spec.hibernation.enabled` is true. */
export function isHibernated(shoot: ShootLike): boolean {
  return spec(shoot).hibernation?.enabled === true;
}

/** `spec.seedName`, or "" when the Shoot is not scheduled. */
export function seedNameOf(shoot: ShootLike): string {
  const name = spec(shoot).seedName;
  return typeof name === "string" ? name : "";
}

/** `spec.provider.type`, or "" when unset. */
export function providerTypeOf(shoot: ShootLike): string {
  const type = spec(shoot).provider?.type;
  return typeof type === "string" ? type : "";
}

/** `status.technicalID` (the control-plane namespace in the seed), or "" when unset. */
export function technicalIDOf(shoot: ShootLike): string {
  const status = (shoot as { status?: unknown }).status;
  const id = isRecord(status) ? status.technicalID : undefined;
  return typeof id === "string" ? id : "";
}
