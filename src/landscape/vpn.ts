// The landscape's reversed VPN (docs/reversed-vpn.md#the-local-landscape): the shoot's control plane reaches its
// nodes only through a tunnel the shoot opens. On the host: the seed network (a bridge, SEED_VPN_CIDR), the
// control plane's VPN namespace on it with the vpn-seed-server (OpenVPN server, egress proxy), and the
// seed's Service and Endpoints `vpn-seed-server` that make it known to the seed CONNECT proxy (a component,
// on the host's public address). In the shoot's node network: the vpn-shoot-client's namespace, which dials
// the proxy through the router's NAT. The shoot API server sends its kubelet traffic to the egress proxy
// (--egress-selector-config-file); no host route and no router exception reach the shoot's nodes.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { EC_P256 } from "../apiserver/certs/keys.ts";
import type { KubeObject } from "../apis/meta/v1/types.ts";
import { Endpoints, Services } from "../client/builtins.ts";
import type { Client } from "../client/client.ts";
import { unlessNotFound } from "../client/helpers.ts";
import { formatCidr, parseCidr } from "../host/cidr.ts";
import type { LocalNetworks } from "../provider-local/network/networks.ts";
import { issueVpnCredentials, type VpnCredentials } from "../vpn/credentials.ts";
import { SeedServerDeployment } from "../vpn/deployment.ts";
import { DEFAULT_TRANSFER_NETWORK, haName, SEED_SERVER_CN, SHOOT_CLIENT_CN } from "../vpn/openvpn-config.ts";
import { SERVER_LABEL, VPN_PORT } from "../vpn/servers.ts";
import { ShootClient, ShootHealthProcess } from "../vpn/shootclient.ts";
import type { Layout } from "./layout.ts";
import { SHOOT_TECHNICAL_ID } from "./layout.ts";

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


export const vpnDir = (layout: Layout): string => layout.path("vpn");
export const egressSelectorConfigOf = (layout: Layout): string => join(vpnDir(layout), "egress-selector.yaml");

/**
 * Issues the control plane's VPN credentials and writes what the shoot API server needs at its start: the
 * egress client's certificate and the EgressSelectorConfiguration whose `cluster` traffic goes through the
 * egress proxy. ECDSA keys: RSA 3072 takes seconds per key on a busy machine; OpenVPN takes either.
 */
export async function prepareVpn(layout: Layout, highAvailability: boolean): Promise<VpnCredentials> {
  const creds = await issueVpnCredentials({ namespace: SHOOT_TECHNICAL_ID, serverAddresses: serverAddresses(highAvailability), highAvailability, alg: EC_P256 });
  const dir = join(vpnDir(layout), "egress");
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = (name: string, text: string): string => (writeFileSync(join(dir, name), text, { mode: 0o600 }), join(dir, name));
  const tls = { caBundle: file("ca.crt", creds.bundle), clientCert: file("tls.crt", creds.egressClient.certPem), clientKey: file("tls.key", creds.egressClient.keyPem) };
  // Serialised, not pasted together: JSON is YAML, and no path (a state directory may hold any character) can break it.
  const config = {
    apiVersion: "apiserver.k8s.io/v1beta1",
    kind: "EgressSelectorConfiguration",
    egressSelections: [
      { name: "cluster", connection: { proxyProtocol: "HTTPConnect", transport: { tcp: { url: `https://${VPN_SERVER_ADDRESS}:${EGRESS_PORT}`, tlsConfig: tls } } } },
      { name: "controlplane", connection: { proxyProtocol: "Direct" } },
    ],
  };
  writeFileSync(egressSelectorConfigOf(layout), JSON.stringify(config, null, 2) + "\n", { mode: 0o600 });
  return creds;
}

const serverAddresses = (highAvailability: boolean): string[] => (highAvailability ? [VPN_SERVER_ADDRESS, VPN_SERVER_ADDRESS_1] : [VPN_SERVER_ADDRESS]);

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
  seed: Client;
  creds: VpnCredentials;
  /** The host's public address: the seed CONNECT proxy listens there. */
  hostAddress: string;
  /** The shoot's node network (ensured) and the ranges the tunnel carries. */
  nodeCidr: string;
  shootCidrs: readonly string[];
  /** Two servers and two tunnels; the credentials must have been issued for it. */
  highAvailability: boolean;
}

/** Builds the seed network and the VPN namespaces, starts both ends and publishes the server to the seed. */
export async function startVpn(o: StartVpnOptions): Promise<LandscapeVpn> {
  const { host } = o.networks;
  const bridge = host.names.link("seed");
  const vpnNs = host.names.netns("vpn", SHOOT_TECHNICAL_ID);
  await host.ensureBridge({ name: bridge, addresses: [`${SEED_VPN_GATEWAY}/${parseCidr(SEED_VPN_CIDR).prefix}`], owner: OWNER });
  await host.ensureNetns(vpnNs, { owner: OWNER });
  const locals = serverAddresses(o.highAvailability);
  await host.ensureVeth({ name: "eth0", netns: vpnNs, addresses: locals.map((a) => `${a}/${parseCidr(SEED_VPN_CIDR).prefix}`), peer: { name: host.names.link("vpn", SHOOT_TECHNICAL_ID), master: bridge }, owner: OWNER });
  const seedServer = new SeedServerDeployment({
    host, netns: vpnNs, seedInterface: "eth0", locals, highAvailability: o.highAvailability, namespace: SHOOT_TECHNICAL_ID,
    dir: join(vpnDir(o.layout), "vpn-seed-server"), transferNetwork: DEFAULT_TRANSFER_NETWORK, shootCidrs: o.shootCidrs,
    credentials: { bundle: o.creds.bundle, server: o.creds.server, tlsAuth: o.creds.tlsAuth },
  });
  await seedServer.start();
  await publishSeedServer(o.seed, o.highAvailability);

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
    const client = o.creds.clients[cn];
    if (!client) throw new Error(`the VPN credentials have no client certificate ${cn}`);
    return new ShootClient({
      host, netns: clientNs, nodeInterface: "eth0", nodeNetwork: formatCidr(parseCidr(o.nodeCidr)), dir: index === undefined ? dir : `${dir}-${index}`,
      processName: `${cn}.${SHOOT_TECHNICAL_ID}`, namespace: SHOOT_TECHNICAL_ID, proxyHost: o.hostAddress, proxyPort: CONNECT_PROXY_PORT, shootCidrs: o.shootCidrs,
      ...(index !== undefined ? { index } : {}), credentials: { bundle: o.creds.bundle, client, tlsAuth: o.creds.tlsAuth },
    });
  });
  const health = new ShootHealthProcess({ host, netns: clientNs, listenAddress: clientAddress, namespace: SHOOT_TECHNICAL_ID, dir, clients });
  for (const c of clients) await c.start();
  await health.start();
  return {
    seedServer, clients, clientAddress,
    stop: async () => {
      await health.stop().catch(() => undefined);
      for (const c of clients) await c.stop().catch(() => undefined);
      await seedServer.stop().catch(() => undefined);
    },
  };
}

type Port = { name: string; port: number; protocol: "TCP" };
const openvpnPort: Port = { name: "vpn-seed-server", port: VPN_PORT, protocol: "TCP" };
const proxyPorts: Port[] = [{ name: "http-proxy", port: EGRESS_PORT, protocol: "TCP" }, { name: "metrics", port: 15000, protocol: "TCP" }];

/**
 * The headless Services and Endpoints in the control-plane namespace (created or replaced): plain,
 * `vpn-seed-server` with 1194, 9443 and 15000; HA, `vpn-seed-server-0` and `-1` with 1194 each, and
 * `vpn-seed-server` with 9443 and 15000.
 */
async function publishSeedServer(seed: Client, highAvailability: boolean): Promise<void> {
  const published: [string, string, Port[]][] = highAvailability
    ? [[haName(SEED_SERVER_CN, 0), VPN_SERVER_ADDRESS, [openvpnPort]], [haName(SEED_SERVER_CN, 1), VPN_SERVER_ADDRESS_1, [openvpnPort]], [SEED_SERVER_CN, VPN_SERVER_ADDRESS, proxyPorts]]
    : [[SEED_SERVER_CN, VPN_SERVER_ADDRESS, [openvpnPort, ...proxyPorts]]];
  const stale = highAvailability ? [] : [haName(SEED_SERVER_CN, 0), haName(SEED_SERVER_CN, 1)];
  for (const type of [Services, Endpoints]) for (const name of stale) await unlessNotFound(seed.delete(type, { namespace: SHOOT_TECHNICAL_ID, name }));
  for (const [name, ip, ports] of published) {
    const metadata = { name, namespace: SHOOT_TECHNICAL_ID, labels: { ...SERVER_LABEL } };
    const service = { apiVersion: "v1", kind: "Service", metadata, spec: { clusterIP: "None", ports } } as KubeObject;
    const endpoints = { apiVersion: "v1", kind: "Endpoints", metadata, subsets: [{ addresses: [{ ip }], ports }] } as KubeObject;
    for (const [type, obj] of [[Services, service], [Endpoints, endpoints]] as const) {
      // An earlier run's objects name an earlier run's address: replaced, never merged.
      await unlessNotFound(seed.delete(type, { namespace: SHOOT_TECHNICAL_ID, name }));
      await seed.create(type, obj);
    }
  }
}
