// The Gardener kinds the garden API server serves on top of the Kubernetes built-ins:
// core.gardener.cloud Project, Seed, Shoot, operations.gardener.cloud Bastion and
// dashboard.gardener.cloud Terminal (docs/terminals.md).
import type { Clock } from "../../utils/clock.ts";
import { projectDefinition } from "./gardencore/project/definition.ts";
import { seedDefinition } from "./gardencore/seed/definition.ts";
import { shootDefinitionWith } from "./gardencore/shoot/definition.ts";
import { terminalDefinition } from "./dashboard/terminal/definition.ts";
import { bastionDefinition } from "./operations/bastion/definition.ts";
import { DEFAULT_BASTION_TTL_MS } from "./operations/bastion/strategy.ts";
import type { ResourceDefinition } from "./types.ts";

export { DEFAULT_BASTION_TTL_MS } from "./operations/bastion/strategy.ts";

export interface GardenDefinitionsOptions {
  /** `--bastion-time-to-live` (default 1h): expiration = last heartbeat + TTL. */
  bastionTTLMs?: number;
  /** The server's clock (heartbeats, future-heartbeat check). */
  clock: Clock;
  /** `--shoot-credentials-rotation-interval` (default 90d): the SSH key pair rotation reminder. */
  credentialsRotationIntervalMs?: number;
}

export function gardenDefinitions(opts: GardenDefinitionsOptions): ResourceDefinition[] {
  return [
    projectDefinition,
    seedDefinition,
    shootDefinitionWith({ credentialsRotationIntervalMs: opts.credentialsRotationIntervalMs }),
    bastionDefinition({ ttlMs: opts.bastionTTLMs ?? DEFAULT_BASTION_TTL_MS, clock: opts.clock }),
    terminalDefinition,
  ];
}
