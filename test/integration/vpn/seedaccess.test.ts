// What the shoot can reach of the seed (docs/reversed-vpn.md#firewalls): from the vpn-shoot-client's namespace,
// over the real network (the router's NAT), the seed CONNECT proxy answers only a CONNECT naming a known server's
// OpenVPN port; through the tunnel, nothing of the seed answers: not a listener on the server's tunnel address
// (any port) and not the seed network behind the VPN namespace, though both answer on their own side.
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { EC_P256 } from "../../../src/apiserver/certs/keys.ts";
import { issueVpnCredentials, type VpnCredentials } from "../../../src/vpn/credentials.ts";
import { SeedServerDeployment } from "../../../src/vpn/deployment.ts";
import { ShootClient } from "../../../src/vpn/shootclient.ts";
import { NC, cleanUpAndAssertNoLeaks } from "../../e2e/host/support.ts";
import { CLIENT_ADDRESS, NAMESPACE, SHOOT_CIDRS, type Topology, buildTopology, egressConnect, skipVpn, waitFor } from "./topology.ts";

const BANNER = `HTTP/1.1 200 Connection established\r\n\r\nhello from node-1 to ${CLIENT_ADDRESS}\n`;
const PEER_PORT = 7001;

describe("what the shoot reaches of the seed", { skip: skipVpn }, () => {
  let top: Topology | undefined;
  let creds: VpnCredentials;
  let deployment: SeedServerDeployment | undefined;
  let client: ShootClient | undefined;
  let peer: { ns: string; address: string };

  /** A TCP connect (nc -z) from a namespace: true when it was accepted. */
  const opens = async (netns: string, address: string, port: number): Promise<boolean> =>
    (await top!.t.host.execInNetns(netns, NC, ["-z", "-w", "2", address, String(port)], { okExitCodes: [0, 1] })).exitCode === 0;

  before(async () => {
    top = await buildTopology();
    const { host, stateDir } = top.t;
    creds = await issueVpnCredentials({ namespace: NAMESPACE, serverAddresses: [top.vpnAddress], alg: EC_P256 });
    deployment = new SeedServerDeployment({
      host, netns: top.vpnNs, seedInterface: "eth0", locals: [top.vpnAddress], namespace: NAMESPACE, dir: join(stateDir, "vpn-seed-server"),
      transferNetwork: "192.168.123.0/24", shootCidrs: SHOOT_CIDRS, credentials: { bundle: creds.bundle, server: creds.server, tlsAuth: creds.tlsAuth },
    });
    client = new ShootClient({
      host, netns: top.clientNs, nodeInterface: "eth0", nodeNetwork: "10.250.0.0/16", dir: join(stateDir, "vpn-shoot-client"), processName: `vpn-shoot-client.${NAMESPACE}`,
      namespace: NAMESPACE, proxyHost: top.proxyAddress, shootCidrs: SHOOT_CIDRS, credentials: { bundle: creds.bundle, client: creds.clients["vpn-shoot-client"]!, tlsAuth: creds.tlsAuth },
    });
    // Another host on the seed network (as a seed API server or another control plane would be), with a listener.
    peer = { ns: host.names.netns("peer"), address: top.vpnAddress.replace(/\.2$/, ".9") };
    await host.ensureNetns(peer.ns, { owner: "vpn-test" });
    top.t.tracker.netns(peer.ns);
    await host.ensureVeth({ name: "eth0", netns: peer.ns, addresses: [`${peer.address}/24`], peer: { name: host.names.link("peer", "0"), master: host.names.link("seed") } });
    await host.startProcess({ name: "peer-listener", netns: peer.ns, command: process.execPath, args: ["-e", `require("net").createServer((s) => s.end("seed\\n")).listen(${PEER_PORT}, "0.0.0.0")`], owner: "vpn-test" });
    // A listener on every address of the VPN namespace, the tunnel's included.
    await host.startProcess({ name: "vpn-listener", netns: top.vpnNs, command: process.execPath, args: ["-e", `require("net").createServer((s) => s.end("vpn\\n")).listen(${PEER_PORT}, "0.0.0.0")`], owner: "vpn-test" });
    await deployment.start();
    await client.start();
    await waitFor("the tunnel", async () => (await egressConnect(top!, creds, "10.250.0.10:7000")) === BANNER);
  });

  after(async () => {
    await client?.stop().catch(() => undefined);
    await deployment?.stop().catch(() => undefined);
    for (const name of ["peer-listener", "vpn-listener"]) await top?.t.host.stopProcess(name).catch(() => undefined);
    await top?.proxy.close();
    await cleanUpAndAssertNoLeaks(top?.t);
  });

  test("from the shoot's network the CONNECT proxy refuses a missing header, another port, an unknown control plane and other methods; only the known server's 1194 is connected", async () => {
    const ask = async (head: string): Promise<string> => {
      const script = `const s=require("net").connect(8132,"${top!.proxyAddress}",()=>s.write(${JSON.stringify(head)}));let d="";s.on("data",(c)=>{d+=c;if(d.includes("\\r\\n"))s.destroy()});s.on("close",()=>console.log(d.split("\\r\\n")[0]));setTimeout(()=>s.destroy(),4000)`;
      return (await top!.t.host.execInNetns(top!.clientNs, process.execPath, ["-e", script])).stdout.trim();
    };
    const header = (v: string) => `Reversed-VPN: ${v}\r\n`;
    const known = `outbound|1194||vpn-seed-server.${NAMESPACE}.svc.cluster.local`;
    const cases: [string, string][] = [
      ["no header", `CONNECT ${top!.vpnAddress}:1194 HTTP/1.0\r\n\r\n`],
      ["port 443 in the header", `CONNECT ${top!.vpnAddress}:443 HTTP/1.0\r\n${header(known.replace("1194", "443"))}\r\n`],
      ["an unknown control plane", `CONNECT x:1194 HTTP/1.0\r\n${header(known.replace(NAMESPACE, "shoot--other--x"))}\r\n`],
      ["an HA name of a plain control plane", `CONNECT x:1194 HTTP/1.0\r\n${header(known.replace("vpn-seed-server.", "vpn-seed-server-1."))}\r\n`],
      ["a GET", `GET / HTTP/1.1\r\nHost: x\r\n${header(known)}\r\n`],
    ];
    for (const [why, head] of cases) assert.equal(await ask(head), "HTTP/1.1 403 Forbidden", why);
    // The request line's target is never dialled: a known header with the seed peer's address still reaches 1194 of the server.
    assert.equal(await ask(`CONNECT ${peer.address}:${PEER_PORT} HTTP/1.0\r\n${header(known)}\r\n`), "HTTP/1.1 200 Connection established");
  });

  test("through the tunnel nothing of the seed answers: a listener on the server's tunnel address, and the seed network behind the VPN namespace", async () => {
    const { host } = top!.t;
    assert.ok(await opens(top!.vpnNs, "192.168.123.1", PEER_PORT), "the listener answers inside the VPN namespace on the tunnel address");
    assert.ok(await opens(top!.routerNs, peer.address, PEER_PORT), "the seed peer answers on the seed network");
    assert.equal(await opens(top!.clientNs, "192.168.123.1", PEER_PORT), false, "the tunnel address from the shoot");
    // A shoot that routes a seed address into its tunnel (the shoot side is not trusted): the VPN namespace forwards nothing.
    await host.ensureRoute({ netns: top!.clientNs, destination: `${peer.address}/32`, dev: "tun0", owner: "vpn-test" });
    try {
      assert.equal(await opens(top!.clientNs, peer.address, PEER_PORT), false, "the seed peer through the tunnel");
    } finally {
      await host.deleteRoute({ netns: top!.clientNs, destination: `${peer.address}/32`, dev: "tun0" });
    }
    assert.equal(await egressConnect(top!, creds, "10.250.0.10:7000"), BANNER, "the tunnel itself still works");
  });
});
