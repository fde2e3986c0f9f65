// The Lease records of leader election as client-go's leaderelection writes them, shared by the
// controller runtime's LeaderElector and the API server's own controller election (each keeps its
// own campaign loop).
import type { LeaseSpec } from "../../apis/coordination/v1/types.ts";
import { microTime } from "../../utils/time.ts";

/** The spec `identity` writes to take the lease (from another holder, or a new one) or to renew its own. */
export function leaseSpecFor(current: LeaseSpec | undefined, identity: string, leaseDurationMs: number, nowMs: number): LeaseSpec {
  const mine = current?.holderIdentity === identity;
  return {
    holderIdentity: identity,
    leaseDurationSeconds: Math.ceil(leaseDurationMs / 1000),
    acquireTime: mine && current?.acquireTime ? current.acquireTime : microTime(nowMs),
    renewTime: microTime(nowMs),
    leaseTransitions: current === undefined ? 0 : (current.leaseTransitions ?? 0) + (mine ? 0 : 1),
  };
}

/** The spec that hands a held lease back: no holder, expiring in 1 s, so a standby takes over at once. */
export function releasedLeaseSpec(spec: LeaseSpec | undefined, nowMs: number): LeaseSpec {
  const now = microTime(nowMs);
  return { ...spec, holderIdentity: "", leaseDurationSeconds: 1, renewTime: now, acquireTime: now };
}

/**
 * Whether another candidate still holds the lease. Expiry is judged on this process's clock from when
 * it observed the record change (`observedAtMs`), so clock skew between candidates does not matter;
 * a spec without a duration counts `fallbackDurationMs`.
 */
export function heldByOther(spec: LeaseSpec | undefined, identity: string, observedAtMs: number, nowMs: number, fallbackDurationMs: number): boolean {
  const holder = spec?.holderIdentity ?? "";
  const durationMs = spec?.leaseDurationSeconds !== undefined ? spec.leaseDurationSeconds * 1000 : fallbackDurationMs;
  return holder !== "" && holder !== identity && observedAtMs + durationMs > nowMs;
}
