// provider-local assembled: a manager on the seed running the Bastion controller (type local) over the
// landscape's networks on this host. The command (src/cmd/provider-local.ts) parses flags and calls this;
// tests call it directly (with a LinuxHost of their own, or a FakeHost).
import { join } from "node:path";
import type { Logger } from "pino";
import { Gauge } from "prom-client";
import type { Client } from "../client/client.ts";
import { Manager, type ManagerOptions } from "../controllerruntime/manager.ts";
import { LinuxHost, type Host } from "../host/index.ts";
import { addLocalBastionController } from "./controller/bastion/add.ts";
import { BASTION_HOST_KEY_TYPES, BASTION_PREPARE, type LocalBastionActuator } from "./controller/bastion/actuator.ts";
import { BastionPool } from "./machines/pool.ts";
import { FileAddressBook, type AddressBook } from "./network/addresses.ts";
import { LocalNetworks } from "./network/networks.ts";

export interface ProviderLocalOptions {
  /** A client of the seed API server. */
  seedClient: Client;
  /** Host records (<stateDir>/host) and address allocations (<stateDir>/addresses.json). */
  stateDir: string;
  /** Default: a LinuxHost on <stateDir>/host. */
  host?: Host;
  prefix?: string;
  addresses?: AddressBook;
  publicCidr?: string;
  nodeCidrPool?: string;
  concurrentSyncs?: number;
  readyTimeoutMs?: number;
  /** Bastion machines held in advance (docs/adr/0015-bastion-machine-pool.md); default 0, none. */
  bastionPoolSize?: number;
  logger?: Logger;
  server?: ManagerOptions["server"];
  defaultMetrics?: boolean;
}

export interface ProviderLocal {
  manager: Manager;
  networks: LocalNetworks;
  actuator: LocalBastionActuator;
  pool: BastionPool;
  start(): Promise<void>;
  stop(): Promise<void>;
}

export function createProviderLocal(o: ProviderLocalOptions): ProviderLocal {
  const host = o.host ?? new LinuxHost({ stateDir: join(o.stateDir, "host"), ...(o.prefix ? { prefix: o.prefix } : {}) });
  const networks = new LocalNetworks({
    host,
    addresses: o.addresses ?? new FileAddressBook(join(o.stateDir, "addresses.json")),
    ...(o.publicCidr ? { publicCidr: o.publicCidr } : {}),
    ...(o.nodeCidrPool ? { nodePool: o.nodeCidrPool } : {}),
  });
  const manager = new Manager({
    client: o.seedClient,
    logger: o.logger?.child({ component: "provider-local" }),
    server: o.server,
    defaultMetrics: o.defaultMetrics,
  });
  const poolLogger = o.logger?.child({ component: "provider-local", pool: "bastion" });
  const pool = new BastionPool({
    host,
    size: o.bastionPoolSize ?? 0,
    hostKeyTypes: BASTION_HOST_KEY_TYPES,
    prepare: BASTION_PREPARE,
    ...(poolLogger ? { logger: poolLogger } : {}),
  });
  new Gauge({
    name: "provider_local_bastion_pool_held_machines",
    help: "Bastion machines booted in advance and ready to be claimed.",
    registers: [manager.registry],
    collect() {
      this.set(pool.held().length);
    },
  });
  const { actuator } = addLocalBastionController(manager, {
    networks,
    pool,
    ...(o.concurrentSyncs !== undefined ? { maxConcurrentReconciles: o.concurrentSyncs } : {}),
    ...(o.readyTimeoutMs !== undefined ? { readyTimeoutMs: o.readyTimeoutMs } : {}),
  });
  let stopped: Promise<void> | undefined;
  return {
    manager,
    networks,
    actuator,
    pool,
    async start() {
      // The held machines of an earlier run first; the pool fills in the background.
      await pool.start();
      await manager.start();
    },
    stop() {
      stopped ??= Promise.all([manager.stop(), pool.stop()]).then(() => undefined);
      return stopped;
    },
  };
}
