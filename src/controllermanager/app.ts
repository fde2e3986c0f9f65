// The gardener-controller-manager assembled: one manager on the garden with the bastion lifetime
// controller (docs/bastion.md#lifetime-controller), the project RBAC controller (docs/bastion.md#project), shoot-bastions and shoot maintenance. The command (src/cmd/) only parses
// flags and calls this; tests call it directly with their own clock.
import type { Logger } from "pino";
import type { Registry } from "prom-client";
import type { Client } from "../client/client.ts";
import type { Controller } from "../controllerruntime/controller.ts";
import type { InformerBackoff } from "../controllerruntime/cache/informer.ts";
import { type LeaderElectionOptions, Manager, type ManagerOptions } from "../controllerruntime/manager.ts";
import type { Clock } from "../utils/clock.ts";
import { addBastionController } from "./controller/bastion/add.ts";
import type { BastionReconciler } from "./controller/bastion/reconciler.ts";
import { addMaintenanceController } from "./controller/maintenance/add.ts";
import type { MaintenanceReconciler } from "./controller/maintenance/reconciler.ts";
import { addProjectController } from "./controller/project/add.ts";
import { addShootBastionsController } from "./controller/shoot/add.ts";
import type { ShootBastionsReconciler } from "./controller/shoot/reconciler.ts";

export interface ControllerManagerOptions {
  /** A client of the garden API server. */
  gardenClient: Client;
  /** `--bastion-max-lifetime`; default 24h. */
  bastionMaxLifetimeMs?: number;
  clock?: Clock;
  logger?: Logger;
  /** Where /healthz, /readyz and /metrics listen (ManagerOptions.server). */
  server?: ManagerOptions["server"];
  leaderElection?: LeaderElectionOptions;
  registry?: Registry;
  defaultMetrics?: boolean;
  cacheBackoff?: InformerBackoff;
  /** Clock of the informers' reconnect backoff; default the manager's clock. Tests driving `clock` by hand pass real time here. */
  cacheClock?: Clock;
  /** [0, 1): where in the next maintenance window a Shoot's next run falls; default Math.random. */
  maintenanceRandom?: () => number;
}

export interface ControllerManager {
  manager: Manager;
  bastion: { controller: Controller; reconciler: BastionReconciler };
  project: { controller: Controller };
  shoot: { controller: Controller; reconciler: ShootBastionsReconciler };
  maintenance: { controller: Controller; reconciler: MaintenanceReconciler };
  /** Resolves once the caches are synced (and, with leader election, the campaign began). */
  start(): Promise<void>;
  stop(): Promise<void>;
}

export function createControllerManager(o: ControllerManagerOptions): ControllerManager {
  const manager = new Manager({
    client: o.gardenClient,
    clock: o.clock,
    logger: o.logger,
    server: o.server,
    leaderElection: o.leaderElection,
    registry: o.registry,
    defaultMetrics: o.defaultMetrics,
    cache: { backoff: o.cacheBackoff, clock: o.cacheClock },
  });
  const bastion = addBastionController(manager, { maxLifetimeMs: o.bastionMaxLifetimeMs });
  const project = addProjectController(manager);
  const shoot = addShootBastionsController(manager);
  const maintenance = addMaintenanceController(manager, { random: o.maintenanceRandom });
  return { manager, bastion, project, shoot, maintenance, start: () => manager.start(), stop: () => manager.stop() };
}
