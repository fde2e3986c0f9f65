// Asserting that controllers ignored a change, without sleeping: wait until every manager's
// informer has seen the change and every controller has finished reacting to it, then look.
import type { KubeObject } from "../../src/apis/meta/v1/types.ts";
import type { ResourceType } from "../../src/client/resource.ts";
import type { Manager } from "../../src/controllerruntime/manager.ts";
import { pollFor } from "../../src/utils/poll.ts";

function rvAtLeast(have: string, want: string): boolean {
  return have !== "" && BigInt(have) >= BigInt(want);
}

/**
 * Resolves once each manager's informer of `type` has seen `changed` (its resourceVersion or a
 * later one) and no controller of the managers has a key queued or in flight: whatever the
 * controllers do about the change has been done. Requeues scheduled for later are not waited for.
 */
export async function reactedTo(managers: Manager[], type: ResourceType, changed: KubeObject, timeoutMs = 15_000): Promise<void> {
  const want = changed.metadata.resourceVersion ?? "";
  if (!/^\d+$/.test(want)) throw new Error(`reactedTo needs the changed object's resourceVersion, got ${JSON.stringify(want)}`);
  await pollFor(`the informers of ${type.plural} to see resourceVersion ${want}`, () => managers.every((m) => rvAtLeast(m.cache.informerFor(type).lastResourceVersion(), want)), { timeoutMs, intervalMs: 5 });
  // Event handlers with asynchronous mappers enqueue a few microtasks later: let them.
  await new Promise((r) => setImmediate(r));
  await controllersIdle(managers, timeoutMs);
}

/**
 * Resolves once no controller of the managers has a key queued or in flight. After a FakeClock
 * step this means every reconcile the step set off has finished: a due timer queues its key
 * synchronously within step().
 */
export async function controllersIdle(managers: Manager[], timeoutMs = 15_000): Promise<void> {
  const idle = (m: Manager): boolean => m.getControllers().every((c) => c.queue.len() === 0 && c.queue.inFlight() === 0);
  await pollFor("the controllers to be idle", () => managers.every(idle), { timeoutMs, intervalMs: 5 });
}
