// The reversed VPN with real OpenVPN in network namespaces: the vpn-shoot-client dials out through the
// seed's CONNECT proxy, and the control plane's VPN namespace reaches a shoot node through the tunnel.
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { cleanUpAndAssertNoLeaks } from "../../e2e/host/support.ts";
import { writeFile } from "node:fs/promises";
import type { IncomingMessage } from "node:http";
import { createCertificateAuthority, issueClientCertificate, issueServingCertificate } from "../../../src/apiserver/certs/issue.ts";
import { EC_P256 } from "../../../src/apiserver/certs/keys.ts";
import type { InternalClient } from "../../../src/apiserver/registry/client.ts";
import { KubeletClient } from "../../../src/apiserver/registry/core/pod/kubelet-client.ts";
import { StatusError } from "../../../src/apimachinery/errors.ts";
import { httpConnectDialer } from "../../../src/apiserver/egressselector/egressselector.ts";
import { issueVpnCredentials, type VpnCredentials } from "../../../src/vpn/credentials.ts";
import { SeedServerDeployment } from "../../../src/vpn/deployment.ts";
import type { OpenVpnServer } from "../../../src/vpn/openvpn-server.ts";
import { ShootClient, ShootHealthProcess } from "../../../src/vpn/shootclient.ts";
import { CLIENT_ADDRESS, NAMESPACE, NODE_ADDRESS, SHOOT_CIDRS, type Topology, buildTopology, egressConnect, fetchBanner, health, skipVpn, waitFor, waitForBanner } from "./topology.ts";

const ESTABLISHED = "HTTP/1.1 200 Connection established\r\n\r\n";

/** A kubelet stand-in in the shoot node: HTTPS on 10250 with client certificates, answering what it saw. */
async function startKubelet(top: Topology): Promise<KubeletClient> {
  const ca = await createCertificateAuthority({ commonName: "shoot-ca" });
  const serving = await issueServingCertificate(ca, { hosts: [NODE_ADDRESS] });
  const client = await issueClientCertificate(ca, { commonName: "system:kube-apiserver:kubelet" });
  const files = { key: join(top.t.stateDir, "kubelet.key"), cert: join(top.t.stateDir, "kubelet.crt"), ca: join(top.t.stateDir, "kubelet-ca.crt") };
  await writeFile(files.key, serving.keyPem, { mode: 0o600 });
  await writeFile(files.cert, serving.certPem);
  await writeFile(files.ca, ca.certPem);
  const script = `const fs = require("fs"); require("https").createServer({ key: fs.readFileSync("${files.key}"), cert: fs.readFileSync("${files.cert}"), ca: fs.readFileSync("${files.ca}"), requestCert: true, rejectUnauthorized: true },
    (q, r) => r.end("logs " + q.url + " for " + q.socket.getPeerCertificate().subject.CN + " from " + q.socket.remoteAddress + "\\n")).listen(10250, "${NODE_ADDRESS}")`;
  await top.t.host.startProcess({ name: "kubelet", netns: top.nodeNs, command: process.execPath, args: ["-e", script], owner: "vpn-test" });
  return new KubeletClient({} as InternalClient, { certPem: client.certPem, keyPem: client.keyPem, caPem: ca.certPem, dial: httpConnectDialer({ url: `https://${top.vpnAddress}:9443`, caPem: creds.bundle, certPem: creds.egressClient.certPem, keyPem: creds.egressClient.keyPem }) });
}

let creds: VpnCredentials;

async function body(res: IncomingMessage): Promise<string> {
  let text = "";
  for await (const chunk of res) text += String(chunk);
  return text;
}

describe("reversed VPN tunnel (OpenVPN in namespaces)", { skip: skipVpn }, () => {
  let top: Topology | undefined;
  let kubelet: KubeletClient;
  let deployment: SeedServerDeployment;
  let server: OpenVpnServer;
  let client: ShootClient;
  let clientHealth: ShootHealthProcess;

  before(async () => {
    top = await buildTopology();
    const { host, stateDir } = top.t;
    // ECDSA keys: the RSA 3072 default takes seconds per key on a busy machine; OpenVPN takes either.
    creds = await issueVpnCredentials({ namespace: NAMESPACE, serverAddresses: [top.vpnAddress], alg: EC_P256 });
    deployment = new SeedServerDeployment({
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
    server = deployment.openvpn;
    kubelet = await startKubelet(top);
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
    clientHealth = new ShootHealthProcess({ host, netns: top.clientNs, listenAddress: CLIENT_ADDRESS, namespace: NAMESPACE, dir: join(stateDir, "vpn-shoot-client"), clients: [client] });
  });

  after(async () => {
    await clientHealth?.stop().catch(() => undefined);
    await client?.stop().catch(() => undefined);
    await deployment?.stop().catch(() => undefined);
    await top?.proxy.close();
    await cleanUpAndAssertNoLeaks(top?.t);
  });

  test("before the tunnel, nothing in the seed reaches the shoot node; vpn-seed-server is healthy but not ready, its egress answers 503", async () => {
    await deployment.start();
    await waitFor("vpn-seed-server's /healthz", async () => (await health(top!, "/healthz").catch(() => undefined))?.code === 200);
    assert.equal(await fetchBanner(top!, top!.vpnNs, undefined), undefined);
    assert.equal(await fetchBanner(top!, top!.vpnNs, server.tunnelAddress), undefined);
    assert.deepEqual(await health(top!, "/readyz"), { code: 503, body: "no tunnel is up\n" });
    const refused = await egressConnect(top!, creds, "10.250.0.10:7000");
    assert.match(refused, /^HTTP\/1\.1 503 /);
    const err = await kubelet.get({ host: NODE_ADDRESS, port: 10250 }, "/containerLogs/default/p/c").then(() => undefined, (e: unknown) => e);
    assert.ok(err instanceof StatusError);
    assert.equal(err.code, 500);
    assert.equal(err.message, `proxy error from ${top!.vpnAddress}:9443 while dialing ${NODE_ADDRESS}:10250, code 503: 503 Service Unavailable`);
  });

  test("the client dials out through the CONNECT proxy; the node answers the seed through the tunnel, masqueraded", async () => {
    await client.start();
    const { banner, ms } = await waitForBanner(top!, top!.vpnNs, server.tunnelAddress);
    assert.equal(banner, `hello from node-1 to ${CLIENT_ADDRESS}\n`);
    console.log(`# tunnel up ${ms} ms after the client started`);
  });

  test("the egress proxy carries the API server's CONNECT over the tunnel; /readyz and /metrics show the tunnel", async () => {
    await waitFor("vpn-seed-server's /readyz", async () => (await health(top!, "/readyz")).code === 200);
    assert.equal(await egressConnect(top!, creds, "10.250.0.10:7000"), `${ESTABLISHED}hello from node-1 to ${CLIENT_ADDRESS}\n`);
    assert.match(await egressConnect(top!, creds, `${top!.vpnAddress}:9443`), /^HTTP\/1\.1 403 .*\r\n[\s\S]*outside the shoot networks/);
    const metrics = (await health(top!, "/metrics")).body;
    assert.match(metrics, /^vpn_tunnel_up\{server="vpn-seed-server"\} 1$/m);
    assert.match(metrics, /^vpn_egress_requests_total\{result="established"\} 1$/m);
  });

  test("the API server's kubelet client reaches the node's kubelet through the egress selector's proxy and the tunnel", async () => {
    const res = await kubelet.get({ host: NODE_ADDRESS, port: 10250 }, "/containerLogs/default/p/c");
    assert.equal(await body(res), `logs /containerLogs/default/p/c for system:kube-apiserver:kubelet from ${CLIENT_ADDRESS}\n`);
  });

  test("the tunnel check: the vpn-shoot-client's /readyz on 8080 answers the seed through the egress proxy and the tunnel", async () => {
    await clientHealth.start();
    const ask = () => egressConnect(top!, creds, `${CLIENT_ADDRESS}:8080`, 3000, "GET /readyz HTTP/1.1\r\nHost: vpn-shoot\r\nConnection: close\r\n\r\n");
    await waitFor("vpn-shoot-client's health process", async () => (await ask()).includes("ok: connected to vpn-seed-server\n"));
    assert.match(await ask(), /^HTTP\/1\.1 200 Connection established\r\n\r\nHTTP\/1\.1 200 OK\r\n/);
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
    await waitFor("the egress through the new tunnel", async () => (await egressConnect(top!, creds, "10.250.0.10:7000")).startsWith(ESTABLISHED + "hello"));
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
