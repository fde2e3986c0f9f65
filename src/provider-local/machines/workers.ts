// Worker machines of a shoot (used by gardener-local): a machine on the shoot's node network, default route
// through the shoot's router (NAT to the public network), running sshd, with table `inet bastion_access`
// holding the shoot's current bastions (docs/bastion.md#provider-local): SSH reaches a worker only from them.
// A worker that runs pods also gets `inet kubelet_access` (the kubelet port only from the control plane)
// and `ip pod_nat` (its pods' outbound traffic masqueraded), and its pod range is routed to it in the shoot's
// router (docs/machines.md#pods-on-workers).
import type { MachineInfo, SshdOptionValue } from "../../host/index.ts";
import { nodePool, type LocalNetworks } from "../network/networks.ts";
import { bastionNodeAddresses, shootMachines } from "./access.ts";
import { machineHostname, machineName, machineOwner } from "./names.ts";
import { KUBELET_PORT } from "../network/networks.ts";
import { bastionAccessTable, kubeletAccessTable, podMasqueradeTable } from "./tables.ts";

export interface WorkerSpec {
  /** The shoot's control-plane namespace; its node network must have been ensured. */
  namespace: string;
  name: string;
  /** Run as root at boot (e.g. creating user gardener with the shoot's node key). */
  userData?: string;
  /** sshd_config keywords on top of host/'s defaults (default AllowUsers gardener). */
  sshdOptions?: Readonly<Record<string, SshdOptionValue>>;
  /** Wait for readiness (default true). */
  wait?: boolean;
  readyTimeoutMs?: number;
  /** Host directories the worker sees read-only at the same path (e.g. this checkout, for the node agent). */
  readOnlyBinds?: readonly string[];
  /** The worker runs pods: its pod range and the addresses its cluster's API server reaches the kubelet from. */
  kubelet?: { podCidr: string; controlPlane: readonly string[] };
}

/** The node interface of a worker (its only network). */
const NODE_IF = "eth0";

export interface Worker {
  machine: string;
  /** The worker's node address, without prefix length. */
  address: string;
  info: MachineInfo;
}

/** The worker's key in its node network's address pool (and pod routes). */
const workerKey = (name: string): string => `worker/${name}`;

export function workerMachineName(namespace: string, name: string): string {
  return machineName("worker", namespace, name);
}

/** Starts (or finds running) the worker; it accepts SSH only from the shoot's bastions. */
export async function startWorker(networks: LocalNetworks, spec: WorkerSpec): Promise<Worker> {
  const { host } = networks;
  const net = await networks.nodeNetwork(spec.namespace);
  if (!net) throw new Error(`the node network of ${spec.namespace} does not exist; ensure it first`);
  const machine = workerMachineName(spec.namespace, spec.name);
  const address = await networks.allocateNode(spec.namespace, workerKey(spec.name));
  // Under the shoot's lock: a bastion added meanwhile either is in this list or finds this worker's record.
  const started = await networks.exclusive(`machines/${spec.namespace}`, async () =>
    host.startMachine({
      name: machine,
      hostname: machineHostname("worker", spec.name),
      owner: machineOwner("worker", spec.namespace, spec.name),
      // A node with pods sends from its pod range too (the bridge guard lets it, as a cloud lets a VM that forwards).
      networks: [{ bridge: net.bridge, bridgeNetns: net.netns, address: `${address}/${net.prefixLength}`, gateway: net.gateway, interface: NODE_IF, ...(spec.kubelet ? { routed: [spec.kubelet.podCidr] } : {}) }],
      nftTables: [
        bastionAccessTable(await bastionNodeAddresses(host, net, networks.leavingBastions, networks.arrivingBastions)),
        ...(spec.kubelet ? [kubeletAccessTable(spec.kubelet.controlPlane, KUBELET_PORT), podMasqueradeTable(spec.kubelet.podCidr, NODE_IF)] : []),
      ],
      sshd: { options: spec.sshdOptions ?? { AllowUsers: "gardener" } },
      wait: false,
      ...(spec.userData !== undefined ? { userData: spec.userData } : {}),
      ...(spec.readOnlyBinds ? { readOnlyBinds: spec.readOnlyBinds } : {}),
    }),
  );
  if (spec.kubelet) await networks.routePods(spec.namespace, workerKey(spec.name), spec.kubelet.podCidr);
  const info = spec.wait === false ? started : await host.waitMachineReady(machine, spec.readyTimeoutMs);
  return { machine, address, info };
}

/** Stops the worker and releases its address. */
export async function stopWorker(networks: LocalNetworks, namespace: string, name: string): Promise<void> {
  await networks.host.stopMachine(workerMachineName(namespace, name));
  await networks.unroutePods(namespace, workerKey(name));
  await networks.release(nodePool(namespace), workerKey(name));
}

/** The shoot's worker machines (names), from the host records. */
export async function listWorkers(networks: LocalNetworks, namespace: string): Promise<string[]> {
  return (await shootMachines(networks.host, "worker", namespace)).map((m) => m.name).sort();
}
