// The landscape's reversed VPN (docs/reversed-vpn.md#the-local-landscape): the shoot's control plane reaches its
// nodes only through a tunnel the shoot opens. On the host: the seed network (a bridge, SEED_VPN_CIDR) and the
// control plane's VPN namespace on it with the vpn-seed-server (OpenVPN servers, egress proxy); the seed CONNECT
// proxy (a component, on the host's public address) knows it from the gardenlet's Endpoints. In the shoot's node
// network: the vpn-shoot-client's namespace, which dials the proxy through the router's NAT. The shoot API server
// sends its kubelet traffic to the egress proxy (--egress-selector-config-file); no host route and no router
// exception reach the shoot's nodes. The gardenlet owns the credentials, Services and Endpoints; the landscape
// runs the processes from its Secrets (as a kubelet mounts them) and gives the gardenlet the addresses.
import { join } from "node:path";
import type { Client } from "../client/client.ts";
import { formatCidr, parseCidr } from "../host/cidr.ts";
import type { LocalNetworks } from "../provider-local/network/networks.ts";
import { SeedServerDeployment } from "../vpn/deployment.ts";
import { DEFAULT_TRANSFER_NETWORK, haName, SHOOT_CLIENT_CN } from "../vpn/openvpn-config.ts";
import type { ServerCredentials } from "../vpn/openvpn-server.ts";
import { ShootClient, ShootHealthProcess } from "../vpn/shootclient.ts";
import type { Layout } from "./layout.ts";
import { SHOOT_TECHNICAL_ID } from "./layout.ts";
import { vpnDir, writeEgress } from "./vpnegress.ts";
import { VpnShootPodWriter, healthFromNetns } from "./vpnpod.ts";
import { SecretFollower, waitForSecrets } from "./vpnfollow.ts";
import { type EgressCredentials, type ShootClientCredentials, readEgressCredentials, readServerCredentials, readShootClientCredentials } from "./vpnsecrets.ts";

/** The seed network: the last /24 of the seed's pod network (SEED_POD_CIDR), never a worker's. */
export const SEED_VPN_CIDR = "10.1.255.0/24";
export const SEED_VPN_GATEWAY = "10.1.255.1";
/** The shoot control plane's VPN namespace on the seed network (OpenVPN 1194, egress 9443, health 15000). */
export const VPN_SERVER_ADDRESS = "10.1.255.2";
/** In HA, vpn-seed-server-1's OpenVPN server listens on the namespace's second address. */
export const VPN_SERVER_ADDRESS_1 = "10.1.255.3";
/**
 * The landscape's shoot runs its VPN highly available (two servers, two tunnels), as its annotation
 * ANNOTATION_HA_VPN says: what a production control plane runs, and one tunnel can be killed in tests.
 */
export const LANDSCAPE_VPN_HA = true;
export const EGRESS_PORT = 9443;
export const CONNECT_PROXY_PORT = 8132;
const OWNER = "landscape/vpn";


export const vpnServerAddresses = (highAvailability: boolean): string[] => (highAvailability ? [VPN_SERVER_ADDRESS, VPN_SERVER_ADDRESS_1] : [VPN_SERVER_ADDRESS]);

export interface LandscapeVpn {
  seedServer: SeedServerDeployment;
  /** One client per tunnel (two in HA). */
  clients: ShootClient[];
  /** The vpn-shoot-client's address on the shoot's node network. */
  clientAddress: string;
  stop(): Promise<void>;
}

export interface StartVpnOptions {
  layout: Layout;
  networks: LocalNetworks;
  /** The seed (the gardenlet's Secrets in the control-plane namespace) and the shoot (its copies in kube-system). */
  seed: Client;
  shoot: Client;
  /** The host's public address: the seed CONNECT proxy listens there. */
  hostAddress: string;
  /** The shoot's node network (ensured) and the ranges the tunnel carries. */
  nodeCidr: string;
  shootCidrs: readonly string[];
  /** Two servers and two tunnels, as the gardenlet's Secrets are for. */
  highAvailability: boolean;
  /** Whether the shoot API server runs with the egress files (an earlier `up` wrote them). */
  shootApiServerHasEgress: boolean;
  /** Restarts the shoot API server (it reads the egress files at its start) and waits until it answers. */
  restartShootApiServer(): Promise<void>;
  log: (line: string) => void;
  /** The first wait for each set of Secrets (default FIRST_WAIT_MS). */
  secretsTimeoutMs?: number;
}

/**
 * Builds the seed network and the VPN namespaces and starts both ends from the gardenlet's Secrets (waiting for
 * them), points the shoot API server at the egress proxy, and keeps all three following the Secrets.
 */
export async function startVpn(o: StartVpnOptions): Promise<LandscapeVpn> {
  const { host } = o.networks;
  const wait = { log: o.log, ...(o.secretsTimeoutMs !== undefined ? { timeoutMs: o.secretsTimeoutMs } : {}) };
  const bridge = host.names.link("seed");
  const vpnNs = host.names.netns("vpn", SHOOT_TECHNICAL_ID);
  await host.ensureBridge({ name: bridge, addresses: [`${SEED_VPN_GATEWAY}/${parseCidr(SEED_VPN_CIDR).prefix}`], owner: OWNER });
  await host.ensureNetns(vpnNs, { owner: OWNER });
  const locals = vpnServerAddresses(o.highAvailability);
  await host.ensureVeth({ name: "eth0", netns: vpnNs, addresses: locals.map((a) => `${a}/${parseCidr(SEED_VPN_CIDR).prefix}`), peer: { name: host.names.link("vpn", SHOOT_TECHNICAL_ID), master: bridge }, owner: OWNER });

  const seedSecrets = `the gardenlet's VPN Secrets in the seed's ${SHOOT_TECHNICAL_ID}`;
  const serverCreds = await waitForSecrets(seedSecrets, () => readServerCredentials(o.seed, SHOOT_TECHNICAL_ID), wait);
  const egress = await waitForSecrets(`the egress selector ConfigMap and Secrets in the seed's ${SHOOT_TECHNICAL_ID}`, () => readEgressCredentials(o.seed, SHOOT_TECHNICAL_ID), wait);
  if ((await writeEgress(o.layout, egress)) || !o.shootApiServerHasEgress) await o.restartShootApiServer();
  const seedServer = new SeedServerDeployment({
    host, netns: vpnNs, seedInterface: "eth0", locals, highAvailability: o.highAvailability, namespace: SHOOT_TECHNICAL_ID,
    dir: join(vpnDir(o.layout), "vpn-seed-server"), transferNetwork: DEFAULT_TRANSFER_NETWORK, shootCidrs: o.shootCidrs, credentials: serverCreds,
  });
  await seedServer.start();

  const clientCreds = await waitForSecrets("the gardenlet's VPN Secrets in the shoot's kube-system", () => readShootClientCredentials(o.shoot, o.highAvailability), wait);
  const net = await o.networks.nodeNetwork(SHOOT_TECHNICAL_ID);
  if (!net) throw new Error(`the node network of ${SHOOT_TECHNICAL_ID} does not exist`);
  const clientAddress = await o.networks.allocateNode(SHOOT_TECHNICAL_ID, SHOOT_CLIENT_CN);
  const clientNs = host.names.netns("vpnshoot", SHOOT_TECHNICAL_ID);
  await host.ensureNetns(clientNs, { owner: OWNER });
  await host.ensureVeth({ name: "eth0", netns: clientNs, addresses: [`${clientAddress}/${net.prefixLength}`], peer: { name: host.names.link("vs", SHOOT_TECHNICAL_ID), netns: net.netns, master: net.bridge }, owner: OWNER });
  await host.ensureRoute({ netns: clientNs, destination: "default", via: net.gateway, dev: "eth0", owner: OWNER });
  const dir = join(vpnDir(o.layout), "vpn-shoot-client");
  const clients = (o.highAvailability ? [0, 1] : [undefined]).map((index) => {
    const cn = haName(SHOOT_CLIENT_CN, index);
    return new ShootClient({
      host, netns: clientNs, nodeInterface: "eth0", nodeNetwork: formatCidr(parseCidr(o.nodeCidr)), dir: index === undefined ? dir : `${dir}-${index}`,
      processName: `${cn}.${SHOOT_TECHNICAL_ID}`, namespace: SHOOT_TECHNICAL_ID, proxyHost: o.hostAddress, proxyPort: CONNECT_PROXY_PORT, shootCidrs: o.shootCidrs,
      ...(index !== undefined ? { index } : {}), credentials: clientCreds[cn]!,
    });
  });
  const health = new ShootHealthProcess({ host, netns: clientNs, listenAddress: clientAddress, namespace: SHOOT_TECHNICAL_ID, dir, clients });
  for (const c of clients) await c.start();
  await health.start();
  // The vpn-shoot Pod the gardenlet's tunnel check looks for, as a kubelet would mirror these processes.
  const pod = new VpnShootPodWriter({
    shoot: o.shoot, address: clientAddress, log: o.log,
    running: () => health.running(), healthy: () => healthFromNetns(host, clientNs, clientAddress),
    restarts: () => health.restarts + clients.reduce((n, c) => n + c.restarts, 0),
  });
  await pod.start();
  const follower = followVpnSecrets({
    seed: o.seed, shoot: o.shoot, namespace: SHOOT_TECHNICAL_ID, highAvailability: o.highAvailability, seedServer, clients, log: o.log,
    current: { server: serverCreds, egress, clients: clientCreds }, egress: { layout: o.layout, restartShootApiServer: o.restartShootApiServer },
  });
  return {
    seedServer, clients, clientAddress,
    stop: async () => {
      await follower.stop();
      await pod.stop();
      await health.stop().catch(() => undefined);
      for (const c of clients) await c.stop().catch(() => undefined);
      await seedServer.stop().catch(() => undefined);
    },
  };
}

export interface FollowOptions {
  seed: Client;
  shoot: Client;
  /** The control-plane namespace. */
  namespace: string;
  highAvailability: boolean;
  seedServer: SeedServerDeployment;
  clients: readonly ShootClient[];
  /** What the processes run with now. */
  current: { server: ServerCredentials; egress: EgressCredentials; clients: ShootClientCredentials };
  /** New egress files (written when they changed) are taken up by restarting the shoot API server. */
  egress: { layout: Layout; restartShootApiServer(): Promise<void> };
  log: (line: string) => void;
  intervalMs?: number;
}

/**
 * Renewals and CA rotations by the gardenlet reach the processes: new server credentials restart the OpenVPN
 * servers and the vpn-seed-server process, new egress files the shoot API server, new client copies the
 * OpenVPN clients.
 */
export function followVpnSecrets(o: FollowOptions): { stop(): Promise<void> } {
  const common = { log: o.log, ...(o.intervalMs !== undefined ? { intervalMs: o.intervalMs } : {}) };
  const server = new SecretFollower<ServerCredentials>({ ...common, what: "the vpn-seed-server's Secrets", read: () => readServerCredentials(o.seed, o.namespace), apply: (c) => o.seedServer.renew(c) });
  const egress = new SecretFollower<EgressCredentials>({
    ...common, what: "the shoot API server's egress Secrets", read: () => readEgressCredentials(o.seed, o.namespace),
    apply: async (e) => {
      if (await writeEgress(o.egress.layout, e)) await o.egress.restartShootApiServer();
    },
  });
  const clients = new SecretFollower<ShootClientCredentials>({
    ...common, what: "the vpn-shoot-client's Secrets", read: () => readShootClientCredentials(o.shoot, o.highAvailability),
    apply: async (creds) => {
      for (const c of o.clients) await c.renew(creds[c.clientCn]!);
    },
  });
  server.start(o.current.server);
  egress.start(o.current.egress);
  clients.start(o.current.clients);
  return { stop: async () => void (await Promise.all([server.stop(), egress.stop(), clients.stop()])) };
}
