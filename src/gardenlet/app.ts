// The gardenlet of one seed assembled: a manager on the garden whose cache holds only this seed's
// Bastions and Shoots (the only lists the seed authorizer permits), a second cache on the seed
// (extension Bastions, Clusters), the bastion controllers (docs/bastion.md#gardenlet-controller) and the Seed's status report.
// The command (src/cmd/) only parses flags and calls this; tests call it directly.
import type { Logger } from "pino";
import type { Registry } from "prom-client";
import type { Client } from "../client/client.ts";
import { Cache } from "../controllerruntime/cache/cache.ts";
import type { InformerBackoff } from "../controllerruntime/cache/informer.ts";
import { Manager, type ManagerOptions } from "../controllerruntime/manager.ts";
import type { Clock } from "../utils/clock.ts";
import { type BastionControllers, addBastionControllers } from "./controller/bastion/add.ts";
import { SeedStatusReporter } from "./controller/seed/status.ts";
import { type SSHKeypairController, addSSHKeypairController } from "./controller/sshkeypair/add.ts";
import type { KeyGenerator } from "./controller/sshkeypair/keypair.ts";
import type { ShootClients } from "./controller/sshkeypair/reconciler.ts";
import { type VpnController, type VpnOptions, addVpnController } from "./controller/vpn/add.ts";
import { Bastions, Shoots } from "../client/garden.ts";

export interface GardenletOptions {
  /** A client of the garden API server, as this seed's gardenlet (`gardener.cloud:system:seed:<seed>`). */
  gardenClient: Client;
  /** A client of the seed API server. */
  seedClient: Client;
  seedName: string;
  clock?: Clock;
  logger?: Logger;
  server?: ManagerOptions["server"];
  registry?: Registry;
  defaultMetrics?: boolean;
  cacheBackoff?: InformerBackoff;
  /**
   * Clients of the shoots' API servers. When given, the `sshkeypair` controller runs (node key pairs,
   * garden copies, OperatingSystemConfig Secrets); without it, it does not.
   */
  shootClients?: ShootClients;
  /** How often the Seed's conditions (GardenletReady, ExtensionsReady, SeedSystemComponentsHealthy) are reported (default 30 s). */
  seedStatusIntervalMs?: number;
  /** The node key pair generator of the `sshkeypair` controller (default RSA 4096). */
  generateKeyPair?: KeyGenerator;
  /** Node key pairs generated ahead (without generateKeyPair); default KEY_POOL_SIZE. */
  sshKeypairPoolSize?: number;
  /** When given, the `vpn` controller runs (VPN Secrets, Services and Endpoints, the tunnel check; docs/reversed-vpn.md#gardenlet). */
  vpn?: VpnOptions;
}

export interface Gardenlet {
  manager: Manager;
  seedCache: Cache;
  bastion: BastionControllers;
  /** Present when `shootClients` was given. */
  sshKeypair?: SSHKeypairController;
  /** Present when `vpn` was given. */
  vpn?: VpnController;
  start(): Promise<void>;
  stop(): Promise<void>;
}

export function createGardenlet(o: GardenletOptions): Gardenlet {
  if (!o.seedName) throw new Error("gardenlet: the seed name must not be empty");
  const ownSeed = `spec.seedName=${o.seedName}`;
  const manager = new Manager({
    client: o.gardenClient,
    clock: o.clock,
    logger: o.logger?.child({ seed: o.seedName }),
    server: o.server,
    registry: o.registry,
    defaultMetrics: o.defaultMetrics,
    cache: {
      byObject: [
        { type: Bastions, fieldSelector: ownSeed },
        { type: Shoots, fieldSelector: ownSeed },
      ],
      backoff: o.cacheBackoff,
    },
  });
  const seedCache = new Cache(o.seedClient, { clock: manager.clock, logger: manager.logger, metrics: manager.metrics, backoff: o.cacheBackoff });
  manager.addReadyzCheck("seed-informers-synced", () => {
    if (!seedCache.hasSynced()) throw new Error("seed caches are not synced yet");
  });
  const bastion = addBastionControllers(manager, { seedClient: o.seedClient, seedCache });
  const seedStatus = new SeedStatusReporter({
    gardenClient: o.gardenClient,
    seedClient: o.seedClient,
    seedName: o.seedName,
    clock: manager.clock,
    intervalMs: o.seedStatusIntervalMs,
    onError: (err) => manager.logger.warn({ err }, "could not report the seed's status"),
  });
  manager.add(seedStatus);
  const sshKeypair = o.shootClients
    ? addSSHKeypairController(manager, { seedClient: o.seedClient, seedCache, shootClients: o.shootClients, generateKeyPair: o.generateKeyPair, keyPoolSize: o.sshKeypairPoolSize })
    : undefined;
  const vpn = o.vpn ? addVpnController(manager, { ...o.vpn, seedClient: o.seedClient, ...(o.shootClients ? { shootClients: o.shootClients } : {}) }) : undefined;
  let stopped: Promise<void> | undefined;
  return {
    manager,
    seedCache,
    bastion,
    sshKeypair,
    vpn,
    async start() {
      seedCache.start();
      try {
        await manager.start();
      } catch (err) {
        await seedCache.stop();
        throw err;
      }
    },
    stop() {
      stopped ??= manager.stop().finally(() => seedCache.stop());
      return stopped;
    },
  };
}
