// What the reversed VPN does not let through (docs/reversed-vpn.md#firewalls): the tunnel carries the seed's
// connections into the shoot, never the shoot's into the seed; and a client of another shoot (another CA and
// tls-auth key) gets no tunnel to this control plane's server, even through the right CONNECT header.
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { EC_P256 } from "../../../src/apiserver/certs/keys.ts";
import { issueVpnCredentials, type VpnCredentials } from "../../../src/vpn/credentials.ts";
import { SeedServerDeployment } from "../../../src/vpn/deployment.ts";
import { ShootClient } from "../../../src/vpn/shootclient.ts";
import { NC, cleanUpAndAssertNoLeaks } from "../../e2e/host/support.ts";
import { CLIENT_ADDRESS, NAMESPACE, SHOOT_CIDRS, type Topology, buildTopology, egressConnect, skipVpn, waitFor } from "./topology.ts";

const BANNER = `HTTP/1.1 200 Connection established\r\n\r\nhello from node-1 to ${CLIENT_ADDRESS}\n`;

describe("reversed VPN isolation", { skip: skipVpn }, () => {
  let top: Topology | undefined;
  let creds: VpnCredentials;
  let deployment: SeedServerDeployment;
  const clients: ShootClient[] = [];

  const client = (name: string, c: VpnCredentials): ShootClient => {
    const sc = new ShootClient({
      host: top!.t.host, netns: top!.clientNs, nodeInterface: "eth0", nodeNetwork: "10.250.0.0/16", dir: join(top!.t.stateDir, name),
      processName: `${name}.${NAMESPACE}`, namespace: NAMESPACE, proxyHost: top!.proxyAddress, shootCidrs: SHOOT_CIDRS,
      credentials: { bundle: c.bundle, client: c.clients["vpn-shoot-client"]!, tlsAuth: c.tlsAuth },
    });
    clients.push(sc);
    return sc;
  };

  before(async () => {
    top = await buildTopology();
    creds = await issueVpnCredentials({ namespace: NAMESPACE, serverAddresses: [top.vpnAddress], alg: EC_P256 });
    deployment = new SeedServerDeployment({
      host: top.t.host, netns: top.vpnNs, seedInterface: "eth0", locals: [top.vpnAddress], namespace: NAMESPACE,
      dir: join(top.t.stateDir, "vpn-seed-server"), transferNetwork: "192.168.123.0/24", shootCidrs: SHOOT_CIDRS,
      credentials: { bundle: creds.bundle, server: creds.server, tlsAuth: creds.tlsAuth },
    });
    await deployment.start();
    await client("vpn-shoot-client", creds).start();
    await waitFor("the tunnel", async () => (await egressConnect(top!, creds, "10.250.0.10:7000")) === BANNER);
  });

  after(async () => {
    for (const c of clients) await c.stop().catch(() => undefined);
    await deployment?.stop().catch(() => undefined);
    await top?.proxy.close();
    await cleanUpAndAssertNoLeaks(top?.t);
  });

  test("the shoot cannot open a connection through the tunnel into the VPN namespace (OpenVPN, egress proxy, health)", async () => {
    const { host } = top!.t;
    // A shoot that routes the seed network into its tunnel (the shoot side is not trusted) sends its SYNs
    // there; the server's namespace answers these ports on the seed network but drops what comes from tun*.
    await host.ensureRoute({ netns: top!.clientNs, destination: `${top!.vpnAddress}/32`, dev: "tun0", owner: "vpn-test" });
    try {
      for (const port of [1194, 9443, 15000]) {
        const r = await host.execInNetns(top!.clientNs, NC, ["-z", "-w", "2", top!.vpnAddress, String(port)], { okExitCodes: [0, 1] });
        assert.equal(r.exitCode, 1, `${top!.vpnAddress}:${port} through the tunnel`);
        const seedSide = await host.execInNetns(top!.routerNs, NC, ["-z", "-w", "2", top!.vpnAddress, String(port)], { okExitCodes: [0, 1] });
        assert.equal(seedSide.exitCode, 0, `${port} answers on the seed network`);
      }
    } finally {
      await host.deleteRoute({ netns: top!.clientNs, destination: `${top!.vpnAddress}/32`, dev: "tun0" });
    }
  });

  test("another shoot's client gets no tunnel to this server, even with this control plane's CONNECT header", async () => {
    const other = await issueVpnCredentials({ namespace: "shoot--local--other", serverAddresses: [top!.vpnAddress], alg: EC_P256 });
    const intruder = client("intruder", other);
    await intruder.start();
    // The server drops its packets for their tls-auth HMAC before any TLS: positive evidence in its log.
    const log = join(top!.t.stateDir, "vpn-seed-server", "openvpn", "openvpn.log");
    await waitFor("the server refusing the intruder's packets", async () => /HMAC/i.test(await readFile(log, "utf8")), 20_000);
    const metrics = await (await fetch(`http://${top!.vpnAddress}:15000/metrics`)).text();
    assert.match(metrics, /^vpn_tunnel_up\{server="vpn-seed-server"\} 1$/m, "the shoot's own tunnel stays up");
    assert.equal(await egressConnect(top!, creds, "10.250.0.10:7000"), BANNER);
    await intruder.stop();
  });
});
