// Status conditions: set one by type, keeping lastTransitionTime while its status does not change.
import type { Condition } from "../../apis/meta/v1/types.ts";

/** RFC 3339 with second precision, as Kubernetes writes metav1.Time. */
function timestamp(d: Date): string {
  return new Date(Math.floor(d.getTime() / 1000) * 1000).toISOString().replace(/\.\d{3}Z$/, "Z");
}

/** A new list with `cond` replacing the condition of the same type (or appended). */
export function setCondition(conditions: readonly Condition[], cond: Omit<Condition, "lastTransitionTime">, now: Date): Condition[] {
  const out: Condition[] = [];
  let found = false;
  for (const c of conditions) {
    if (c.type !== cond.type) {
      out.push(c);
      continue;
    }
    found = true;
    const lastTransitionTime = c.status === cond.status && c.lastTransitionTime ? c.lastTransitionTime : timestamp(now);
    out.push({ ...cond, lastTransitionTime });
  }
  if (!found) out.push({ ...cond, lastTransitionTime: timestamp(now) });
  return out;
}
