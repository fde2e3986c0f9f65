// The gardenlet's report on its own Seed: every interval it sets the conditions Gardener's
// `kubectl get seeds` STATUS column reads. GardenletReady (this gardenlet runs and reaches the
// garden), ExtensionsReady (no ControllerInstallations exist here, so there is none to wait for)
// and SeedSystemComponentsHealthy (the seed's API server answers). lastTransitionTime moves only
// when a status changes; status.gardener names this gardenlet. Writes are conditional on the
// resourceVersion read, so a concurrent writer is never overwritten (the next tick retries).
import type { Seed } from "../../../apis/gardencore/v1beta1/types.ts";
import {
  SEED_CONDITION_EXTENSIONS_READY,
  SEED_CONDITION_GARDENLET_READY,
  SEED_CONDITION_SYSTEM_COMPONENTS_HEALTHY,
} from "../../../apis/gardencore/v1beta1/types.ts";
import type { Condition } from "../../../apis/gardencore/v1beta1/types.ts";
import { Namespaces } from "../../../client/builtins.ts";
import type { Client } from "../../../client/client.ts";
import { Seeds } from "../../../client/garden.ts";
import { unlessNotFound } from "../../../client/helpers.ts";
import type { Runnable } from "../../../controllerruntime/manager.ts";
import type { Clock, Timer } from "../../../utils/clock.ts";
import { metaTime } from "../../../utils/time.ts";

export const DEFAULT_SEED_STATUS_INTERVAL_MS = 30_000;

export interface SeedStatusOptions {
  gardenClient: Client;
  seedClient: Client;
  seedName: string;
  clock: Clock;
  intervalMs?: number;
  /** status.gardener.version. */
  version?: string;
  onError?: (err: unknown) => void;
}

type Desired = Pick<Condition, "type" | "status" | "reason" | "message">;

/** The conditions after this report: others kept, ours updated (lastTransitionTime kept while the status holds). */
export function withConditions(current: readonly Condition[], desired: readonly Desired[], nowMs: number): Condition[] {
  const now = metaTime(nowMs);
  const out = current.filter((c) => !desired.some((d) => d.type === c.type)).map((c) => ({ ...c }));
  for (const d of desired) {
    const old = current.find((c) => c.type === d.type);
    out.push({ ...d, lastTransitionTime: old?.status === d.status && old.lastTransitionTime ? old.lastTransitionTime : now, lastUpdateTime: now });
  }
  return out;
}

export class SeedStatusReporter implements Runnable {
  private timer: Timer | undefined;

  constructor(private readonly o: SeedStatusOptions) {}

  start(signal: AbortSignal): void {
    const tick = (): void => {
      if (signal.aborted) return;
      this.report(signal)
        .catch((err: unknown) => this.o.onError?.(err))
        .finally(() => {
          if (!signal.aborted) this.timer = this.o.clock.setTimer(this.o.intervalMs ?? DEFAULT_SEED_STATUS_INTERVAL_MS, tick);
        });
    };
    signal.addEventListener("abort", () => this.timer?.cancel(), { once: true });
    tick();
  }

  /** One report; resolves with the Seed as written (undefined when the Seed does not exist). */
  async report(signal?: AbortSignal): Promise<Seed | undefined> {
    const seed = await unlessNotFound(this.o.gardenClient.get(Seeds, { name: this.o.seedName }, { signal }));
    if (!seed) return undefined;
    const seedReachable = await this.o.seedClient.get(Namespaces, { name: "kube-system" }, { signal }).then(
      () => true,
      (err: unknown) => (err as { code?: number }).code === 404,
    );
    const desired: Desired[] = [
      { type: SEED_CONDITION_GARDENLET_READY, status: "True", reason: "GardenletReady", message: "Gardenlet is posting ready status." },
      { type: SEED_CONDITION_EXTENSIONS_READY, status: "True", reason: "AllExtensionsReady", message: "All extensions installed into the seed cluster are ready and healthy." },
      seedReachable
        ? { type: SEED_CONDITION_SYSTEM_COMPONENTS_HEALTHY, status: "True", reason: "SystemComponentsRunning", message: "All system components are healthy." }
        : { type: SEED_CONDITION_SYSTEM_COMPONENTS_HEALTHY, status: "False", reason: "SeedAPIServerUnreachable", message: "The seed's API server does not answer." },
    ];
    const conditions = withConditions(seed.status?.conditions ?? [], desired, this.o.clock.nowMs());
    const gardener = { name: "gardenlet", ...(this.o.version ? { version: this.o.version } : {}) };
    const body = { metadata: { resourceVersion: seed.metadata.resourceVersion }, status: { conditions, gardener } };
    return this.o.gardenClient.patchStatus(Seeds, { name: this.o.seedName }, { type: "merge", body }, { signal });
  }
}
