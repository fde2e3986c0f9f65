// Graceful deletion (kube's rest.BeforeDelete): for kinds whose strategy has gracePeriodSeconds
// (pods), a delete sets deletionTimestamp = now + period and deletionGracePeriodSeconds = period
// instead of removing the object; later deletes may only shorten the period, and a period of 0
// lets the object go. Negative periods count as 1 second.
import type { KubeObject } from "../../../apis/meta/v1/types.ts";
import type { RequestContext, Strategy } from "../types.ts";
import { metaTime } from "../../../utils/time.ts";

export type GracefulOutcome =
  /** Not graceful: delete now, or mark for the finalizers. */
  | { kind: "none" }
  /** Already being deleted with a period no longer than the one asked for: nothing changes. */
  | { kind: "pending" }
  /** Store `obj` (marked); when `period` is 0 it may be removed right after. */
  | { kind: "graceful"; obj: KubeObject; period: number };

export function beforeDelete(strategy: Strategy, ctx: RequestContext, old: KubeObject, requested: number | undefined, now: Date): GracefulOutcome {
  if (!strategy.gracePeriodSeconds) return { kind: "none" };
  const asked = typeof requested === "number" && Number.isFinite(requested) ? (requested < 0 ? 1 : Math.trunc(requested)) : undefined;
  const meta = old.metadata;
  if (meta.deletionTimestamp) {
    const current = meta.deletionGracePeriodSeconds;
    // A deletion whose period is already 0 (or unknown) was interrupted between mark and remove: finish it.
    if (current === undefined || current === null || current <= 0) return { kind: "none" };
    if (asked === undefined || asked >= current) return { kind: "pending" };
    const obj = structuredClone(old);
    const start = Date.parse(meta.deletionTimestamp) - current * 1000;
    obj.metadata.deletionTimestamp = metaTime(new Date(start + asked * 1000));
    obj.metadata.deletionGracePeriodSeconds = asked;
    return { kind: "graceful", obj, period: asked };
  }
  const period = Math.max(0, strategy.gracePeriodSeconds(ctx, old, asked));
  const obj = structuredClone(old);
  obj.metadata.deletionTimestamp = metaTime(new Date(now.getTime() + period * 1000));
  obj.metadata.deletionGracePeriodSeconds = period;
  if ((obj.metadata.generation ?? 0) > 0) obj.metadata.generation = (obj.metadata.generation ?? 0) + 1;
  return { kind: "graceful", obj, period };
}
