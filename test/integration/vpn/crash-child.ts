// Run by crash.test.ts as a separate process: builds the seed and shoot, starts the vpn-seed-server and the
// vpn-shoot-client, waits for the tunnel, says "built", and is then killed with SIGKILL (a crashed gardenlet).
// usage: node --import tsx crash-child.ts <stateDir> <prefix>
import { join } from "node:path";
import { LinuxHost } from "../../../src/host/index.ts";
import { EC_P256 } from "../../../src/apiserver/certs/keys.ts";
import { issueVpnCredentials } from "../../../src/vpn/credentials.ts";
import { SeedServerDeployment } from "../../../src/vpn/deployment.ts";
import { ShootClient } from "../../../src/vpn/shootclient.ts";
import { NamespaceTracker } from "../../e2e/host/support.ts";
import { NAMESPACE, SHOOT_CIDRS, buildTopology, waitForBanner } from "./topology.ts";

const [stateDir, prefix] = process.argv.slice(2);
if (!stateDir || !prefix) throw new Error("usage: crash-child.ts <stateDir> <prefix>");
const host = new LinuxHost({ stateDir, prefix });
const top = await buildTopology({ host, stateDir, prefix, before: { netns: [], links: [], mounts: [] }, tracker: new NamespaceTracker() });
const creds = await issueVpnCredentials({ namespace: NAMESPACE, serverAddresses: [top.vpnAddress], alg: EC_P256 });
const deployment = new SeedServerDeployment({
  host,
  netns: top.vpnNs,
  seedInterface: "eth0",
  locals: [top.vpnAddress],
  namespace: NAMESPACE,
  dir: join(stateDir, "vpn-seed-server"),
  transferNetwork: "192.168.123.0/24",
  shootCidrs: SHOOT_CIDRS,
  credentials: { bundle: creds.bundle, server: creds.server, tlsAuth: creds.tlsAuth },
});
const client = new ShootClient({
  host,
  netns: top.clientNs,
  nodeInterface: "eth0",
  nodeNetwork: "10.250.0.0/16",
  dir: join(stateDir, "vpn-shoot-client"),
  processName: `vpn-shoot-client.${NAMESPACE}`,
  namespace: NAMESPACE,
  proxyHost: top.proxyAddress,
  shootCidrs: SHOOT_CIDRS,
  credentials: { bundle: creds.bundle, client: creds.clients["vpn-shoot-client"]!, tlsAuth: creds.tlsAuth },
});
await deployment.start();
await client.start();
await waitForBanner(top, top.vpnNs, deployment.openvpn.tunnelAddress);
process.stdout.write("built\n");
setInterval(() => undefined, 60_000);
