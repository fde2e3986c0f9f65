// The landscape's worker machines as Kubernetes nodes (docs/machines.md#pods-on-workers): the shoot's
// workers and the seed's own worker run their node agent as kubelet, each with a /24 of its cluster's pod
// network. The seed API server reaches the seed's kubelets over host routes to the workers' node
// addresses, through the node network's router (which lets the host's address in to port 10250 only); the
// shoot API server reaches the shoot's through the reversed VPN (vpn.ts), with no host route.
import { Leases } from "../client/builtins.ts";
import type { Client } from "../client/client.ts";
import { formatCidr, network, parseCidr } from "../host/cidr.ts";
import type { Node } from "../apis/core/v1/types.ts";
import { Nodes } from "../nodeagent/node.ts";
import { NODE_LEASE_NAMESPACE } from "../nodeagent/kubelet/heartbeat.ts";
import { startWorker } from "../provider-local/machines/workers.ts";
import type { LocalNetworks } from "../provider-local/network/networks.ts";
import * as c from "./components.ts";
import { NODE_POD_PREFIX_LENGTH, WORKER_POOL } from "./layout.ts";

/** The `index`th /24 (NODE_POD_PREFIX_LENGTH) of a cluster's pod network: 100.96.0.0/11, 1 -> 100.96.1.0/24. */
export function nodePodCidr(range: string, index: number, prefixLength = NODE_POD_PREFIX_LENGTH): string {
  const r = network(parseCidr(range));
  if (r.family !== 4) throw new Error(`pod network ${range}: only IPv4 is supported`);
  if (prefixLength < r.prefix) throw new Error(`pod network ${range} is smaller than a /${prefixLength}`);
  if (!Number.isInteger(index) || index < 0 || index >= 2 ** (prefixLength - r.prefix)) throw new Error(`pod network ${range} has no ${index}th /${prefixLength}`);
  return formatCidr({ family: 4, value: r.value + (BigInt(index) << BigInt(32 - prefixLength)), prefix: prefixLength });
}

export interface ClusterNodes {
  /** The node network's key (a shoot's technical ID, or the seed's SEED_NODE_NETWORK). */
  namespace: string;
  /** The cluster's pod network; worker i gets its i-th /24. */
  podCidr: string;
  workers: readonly string[];
  /** A node agent's credentials: a kubeconfig, or a bootstrap kubeconfig and its OSC Secret. */
  credentials: (nodeName: string) => Promise<Pick<c.WorkerUserDataOptions, "kubeconfig" | "bootstrapKubeconfig" | "secretName">>;
  /** The name of worker `w`'s Node. */
  nodeName: (w: string) => string;
  /** Route each worker's node address from the host through the network's router (the seed's; not a shoot's). */
  hostRoutes: boolean;
  /** Where the API server's connections to the kubelets come from: the host, or the vpn-shoot-client (default: the host). */
  kubeletClient?: string;
}

/**
 * Starts the cluster's workers (their node network must be ensured, with allowControlPlane(hostAddress)
 * recorded where hostRoutes) and with hostRoutes routes each worker's node address from the host through
 * the network's router.
 */
export async function startClusterNodes(networks: LocalNetworks, hostAddress: string, n: ClusterNodes, log: (line: string) => void): Promise<void> {
  const router = await networks.routerAddress(n.namespace);
  if (n.hostRoutes && !router) throw new Error(`the node network of ${n.namespace} has no router address`);
  const { host } = networks;
  await Promise.all(
    n.workers.map(async (w, i) => {
      const podCIDR = nodePodCidr(n.podCidr, i);
      const worker = await startWorker(networks, {
        namespace: n.namespace, name: w, readyTimeoutMs: 60_000,
        userData: c.workerUserData({ ...(await n.credentials(n.nodeName(w))), nodeName: n.nodeName(w), pool: WORKER_POOL, podCIDR }),
        kubelet: { podCidr: podCIDR, controlPlane: [n.kubeletClient ?? hostAddress] },
        // The node agent runs from this checkout: the workers see its code, read-only, and nothing else of it.
        readOnlyBinds: c.nodeAgentCode(),
      });
      // Only this address, not the whole node network: the host's own networks stay as they are.
      if (n.hostRoutes) await host.ensureRoute({ destination: `${worker.address}/32`, via: router!, dev: host.names.link("host"), owner: "landscape/host" });
      log(`machine ${worker.machine} ready at ${worker.address} (pods ${podCIDR})`);
    }),
  );
}

/** True when the Node is Ready and its kubelet renewed its Lease within the Lease's duration. */
export function nodeReady(node: Node, lease: { spec?: { renewTime?: string; leaseDurationSeconds?: number } } | undefined, now = Date.now()): boolean {
  const ready = node.status?.conditions?.find((x) => x.type === "Ready")?.status === "True";
  const renew = Date.parse(lease?.spec?.renewTime ?? "");
  return ready && Number.isFinite(renew) && now - renew <= (lease?.spec?.leaseDurationSeconds ?? 40) * 1000;
}

/** The names of the Nodes among `names` that are Ready with a fresh Lease. */
export async function readyNodes(client: Client, names: readonly string[]): Promise<string[]> {
  const nodes = (await client.list(Nodes)).items.filter((x) => names.includes(x.metadata.name!));
  const out: string[] = [];
  for (const node of nodes) {
    const lease = await client.get(Leases, { namespace: NODE_LEASE_NAMESPACE, name: node.metadata.name! }).catch(() => undefined);
    if (nodeReady(node, lease)) out.push(node.metadata.name!);
  }
  return out.sort();
}

/** True when the cluster's scheduler holds its leader Lease (kube-system/kube-scheduler) and renewed it lately. */
export async function schedulerRunning(client: Client, now = Date.now()): Promise<boolean> {
  const lease = await client.get(Leases, { namespace: "kube-system", name: "kube-scheduler" }).catch(() => undefined);
  const renew = Date.parse(lease?.spec?.renewTime ?? "");
  return !!lease?.spec?.holderIdentity && Number.isFinite(renew) && now - renew <= (lease.spec.leaseDurationSeconds ?? 15) * 1000;
}
