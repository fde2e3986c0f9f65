// The kubelet's restart back-off: the first restart is immediate, then 10 s doubling to 5 min; a container
// that ran for 10 min before it exited starts over.

export interface BackoffPolicy {
  initialMs: number;
  maxMs: number;
  /** A run at least this long resets the back-off. */
  resetAfterMs: number;
}

export const KUBELET_BACKOFF: BackoffPolicy = { initialMs: 10_000, maxMs: 300_000, resetAfterMs: 600_000 };

/**
 * When the next start may happen after an exit, and the back-off to record once it happened. `current` is
 * the back-off recorded at the last restart (0 before the first).
 */
export function nextRestart(policy: BackoffPolicy, current: number, ranMs: number, finishedAtMs: number): { at: number; backoffMs: number } {
  if (current === 0 || ranMs >= policy.resetAfterMs) return { at: finishedAtMs, backoffMs: policy.initialMs };
  return { at: finishedAtMs + current, backoffMs: Math.min(current * 2, policy.maxMs) };
}
