// The local Bastion actuator (docs/bastion.md#actuator, docs/bastion.md#provider-local): a bastion is a machine `bastion-<name>` of the
// shoot's control-plane namespace with a public and a node address, whose table `inet bastion` (installed
// before its userData runs) admits TCP 22 only from spec.ingress and lets it open only TCP 22 to the
// shoot's nodes; the shoot's workers admit SSH only from their bastions. Ingress changes replace the
// table's sets in one transaction; the machine is never rebuilt for them.
import type { Cluster, ExtensionBastion } from "../../../apis/extensions/v1alpha1/types.ts";
import type { Actuator, ActuatorContext, ReconciledStatus } from "../../../extensions/controller/bastion/actuator.ts";
import { ErrorWithCodes, RequeueAfterError, messageOf } from "../../../extensions/controller/errors.ts";
import { ERR_CONFIGURATION_PROBLEM } from "../../../apis/extensions/v1alpha1/types.ts";
import { MachineNotReadyError, addressOf, type MachineInfo } from "../../../host/index.ts";
import { syncBastionAccess } from "../../machines/access.ts";
import { machineHostname, machineName, machineOwner } from "../../machines/names.ts";
import { BastionPool } from "../../machines/pool.ts";
import { BASTION_NODE_IF, BASTION_PUBLIC_IF, BASTION_TABLE, bastionTable, familySets } from "../../machines/tables.ts";
import { AddressExhaustedError } from "../../network/addresses.ts";
import { POOL_PUBLIC, nodePool, type LocalNetworks, type NodeNetwork } from "../../network/networks.ts";
import { ingressCidrs, isCidr, shootNodes } from "./cluster.ts";

export const READY_TIMEOUT_MS = 30_000;
export const READY_REQUEUE_MS = 5_000;
export const DELETE_REQUEUE_MS = 10_000;

/** sshd of a bastion: public keys only, no root, user gardener only, TCP forwarding for `ssh -J`. */
export const BASTION_SSHD_OPTIONS = {
  AllowUsers: "gardener",
  AllowTcpForwarding: true,
  PermitRootLogin: false,
  PasswordAuthentication: false,
  KbdInteractiveAuthentication: false,
  AuthenticationMethods: "publickey",
  X11Forwarding: false,
} as const;

/**
 * Host key types of a bastion: no RSA, whose key generation alone takes 0.1 to 0.8 s (a prime search) of a
 * creation that otherwise takes about 0.3 s; every OpenSSH client verifies Ed25519 and ECDSA host keys.
 */
export const BASTION_HOST_KEY_TYPES = ["ed25519", "ecdsa"] as const;

/**
 * What a held bastion machine does before it is held (docs/adr/0015-bastion-machine-pool.md): creates user
 * gardener as the gardenlet's user-data would (docs/bastion.md#userdata), which then finds it and skips
 * `useradd`, the slowest step of the user-data.
 */
export const BASTION_PREPARE = `#!/bin/bash -eu
useradd --create-home --home-dir /home/gardener --user-group --shell /bin/bash gardener
`;

export interface LocalActuatorOptions {
  networks: LocalNetworks;
  /** Held machines bastions are made from (default: none, every machine is started). */
  pool?: BastionPool;
  readyTimeoutMs?: number;
  readyRequeueMs?: number;
  deleteRequeueMs?: number;
}

export function bastionMachineName(namespace: string, name: string): string {
  return machineName("bastion", namespace, name);
}

/** host keys "<type> <base64>" sorted by type. */
function sortedByType(keys: readonly string[]): string[] {
  return [...keys].sort((a, b) => (a.split(" ")[0] ?? "").localeCompare(b.split(" ")[0] ?? "") || a.localeCompare(b));
}

export class LocalBastionActuator implements Actuator {
  private readonly readyTimeoutMs: number;
  private readonly readyRequeueMs: number;
  private readonly deleteRequeueMs: number;
  private readonly pool: BastionPool;

  constructor(private readonly o: LocalActuatorOptions) {
    this.pool = o.pool ?? new BastionPool({ host: o.networks.host, size: 0, hostKeyTypes: BASTION_HOST_KEY_TYPES });
    this.readyTimeoutMs = o.readyTimeoutMs ?? READY_TIMEOUT_MS;
    this.readyRequeueMs = o.readyRequeueMs ?? READY_REQUEUE_MS;
    this.deleteRequeueMs = o.deleteRequeueMs ?? DELETE_REQUEUE_MS;
  }

  /**
   * Hands status.ingress and the host keys to the reconciler, which writes them with its Succeeded. Until the
   * machine is ready (or the wait ends), the pool does not refill (pool.ts, whileBusy).
   */
  reconcile(ctx: ActuatorContext, bastion: ExtensionBastion, cluster: Cluster): Promise<ReconciledStatus> {
    return this.pool.whileBusy(() => this.reconcileMachine(ctx, bastion, cluster));
  }

  private async reconcileMachine(ctx: ActuatorContext, bastion: ExtensionBastion, cluster: Cluster): Promise<ReconciledStatus> {
    const { networks } = this.o;
    const { host } = networks;
    const namespace = bastion.metadata.namespace ?? "";
    const name = bastion.metadata.name ?? "";
    const nodes = shootNodes(cluster);
    if (!isCidr(nodes)) throw new Error(`cluster ${cluster.metadata.name}: the shoot has no valid spec.networking.nodes`);
    const { ingress, except } = ingressCidrs(bastion);
    const pub = await networks.ensurePublic();
    const net = await networks.ensureNodeNetwork(namespace, nodes);
    const machine = bastionMachineName(namespace, name);
    // The machine itself needs no lock (the work queue never runs one bastion twice at once, and
    // addresses come from the address book atomically); the workers' bastion sets do (allowOnWorkers).
    // A bastion of this name reconciled again is wanted (a forced removal may have left its name behind).
    networks.leavingBastions.delete(machine);
    const existing = await host.machineStatus(machine, { sockets: false });
    if (existing?.running) {
      const tables = await host.listTables(existing.netns);
      if (tables.some((t) => t.family === BASTION_TABLE.family && t.name === BASTION_TABLE.name)) {
        // One transaction: no packet sees a state between the old and the new ingress.
        await host.replaceSetElements(existing.netns, BASTION_TABLE, [...familySets("ingress", ingress), ...familySets("except", except)]);
      } else {
        await host.applyTable(existing.netns, bastionTable({ ingress, except, workers: [net.cidr] }), { parent: `machine/${machine}` });
      }
      await allowOnWorkers(networks, net);
    } else {
      const { publicAddress, nodeAddress } = await allocateAddresses(networks, namespace, name);
      ctx.log.info({ machine, publicAddress, nodeAddress }, "starting bastion machine");
      // The workers learn the bastion's node address while its machine is built (nobody else can send from
      // it: the bridge's guard lets a port send only from the addresses the host gave it).
      networks.arrivingBastions.set(machine, { namespace, address: nodeAddress });
      try {
        await settled([
          this.pool.createMachine({
            name: machine,
            hostname: machineHostname("bastion", name),
            owner: machineOwner("bastion", namespace, name),
            networks: [
              { bridge: pub.bridge, bridgeNetns: pub.netns, address: `${publicAddress}/${pub.prefixLength}`, interface: BASTION_PUBLIC_IF },
              { bridge: net.bridge, bridgeNetns: net.netns, address: `${nodeAddress}/${net.prefixLength}`, interface: BASTION_NODE_IF },
            ],
            // Installed before the userData runs: SSH is never reachable from outside spec.ingress.
            nftTables: [bastionTable({ ingress, except, workers: [net.cidr] })],
            userData: Buffer.from(bastion.spec.userData ?? "", "base64").toString("utf8"),
            sshd: { listenAddresses: [publicAddress], hostKeyTypes: BASTION_HOST_KEY_TYPES, options: BASTION_SSHD_OPTIONS },
            wait: false,
          }),
          allowOnWorkers(networks, net),
        ]);
      } finally {
        // From here on its machine record names the address.
        networks.arrivingBastions.delete(machine);
      }
    }
    const info = await this.waitReady(machine, name);
    const ip = publicAddressOf(info);
    return { ingress: { ip }, providerStatus: { sshHostKeys: sortedByType(info.hostKeys) } };
  }

  /** Readiness as it happens (host/ watches the machine); not ready in time -> requeue. */
  private async waitReady(machine: string, name: string): Promise<MachineInfo> {
    try {
      return await this.o.networks.host.waitMachineReady(machine, this.readyTimeoutMs);
    } catch (err) {
      if (err instanceof MachineNotReadyError) throw new RequeueAfterError(`waiting for bastion machine ${name} to get ready`, this.readyRequeueMs);
      throw err;
    }
  }

  delete(ctx: ActuatorContext, bastion: ExtensionBastion, _cluster: Cluster): Promise<void> {
    return this.remove(ctx, bastion, false);
  }

  forceDelete(ctx: ActuatorContext, bastion: ExtensionBastion, _cluster: Cluster): Promise<void> {
    return this.remove(ctx, bastion, true);
  }

  /**
   * Removes the bastion from its workers' sets, stops its machine (namespaces, links, mounts, processes,
   * table) and releases its addresses. Without force, anything left is a 10 s requeue; with force,
   * failures are logged and ignored.
   */
  private async remove(ctx: ActuatorContext, bastion: ExtensionBastion, force: boolean): Promise<void> {
    const { networks } = this.o;
    const { host } = networks;
    const namespace = bastion.metadata.namespace ?? "";
    const name = bastion.metadata.name ?? "";
    const machine = bastionMachineName(namespace, name);
    const net: NodeNetwork | undefined = await networks.nodeNetwork(namespace);
    let failedWorkers = 0;
    // Out of every worker's set first (also of sets that other bastions' changes rewrite meanwhile); the
    // machine itself is stopped without holding the shoot's lock.
    networks.leavingBastions.add(machine);
    if (net) {
      const sync = await networks.exclusiveShared(`machines/${namespace}`, () => syncBastionAccess(host, net, networks.leavingBastions, networks.arrivingBastions));
      for (const f of sync.failed) ctx.log.warn({ worker: f.machine, err: f.error.message, force }, "could not remove the bastion from a worker");
      failedWorkers = sync.failed.length;
    }
    try {
      await host.stopMachine(machine);
    } catch (err) {
      ctx.log.warn({ machine, err: messageOf(err), force }, "could not stop the bastion machine");
    }
    const left = await this.remainingResources(machine);
    if (left === 0) networks.leavingBastions.delete(machine);
    const remaining = left + (force ? 0 : failedWorkers);
    if (remaining > 0 && !force) throw new RequeueAfterError(`waiting for ${remaining} bastion resources to be deleted`, this.deleteRequeueMs);
    await networks.release(POOL_PUBLIC, `bastion/${namespace}/${name}`);
    await networks.release(nodePool(namespace), `bastion/${name}`);
  }

  /** Host objects of the bastion machine still recorded or present. */
  private async remainingResources(machine: string): Promise<number> {
    const { host } = this.o.networks;
    const id = `machine/${machine}`;
    // Its parts' ids name it (its namespace, its directory): only those records are read.
    const records = (await host.listRecords((x) => x.includes(machine))).filter((r) => r.parent === id || (r.kind === "machine" && r.name === machine));
    const netns = host.names.machineNetns(machine);
    const netnsRecorded = records.some((r) => r.kind === "netns" && r.name === netns);
    return records.length + (!netnsRecorded && (await host.netnsExists(netns)) ? 1 : 0);
  }
}

/**
 * Lets the shoot's workers accept SSH from its bastions as they are now: one rewrite of the workers' sets
 * serves every bastion of the shoot that changed while the previous rewrite ran.
 */
async function allowOnWorkers(networks: LocalNetworks, net: NodeNetwork): Promise<void> {
  const sync = await networks.exclusiveShared(`machines/${net.namespace}`, () => syncBastionAccess(networks.host, net, networks.leavingBastions, networks.arrivingBastions));
  if (sync.failed.length > 0) {
    throw new Error(`could not allow the bastion on workers: ${sync.failed.map((f) => `${f.machine}: ${f.error.message}`).join("; ")}`);
  }
}

/** Waits for every promise, then throws the first failure (nothing is left running behind a failure). */
async function settled(all: Promise<unknown>[]): Promise<void> {
  const failed = (await Promise.allSettled(all)).find((r): r is PromiseRejectedResult => r.status === "rejected");
  if (failed) throw failed.reason;
}

/**
 * The bastion's public and node addresses. A full network is the landscape's configuration (its public
 * CIDR, the shoot's spec.networking.nodes, a bridge's port limit), not a passing failure: the error carries
 * ERR_CONFIGURATION_PROBLEM, so it shows on the Bastion's status and `gardenctl ssh` stops waiting at once.
 */
async function allocateAddresses(networks: LocalNetworks, namespace: string, name: string): Promise<{ publicAddress: string; nodeAddress: string }> {
  try {
    return await networks.allocatePublicAndNode(namespace, `bastion/${namespace}/${name}`, `bastion/${name}`);
  } catch (err) {
    if (!(err instanceof AddressExhaustedError)) throw err;
    // Nothing is held for a bastion that cannot exist: a later one may fit when others are gone.
    await networks.release(POOL_PUBLIC, `bastion/${namespace}/${name}`);
    await networks.release(nodePool(namespace), `bastion/${name}`);
    throw new ErrorWithCodes(`cannot create bastion machine: ${err.message}`, [ERR_CONFIGURATION_PROBLEM], { cause: err });
  }
}

function publicAddressOf(info: MachineInfo): string {
  const i = info.interfaces.find((x) => x.name === BASTION_PUBLIC_IF);
  if (!i) throw new Error(`machine ${info.name} has no interface ${BASTION_PUBLIC_IF}`);
  return addressOf(i.address);
}
