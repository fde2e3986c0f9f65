// The reversed VPN with real OpenVPN in network namespaces: the vpn-shoot-client dials out through the
// seed's CONNECT proxy, and the control plane's VPN namespace reaches a shoot node through the tunnel.
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { cleanUpAndAssertNoLeaks } from "../../e2e/host/support.ts";
import { issueVpnCredentials, type VpnCredentials } from "../../../src/vpn/credentials.ts";
import { OpenVpnServer } from "../../../src/vpn/openvpn-server.ts";
import { ShootClient } from "../../../src/vpn/shootclient.ts";
import { CLIENT_ADDRESS, NAMESPACE, SHOOT_CIDRS, type Topology, buildTopology, fetchBanner, skipVpn, waitForBanner } from "./topology.ts";

describe("reversed VPN tunnel (OpenVPN in namespaces)", { skip: skipVpn }, () => {
  let top: Topology | undefined;
  let creds: VpnCredentials;
  let server: OpenVpnServer;
  let client: ShootClient;

  before(async () => {
    top = await buildTopology();
    const { host, stateDir } = top.t;
    creds = await issueVpnCredentials({ namespace: NAMESPACE, serverAddresses: [top.vpnAddress] });
    server = new OpenVpnServer({
      host,
      netns: top.vpnNs,
      seedInterface: "eth0",
      dir: join(stateDir, "vpn-seed-server"),
      processName: `vpn-seed-server.${NAMESPACE}`,
      local: top.vpnAddress,
      shootCidrs: SHOOT_CIDRS,
      credentials: { bundle: creds.bundle, server: creds.server, tlsAuth: creds.tlsAuth },
    });
    client = new ShootClient({
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
  });

  after(async () => {
    await client?.stop().catch(() => undefined);
    await server?.stop().catch(() => undefined);
    await top?.proxy.close();
    await cleanUpAndAssertNoLeaks(top?.t);
  });

  test("before the tunnel, nothing in the seed reaches the shoot node", async () => {
    await server.start();
    assert.equal(await fetchBanner(top!, top!.vpnNs, undefined), undefined);
    assert.equal(await fetchBanner(top!, top!.vpnNs, server.tunnelAddress), undefined);
  });

  test("the client dials out through the CONNECT proxy; the node answers the seed through the tunnel, masqueraded", async () => {
    await client.start();
    const { banner, ms } = await waitForBanner(top!, top!.vpnNs, server.tunnelAddress);
    assert.equal(banner, `hello from node-1 to ${CLIENT_ADDRESS}\n`);
    console.log(`# tunnel up ${ms} ms after the client started`);
  });

  test("a socket in the VPN namespace not bound to the tunnel address does not reach the shoot", async () => {
    assert.equal(await fetchBanner(top!, top!.vpnNs, undefined), undefined);
    const r = await top!.t.host.execInNetns(top!.vpnNs, "ip", ["route", "get", "10.250.0.10"], { okExitCodes: [0, 2] });
    assert.notEqual(r.exitCode, 0, `the main table has no route into the shoot: ${r.stdout}`);
  });

  test("the tunnel comes back after the client's openvpn is killed", async () => {
    const pid = client.pid;
    assert.ok(pid);
    process.kill(pid, "SIGKILL");
    const { banner, ms } = await waitForBanner(top!, top!.vpnNs, server.tunnelAddress);
    assert.match(banner, /^hello from node-1/);
    assert.equal(client.restarts, 1);
    assert.notEqual(client.pid, pid);
    console.log(`# tunnel back ${ms} ms after the client was killed`);
  });

  test("the tunnel comes back after the server's openvpn is killed", async () => {
    const pid = server.pid;
    assert.ok(pid);
    process.kill(pid, "SIGKILL");
    const { banner, ms } = await waitForBanner(top!, top!.vpnNs, server.tunnelAddress);
    assert.match(banner, /^hello from node-1/);
    assert.equal(server.restarts, 1);
    console.log(`# tunnel back ${ms} ms after the server was killed`);
  });
});
