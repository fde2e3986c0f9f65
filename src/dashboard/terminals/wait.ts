// Waits on one object's watch (fieldSelector metadata.name) until a decision, bounded by a deadline
// on the injected clock. The watch is reopened when the server ends it.
import { StatusError } from "../../apimachinery/errors.ts";
import type { KubeObject } from "../../apis/meta/v1/types.ts";
import type { Client } from "../../client/client.ts";
import type { ResourceType } from "../../client/resource.ts";
import type { Clock } from "../../utils/clock.ts";

/** `done` ends the wait with a value, `fail` with an error, `reason` says why it is not done yet. */
export type Decision<R> = { done: R } | { fail: StatusError } | { reason: string };

export async function waitFor<T extends KubeObject, R>(
  client: Client, type: ResourceType<T>, key: { namespace: string; name: string },
  decide: (type: string, obj: T) => Decision<R>, deadline: { atMs: number; clock: Clock; timeout: (reason: string) => StatusError },
): Promise<R> {
  const abort = new AbortController();
  let reason = "";
  let outcome: { ok: true; value: R } | { ok: false; err: unknown } | undefined;
  const timer = deadline.clock.setTimer(Math.max(0, deadline.atMs - deadline.clock.nowMs()), () => {
    outcome ??= { ok: false, err: deadline.timeout(reason) };
    abort.abort();
  });
  try {
    while (!outcome) {
      await client.watch(type, { namespace: key.namespace, fieldSelector: `metadata.name=${key.name}` }, (ev) => {
        if (outcome || ev.type === "BOOKMARK") return;
        if (ev.type === "ERROR") return;
        const d = decide(ev.type, ev.object);
        if ("done" in d) outcome = { ok: true, value: d.done };
        else if ("fail" in d) outcome = { ok: false, err: d.fail };
        else reason = d.reason;
        if (outcome) abort.abort();
      }, abort.signal).catch((err: unknown) => {
        if (!abort.signal.aborted) outcome ??= { ok: false, err };
      });
    }
  } finally {
    timer.cancel();
    abort.abort();
  }
  if (outcome.ok) return outcome.value;
  throw outcome.err;
}
