// HA: two OpenVPN servers in the VPN namespace, two tunnels from one vpn-shoot-client namespace; the egress
// proxy fails over when the selected tunnel's server is killed.
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { EC_P256 } from "../../../src/apiserver/certs/keys.ts";
import { issueVpnCredentials, type VpnCredentials } from "../../../src/vpn/credentials.ts";
import { SeedServerDeployment } from "../../../src/vpn/deployment.ts";
import { ShootClient } from "../../../src/vpn/shootclient.ts";
import { cleanUpAndAssertNoLeaks } from "../../e2e/host/support.ts";
import { CLIENT_ADDRESS, NAMESPACE, SHOOT_CIDRS, type Topology, buildTopology, egressConnect, health, skipVpn, waitFor } from "./topology.ts";

const BANNER = `HTTP/1.1 200 Connection established\r\n\r\nhello from node-1 to ${CLIENT_ADDRESS}\n`;

describe("reversed VPN in HA (two servers, two tunnels)", { skip: skipVpn }, () => {
  let top: Topology | undefined;
  let creds: VpnCredentials;
  let deployment: SeedServerDeployment;
  let clients: ShootClient[] = [];

  before(async () => {
    top = await buildTopology(undefined, { highAvailability: true });
    const { host, stateDir } = top.t;
    creds = await issueVpnCredentials({ namespace: NAMESPACE, serverAddresses: top.vpnAddresses, highAvailability: true, alg: EC_P256 });
    deployment = new SeedServerDeployment({
      host,
      netns: top.vpnNs,
      seedInterface: "eth0",
      locals: top.vpnAddresses,
      highAvailability: true,
      namespace: NAMESPACE,
      dir: join(stateDir, "vpn-seed-server"),
      transferNetwork: "192.168.123.0/24",
      shootCidrs: SHOOT_CIDRS,
      credentials: { bundle: creds.bundle, server: creds.server, tlsAuth: creds.tlsAuth },
    });
    clients = [0, 1].map(
      (index) =>
        new ShootClient({
          host,
          netns: top!.clientNs,
          nodeInterface: "eth0",
          nodeNetwork: "10.250.0.0/16",
          dir: join(stateDir, `vpn-shoot-client-${index}`),
          processName: `vpn-shoot-client.${NAMESPACE}.${index}`,
          namespace: NAMESPACE,
          index,
          proxyHost: top!.proxyAddress,
          shootCidrs: SHOOT_CIDRS,
          credentials: { bundle: creds.bundle, client: creds.clients[`vpn-shoot-client-${index}`]!, tlsAuth: creds.tlsAuth },
        }),
    );
  });

  after(async () => {
    for (const c of clients) await c.stop().catch(() => undefined);
    await deployment?.stop().catch(() => undefined);
    await top?.proxy.close();
    await cleanUpAndAssertNoLeaks(top?.t);
  });

  test("both tunnels come up; the egress uses tunnel 0", async () => {
    await deployment.start();
    for (const c of clients) await c.start();
    await waitFor("both tunnels up", async () => (await health(top!, "/readyz").catch(() => undefined))?.body === "ok: tunnel up via vpn-seed-server-0, vpn-seed-server-1\n");
    assert.equal(await egressConnect(top!, creds, "10.250.0.10:7000"), BANNER);
    assert.match((await health(top!, "/metrics")).body, /^vpn_egress_tunnel_selected\{server="vpn-seed-server-0"\} 1$/m);
  });

  test("killing vpn-seed-server-0's openvpn fails the egress over to tunnel 1, and it stays there", async () => {
    const pid = deployment.servers[0]!.pid;
    assert.ok(pid);
    process.kill(pid, "SIGKILL");
    const start = Date.now();
    // Probes give up after 1 s: one that went into the dead tunnel before the failover would wait for the 20 s upstream timeout.
    await waitFor("the egress through tunnel 1", async () => (await egressConnect(top!, creds, "10.250.0.10:7000", 1000)) === BANNER, 10_000);
    const ms = Date.now() - start;
    console.log(`# egress failed over ${ms} ms after vpn-seed-server-0 was killed`);
    assert.ok(ms < 2000, `failover took ${ms} ms (goal: under 2 s)`);
    const metrics = (await health(top!, "/metrics")).body;
    assert.match(metrics, /^vpn_egress_tunnel_selected\{server="vpn-seed-server-1"\} 1$/m);
    assert.match(metrics, /^vpn_egress_failovers_total 1$/m);
    await waitFor("tunnel 0 back", async () => (await health(top!, "/readyz")).body.includes("vpn-seed-server-0, vpn-seed-server-1"));
    assert.match((await health(top!, "/metrics")).body, /^vpn_egress_tunnel_selected\{server="vpn-seed-server-1"\} 1$/m, "no flapping back");
  });
});
