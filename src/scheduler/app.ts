// The scheduler assembled: one manager (shared informers of pods and nodes, /healthz, /readyz,
// /metrics, optional Lease leader election) with the scheduling controller. The command
// (src/cmd/kube-scheduler.ts) only parses flags and calls this; tests call it with their own clock.
import type { Logger } from "pino";
import type { Registry } from "prom-client";
import type { Client } from "../client/client.ts";
import type { InformerBackoff } from "../controllerruntime/cache/informer.ts";
import { type LeaderElectionOptions, Manager, type ManagerOptions } from "../controllerruntime/manager.ts";
import type { Clock } from "../utils/clock.ts";
import { type SchedulerController, addScheduler } from "./scheduler.ts";

export interface SchedulerAppOptions {
  client: Client;
  schedulerName?: string;
  clock?: Clock;
  logger?: Logger;
  server?: ManagerOptions["server"];
  leaderElection?: LeaderElectionOptions;
  registry?: Registry;
  defaultMetrics?: boolean;
  cacheBackoff?: InformerBackoff;
  /** Clock of the informers' reconnect backoff; default the manager's clock. */
  cacheClock?: Clock;
}

export interface Scheduler extends SchedulerController {
  manager: Manager;
  start(): Promise<void>;
  stop(): Promise<void>;
}

export function createScheduler(o: SchedulerAppOptions): Scheduler {
  const manager = new Manager({
    client: o.client,
    clock: o.clock,
    logger: o.logger,
    server: o.server,
    leaderElection: o.leaderElection,
    registry: o.registry,
    defaultMetrics: o.defaultMetrics,
    cache: { backoff: o.cacheBackoff, clock: o.cacheClock },
  });
  const scheduler = addScheduler(manager, { schedulerName: o.schedulerName });
  return { manager, ...scheduler, start: () => manager.start(), stop: () => manager.stop() };
}
