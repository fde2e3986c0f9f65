// Status conditions: set one by type, keeping lastTransitionTime while its status does not change.
import type { Condition } from "../../apis/meta/v1/types.ts";
import { metaTime } from "../../utils/time.ts";

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
    const lastTransitionTime = c.status === cond.status && c.lastTransitionTime ? c.lastTransitionTime : metaTime(now);
    out.push({ ...cond, lastTransitionTime });
  }
  if (!found) out.push({ ...cond, lastTransitionTime: metaTime(now) });
  return out;
}
