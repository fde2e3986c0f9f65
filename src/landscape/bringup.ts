// The steps of a landscape's start that touch the host or write files: the host's cleanup and its end of
// the public network, the component context, the kubeconfigs, and the shoot's and seed's worker machines.
import { copyFileSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { oscSecretNameOf } from "../api/gardencore/osc.ts";
import { seedUserName } from "../api/gardencore/identity.ts";
import type { Shoot } from "../apis/gardencore/v1beta1/types.ts";
import { SEEDS_GROUP } from "../apis/gardencore/v1beta1/types.ts";
import { issueClientCertificate } from "../apiserver/certs/issue.ts";
import { writeKubeconfig } from "../apiserver/certs/kubeconfig.ts";
import type { Client } from "../client/client.ts";
import { LinuxHost } from "../host/index.ts";
import { Nodes } from "../nodeagent/node.ts";
import { FileAddressBook } from "../provider-local/network/addresses.ts";
import { LocalNetworks } from "../provider-local/network/networks.ts";
import * as c from "./components.ts";
import { writeGardenctlConfig } from "./gardenctl.ts";
import { type Layout, type Ports, killRecorded, MEMBER_USER, PROJECT_NAMESPACE, SEED_NODE_CIDR, SEED_NODE_NETWORK, SEED_POD_CIDR, SEED_WORKERS, SHOOT, SHOOT_POD_CIDR, SHOOT_TECHNICAL_ID, WORKER_POOL, WORKERS } from "./layout.ts";
import { startClusterNodes } from "./nodes.ts";
import { allowSeedNodesOSC, SEED_OSC_SECRET } from "./seednodes.ts";
import { forwardApiServerService } from "./services.ts";
import { clusterOf, workerBootstrapKubeconfig } from "./nodetokens.ts";

export interface RunOptions {
  layout: Layout;
  ports: Ports;
  prefix: string;
  /** The public network (provider-local's default when unset). */
  publicCidr?: string;
  log: (line: string) => void;
  /** The garden API server's `--bastion-time-to-live`; defaults to $GARDENER_LOCAL_BASTION_TIME_TO_LIVE (set by `up`). */
  bastionTimeToLive?: string;
  /** The seed's and shoot's `--node-monitor-grace-period`; defaults to $GARDENER_LOCAL_NODE_MONITOR_GRACE_PERIOD (set by `up`). */
  nodeMonitorGracePeriod?: string;
}

/** The host's end of the public network (a veth from the host namespace to the public bridge). */
export async function attachHost(networks: LocalNetworks): Promise<string> {
  const p = await networks.ensurePublic();
  const address = await networks.allocatePublic("host");
  const { host } = networks;
  await host.ensureVeth({
    name: host.names.link("host"), addresses: [`${address}/${p.prefixLength}`],
    peer: { name: host.names.link("hp"), netns: p.netns, master: p.bridge }, owner: "landscape/host",
  });
  return address;
}

export interface PreparedHost {
  host: LinuxHost;
  networks: LocalNetworks;
  /** The host's address on the public network. */
  hostAddress: string;
}

/** Removes what a crashed run left and attaches the host to a fresh public network. */
export async function prepareHost(o: RunOptions): Promise<PreparedHost> {
  const { layout, log } = o;
  killRecorded(layout, ["supervisor.pid"]);
  const host = new LinuxHost({ stateDir: layout.hostState, prefix: o.prefix });
  const leftovers = await host.removeAll();
  if (leftovers.removed.length > 0) log(`removed ${leftovers.removed.length} host objects left by an earlier run`);
  // Every address belonged to a host object just removed: an earlier run's allocations are stale.
  rmSync(join(layout.providerState, "addresses.json"), { force: true });
  const networks = new LocalNetworks({ host, addresses: new FileAddressBook(join(layout.providerState, "addresses.json")), ...(o.publicCidr ? { publicCidr: o.publicCidr } : {}) });
  const hostAddress = await attachHost(networks);
  log(`host address on the public network: ${hostAddress}`);
  // The seed API server reaches the seed's kubelets from this address (recorded before provider-local builds
  // anything); the shoot's are reached through the reversed VPN only.
  await networks.allowControlPlane(SEED_NODE_NETWORK, hostAddress);
  return { host, networks, hostAddress };
}

/** What every component's command line is built from. */
export function componentContext(o: RunOptions, hostAddress: string): c.ComponentContext {
  const bastionTimeToLive = c.bastionTimeToLiveOf(o.bastionTimeToLive);
  const nodeMonitorGracePeriod = o.nodeMonitorGracePeriod || process.env[c.NODE_GRACE_ENV] || undefined;
  const sshKeypairPoolSize = process.env[c.SSH_KEYPAIR_POOL_SIZE_ENV] || undefined;
  const bastionPoolSize = process.env[c.BASTION_POOL_SIZE_ENV] || undefined;
  const gardenletMetricsAddress = process.env[c.GARDENLET_METRICS_ENV] || undefined;
  if (bastionTimeToLive) o.log(`bastion time-to-live: ${bastionTimeToLive}`);
  return {
    layout: o.layout, ports: o.ports, hostAddress, prefix: o.prefix, ...(o.publicCidr ? { publicCidr: o.publicCidr } : {}), ...(bastionTimeToLive ? { bastionTimeToLive } : {}),
    ...(nodeMonitorGracePeriod ? { nodeMonitorGracePeriod } : {}), ...(sshKeypairPoolSize ? { sshKeypairPoolSize } : {}),
    ...(bastionPoolSize ? { bastionPoolSize } : {}),
    ...(gardenletMetricsAddress ? { gardenletMetricsAddress } : {}),
  };
}

export const adminKubeconfigOf = (layout: Layout, name: "garden" | "seed" | "shoot"): string => join(layout.apiServerDir(name), "admin.kubeconfig");

/** The users' kubeconfigs (garden and shoot admin, gardenlet, project member) and gardenctl's configuration. */
export async function writeKubeconfigs(o: RunOptions, networks: LocalNetworks): Promise<void> {
  const { layout } = o;
  copyFileSync(adminKubeconfigOf(layout, "garden"), layout.gardenKubeconfig);
  copyFileSync(adminKubeconfigOf(layout, "shoot"), layout.shootKubeconfig);
  const pki = join(layout.apiServerDir("garden"), "pki");
  const ca = { certPem: readFileSync(join(pki, "ca.crt"), "utf8"), keyPem: readFileSync(join(pki, "ca.key"), "utf8") };
  const gardenUrl = `https://127.0.0.1:${o.ports.garden}`;
  const kubeconfig = async (path: string, user: string, groups: string[], namespace?: string): Promise<void> =>
    writeKubeconfig(path, { server: gardenUrl, caPem: ca.certPem, clusterName: "garden", userName: user, user: await issueClientCertificate(ca, { commonName: user, organizations: groups }), ...(namespace ? { namespace } : {}) });
  await kubeconfig(layout.gardenletKubeconfig, seedUserName("local"), [SEEDS_GROUP]);
  await kubeconfig(layout.memberKubeconfig, MEMBER_USER, [], PROJECT_NAMESPACE);
  writeGardenctlConfig(layout, networks.public.gateway);
  o.log("kubeconfigs written");
}

export const shootNodeName = (w: string): string => `${SHOOT_TECHNICAL_ID}-${WORKER_POOL}-${w}`;
export const seedNodeName = (w: string): string => `${SEED_NODE_NETWORK}-${WORKER_POOL}-${w}`;

/**
 * Starts the shoot's workers (each with a bootstrap token of its own; their kubelets admit connections from
 * `shootKubeletClient`, the vpn-shoot-client's address) and the seed's worker.
 */
export async function startWorkers(o: RunOptions, prepared: PreparedHost, clients: { seed: Client; shoot: Client }, shootObject: Shoot, shootKubeletClient: string): Promise<void> {
  const { layout, log } = o;
  const { networks, hostAddress } = prepared;
  const { seed, shoot } = clients;
  // The machines are new (fresh host keys): Nodes of an earlier run must not count as registered.
  for (const cl of [shoot, seed]) for (const n of (await cl.list(Nodes)).items) await cl.delete(Nodes, { name: n.metadata.name! }).catch(() => undefined);
  // No worker holds an admin kubeconfig: each gets a bootstrap token of its own (docs/node-bootstrap.md#the-local-landscape).
  const shootCluster = clusterOf(readFileSync(layout.shootKubeconfig, "utf8"));
  const pool = shootObject.spec.provider.workers?.find((x) => x.name === WORKER_POOL);
  if (!pool) throw new Error(`shoot ${SHOOT} has no worker pool ${WORKER_POOL}`);
  const secretName = oscSecretNameOf(shootObject, pool);
  await networks.ensureNodeNetwork(SEED_NODE_NETWORK, SEED_NODE_CIDR);
  // Pods reach their API server as kubernetes.default.svc:443 (web terminals' kubeconfigs do).
  await forwardApiServerService(prepared.host, networks, SHOOT_TECHNICAL_ID, hostAddress, o.ports.shoot);
  await forwardApiServerService(prepared.host, networks, SEED_NODE_NETWORK, hostAddress, o.ports.seed);
  const seedCluster = clusterOf(readFileSync(adminKubeconfigOf(layout, "seed"), "utf8"));
  await allowSeedNodesOSC(seed);
  await Promise.all([
    startClusterNodes(networks, hostAddress, {
      namespace: SHOOT_TECHNICAL_ID, podCidr: shootObject.spec.networking?.pods ?? SHOOT_POD_CIDR, workers: WORKERS, nodeName: shootNodeName,
      credentials: async (nodeName) => ({ bootstrapKubeconfig: await workerBootstrapKubeconfig(shoot, { nodeName, cluster: shootCluster, nowMs: Date.now() }), secretName }),
      hostRoutes: false, kubeletClient: shootKubeletClient,
    }, log),
    // The seed's worker (it hosts operators' terminals): a schedulable Node of the seed cluster, joining with a
    // bootstrap token as the shoot's do, so its kubelet gets a serving certificate and serves attach (10250).
    startClusterNodes(networks, hostAddress, {
      namespace: SEED_NODE_NETWORK, podCidr: SEED_POD_CIDR, workers: SEED_WORKERS, nodeName: seedNodeName,
      credentials: async (nodeName) => ({ bootstrapKubeconfig: await workerBootstrapKubeconfig(seed, { nodeName, cluster: seedCluster, nowMs: Date.now() }), secretName: SEED_OSC_SECRET }),
      hostRoutes: true,
    }, log),
  ]);
}
