// The terminal-controller-manager assembled (docs/terminals.md#terminal-controller-manager): its
// HTTPS webhook server (mutating and validating), their registration in the garden, and one
// manager on the garden with the terminal, heartbeat and ServiceAccount controllers. The command (src/cmd/) parses
// flags and calls this; tests call it directly with their own clock and cluster clients.
import type { KubeConfig } from "@kubernetes/client-node";
import type { Logger } from "pino";
import type { Client } from "../client/client.ts";
import type { Controller } from "../controllerruntime/controller.ts";
import { type LeaderElectionOptions, Manager, type ManagerOptions } from "../controllerruntime/manager.ts";
import type { Clock } from "../utils/clock.ts";
import { type CachedClusterClients, cachedClusterClients } from "./client-cache.ts";
import { type ClusterClientFactory, gardenClusterClients } from "./clients.ts";
import { addHeartbeatController } from "./controller/heartbeat/add.ts";
import type { HeartbeatReconciler } from "./controller/heartbeat/reconciler.ts";
import { addServiceAccountController } from "./controller/serviceaccount/add.ts";
import { addTerminalController } from "./controller/terminal/add.ts";
import { Terminals } from "./resources.ts";
import { Validator, type WebhookConfig, mutate } from "./webhook/handlers.ts";
import { type WebhookClientConfig, registerWebhooks } from "./webhook/register.ts";
import { MUTATE_PATH, VALIDATE_PATH, type WebhookServer, startWebhookServer } from "./webhook/server.ts";

export interface TerminalControllerManagerOptions {
  gardenClient: Client;
  /** For the default cluster clients (tokens of garden ServiceAccounts, shoots' admin kubeconfigs). */
  gardenKubeConfig?: KubeConfig;
  /** Replaces the default cluster clients. */
  clients?: ClusterClientFactory;
  clock?: Clock;
  logger?: Logger;
  server?: ManagerOptions["server"];
  leaderElection?: LeaderElectionOptions;
  defaultMetrics?: boolean;
  cacheClock?: Clock;
  /** The webhook server: its certificate and where it listens (default 127.0.0.1:9443). */
  webhook: { certPem: string; keyPem: string; host?: string; port?: number; register?: WebhookClientConfig };
  config?: WebhookConfig & { timeToLiveMs?: number; tokenExpirationSeconds?: number; maxConcurrentReconciles?: number; allowedServiceAccountNames?: string[] };
}

export interface TerminalControllerManager {
  manager: Manager;
  terminal: { controller: Controller };
  heartbeat: { controller: Controller; reconciler: HeartbeatReconciler };
  /** The webhook server's port, once started. */
  webhookPort(): number | undefined;
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** Upstream's defaults: service account references honoured, project memberships too, membership cleanup not. */
export const DEFAULT_CONFIG: WebhookConfig = {
  honourServiceAccountRefHostCluster: true,
  honourServiceAccountRefTargetCluster: true,
  honourProjectMemberships: true,
  honourCleanupProjectMembership: false,
};

export function createTerminalControllerManager(o: TerminalControllerManagerOptions): TerminalControllerManager {
  const manager = new Manager({
    client: o.gardenClient,
    clock: o.clock,
    logger: o.logger,
    server: o.server,
    leaderElection: o.leaderElection,
    defaultMetrics: o.defaultMetrics,
    cache: { clock: o.cacheClock },
  });
  const config = { ...DEFAULT_CONFIG, ...(o.config ?? {}) };
  let clients = o.clients;
  let kept: CachedClusterClients | undefined;
  if (!clients) {
    if (!o.gardenKubeConfig) throw new Error("the terminal-controller-manager needs the garden kubeconfig or cluster clients");
    kept = cachedClusterClients(gardenClusterClients(o.gardenClient, o.gardenKubeConfig, { fieldManager: "terminal-controller-manager", tokenExpirationSeconds: config.tokenExpirationSeconds }), manager.clock);
    clients = kept.factory;
  }
  const terminal = addTerminalController(manager, {
    clients,
    maxConcurrentReconciles: config.maxConcurrentReconciles,
    tokenExpirationSeconds: config.tokenExpirationSeconds,
    honourProjectMemberships: config.honourProjectMemberships === true,
  });
  const heartbeat = addHeartbeatController(manager, { timeToLiveMs: config.timeToLiveMs });
  addServiceAccountController(manager, { allowedServiceAccountNames: config.allowedServiceAccountNames, honourCleanupProjectMembership: config.honourCleanupProjectMembership === true });
  const validator = new Validator(o.gardenClient, manager.clock, config, () => manager.cache.list(Terminals));
  let server: WebhookServer | undefined;
  return {
    manager,
    terminal,
    heartbeat,
    webhookPort: () => server?.port,
    async start() {
      server = await startWebhookServer({
        certPem: o.webhook.certPem,
        keyPem: o.webhook.keyPem,
        host: o.webhook.host ?? "127.0.0.1",
        port: o.webhook.port ?? 9443,
        handlers: { [MUTATE_PATH]: (req) => mutate(req, manager.clock), [VALIDATE_PATH]: (req) => validator.validate(req) },
        logger: o.logger,
      });
      const register = o.webhook.register;
      if (register) await registerWebhooks(o.gardenClient, register.url === "" ? { ...register, url: `https://127.0.0.1:${server.port}` } : register);
      await manager.start();
    },
    async stop() {
      await manager.stop();
      kept?.close();
      await server?.close();
    },
  };
}
