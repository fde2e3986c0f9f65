// The gardenlet's renewals and CA rotations reach the running VPN processes (docs/reversed-vpn.md#the-local-landscape):
// the gardenlet's own Secret code writes into an in-process seed API server (which also plays the shoot), the
// landscape's follower restarts the OpenVPN server, the vpn-seed-server process and the OpenVPN client with the new
// credentials and rewrites the shoot API server's egress files (counting the API server restarts it asks for), and
// real OpenVPN in network namespaces carries the egress through the tunnel again.
import assert from "node:assert/strict";
import { X509Certificate } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect as tlsConnect } from "node:tls";
import { after, before, describe, test } from "node:test";
import { EC_P256 } from "../../../src/apiserver/certs/keys.ts";
import { Namespaces } from "../../../src/client/builtins.ts";
import { ensureEgressConfig } from "../../../src/gardenlet/controller/vpn/egressconfig.ts";
import { type VpnSecretSet, ensureVpnSecrets } from "../../../src/gardenlet/controller/vpn/secrets.ts";
import { syncShootSecrets } from "../../../src/gardenlet/controller/vpn/shootsecrets.ts";
import { Layout } from "../../../src/landscape/layout.ts";
import { followVpnSecrets } from "../../../src/landscape/vpn.ts";
import { egressSecretsDirOf } from "../../../src/landscape/vpnegress.ts";
import { waitForSecrets } from "../../../src/landscape/vpnfollow.ts";
import { type EgressCredentials, readEgressCredentials, readServerCredentials, readShootClientCredentials } from "../../../src/landscape/vpnsecrets.ts";
import { vpnIssuer } from "../../../src/vpn/credentials.ts";
import { SeedServerDeployment } from "../../../src/vpn/deployment.ts";
import { ShootClient } from "../../../src/vpn/shootclient.ts";
import { cleanUpAndAssertNoLeaks } from "../../e2e/host/support.ts";
import { type InProcessServer, startInProcessApiServer } from "../../support/inprocess.ts";
import { CLIENT_ADDRESS, NAMESPACE, SHOOT_CIDRS, type Topology, buildTopology, skipVpn, waitFor } from "./topology.ts";

const DAY = 24 * 60 * 60 * 1000;
const BANNER = `HTTP/1.1 200 Connection established\r\n\r\nhello from node-1 to ${CLIENT_ADDRESS}\n`;
const issuer = vpnIssuer(EC_P256);

/** A CONNECT through the egress proxy with these credentials: what came back and the server certificate presented. */
function egress(top: Topology, e: Pick<EgressCredentials, "bundle" | "client">, timeoutMs = 1500): Promise<{ data: string; server?: X509Certificate }> {
  return new Promise((resolve) => {
    const s = tlsConnect({ host: top.vpnAddress, port: 9443, ca: e.bundle, cert: e.client.certPem, key: e.client.keyPem, servername: "vpn-seed-server" });
    let data = "";
    let server: X509Certificate | undefined;
    s.setTimeout(timeoutMs, () => s.destroy());
    s.on("secureConnect", () => {
      server = s.getPeerX509Certificate();
      s.write("CONNECT 10.250.0.10:7000 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
    });
    s.on("data", (c: Buffer) => (data += c.toString()));
    s.on("error", () => undefined);
    s.on("close", () => resolve(server ? { data, server } : { data }));
  });
}

const serial = (pem: string) => new X509Certificate(pem).serialNumber;

describe("renewals and CA rotations of the gardenlet reach the running VPN processes", { skip: skipVpn }, () => {
  let top: Topology | undefined;
  let api: InProcessServer | undefined;
  let deployment: SeedServerDeployment | undefined;
  let client: ShootClient | undefined;
  let follower: { stop(): Promise<void> } | undefined;
  const dir = mkdtempSync(join(tmpdir(), "vpn-renewal-it-"));
  const layout = new Layout(join(dir, "landscape"));
  /** The egress files each shoot API server restart would read (the follower restarts it once it wrote them). */
  const apiServerRestarts: Pick<EgressCredentials, "bundle" | "client">[] = [];
  let set: VpnSecretSet;

  /** One pass of the gardenlet's VPN Secrets, as its reconciler does it (seed Secrets, the shoot's copies, the egress ConfigMap). */
  async function gardenletPass(nowMs: number, rotation?: { initiation: string; prepared: boolean }): Promise<VpnSecretSet> {
    const s = await ensureVpnSecrets({ seed: api!.admin, issuer, nowMs }, { namespace: NAMESPACE, highAvailability: false, addresses: [top!.vpnAddress], ...(rotation ? { rotation } : {}) });
    await syncShootSecrets(api!.admin, s, false);
    await ensureEgressConfig(api!.admin, NAMESPACE, top!.vpnAddress, egressSecretsDirOf(layout));
    return s;
  }
  /** The egress as the shoot API server would dial it with the files the follower wrote. */
  const egressFiles = (): Pick<EgressCredentials, "bundle" | "client"> => {
    const f = (secret: string, key: string) => readFileSync(join(egressSecretsDirOf(layout), secret, key), "utf8");
    return { bundle: f("ca-vpn-bundle", "bundle.crt"), client: { certPem: f("kube-apiserver-http-proxy-client", "tls.crt"), keyPem: f("kube-apiserver-http-proxy-client", "tls.key") } };
  };
  /** Waits until the egress works with `creds` and presents the server certificate `serverPem`; answers how long it took. */
  async function tunnelWith(creds: Pick<EgressCredentials, "bundle" | "client">, serverPem: string): Promise<number> {
    const start = Date.now();
    await waitFor("the egress through the tunnel with the new credentials", async () => {
      const r = await egress(top!, creds);
      return r.data === BANNER && r.server?.serialNumber === serial(serverPem);
    }, 30_000);
    return Date.now() - start;
  }

  before(async () => {
    top = await buildTopology();
    api = await startInProcessApiServer();
    await api.admin.create(Namespaces, { metadata: { name: NAMESPACE } });
    // Issued 293 days ago: valid, and due for renewal now (80 % of a year has passed).
    set = await gardenletPass(Date.now() - 293 * DAY);
    const log = () => undefined;
    const server = await waitForSecrets("server", () => readServerCredentials(api!.admin, NAMESPACE), { log });
    const egressCreds = await waitForSecrets("egress", () => readEgressCredentials(api!.admin, NAMESPACE), { log });
    const clients = await waitForSecrets("clients", () => readShootClientCredentials(api!.admin, false), { log });
    const { host, stateDir } = top.t;
    deployment = new SeedServerDeployment({
      host, netns: top.vpnNs, seedInterface: "eth0", locals: [top.vpnAddress], namespace: NAMESPACE, dir: join(stateDir, "vpn-seed-server"),
      transferNetwork: "192.168.123.0/24", shootCidrs: SHOOT_CIDRS, credentials: server,
    });
    client = new ShootClient({
      host, netns: top.clientNs, nodeInterface: "eth0", nodeNetwork: "10.250.0.0/16", dir: join(stateDir, "vpn-shoot-client"), processName: `vpn-shoot-client.${NAMESPACE}`,
      namespace: NAMESPACE, proxyHost: top.proxyAddress, shootCidrs: SHOOT_CIDRS, credentials: clients["vpn-shoot-client"]!,
    });
    await deployment.start();
    await client.start();
    // The landscape's own poll interval (2 s): a shorter one makes a pass whose writes are more than one interval
    // apart on a loaded machine look like two changes, and the restart count below would measure the machine.
    follower = followVpnSecrets({
      seed: api.admin, shoot: api.admin, namespace: NAMESPACE, highAvailability: false, seedServer: deployment, clients: [client], log,
      current: { server, egress: egressCreds, clients }, egress: { layout, restartShootApiServer: async () => void apiServerRestarts.push(egressFiles()) },
    });
  });

  after(async () => {
    await follower?.stop();
    await client?.stop().catch(() => undefined);
    await deployment?.stop().catch(() => undefined);
    await top?.proxy.close();
    await api?.stop();
    rmSync(dir, { recursive: true, force: true });
    await cleanUpAndAssertNoLeaks(top?.t);
  });

  test("the tunnel comes up with the credentials read from the gardenlet's Secrets", async () => {
    await tunnelWith({ bundle: set.bundle, client: set.egressClient }, set.server.certPem);
  });

  test("a renewal (same CA, same tls-auth key): both OpenVPN ends and the vpn-seed-server restart with the new certificates, the shoot API server's egress files follow", async () => {
    const [serverPid, clientPid] = [deployment!.openvpn.pid, client!.pid];
    const renewed = await gardenletPass(Date.now());
    assert.notEqual(serial(renewed.server.certPem), serial(set.server.certPem), "the gardenlet renewed the server certificate");
    assert.equal(renewed.ca.certPem, set.ca.certPem);
    const ms = await tunnelWith({ bundle: renewed.bundle, client: renewed.egressClient }, renewed.server.certPem);
    console.log(`# tunnel with renewed credentials ${ms} ms after the gardenlet's pass`);
    assert.notEqual(deployment!.openvpn.pid, serverPid, "the OpenVPN server was restarted");
    await waitFor("the OpenVPN client restarted", async () => client!.pid !== undefined && client!.pid !== clientPid);
    // The restart, not the files: the follower writes them, checks that they load, and then restarts.
    await waitFor("the shoot API server restarted", async () => apiServerRestarts.length >= 1);
    assert.equal(apiServerRestarts.length, 1, "the shoot API server is restarted once to read them");
    assert.equal(apiServerRestarts[0]!.client.certPem, renewed.egressClient.certPem, "after the renewed files were written");
    assert.equal((await egress(top!, egressFiles())).data, BANNER, "the shoot API server's new files work");
    set = renewed;
  });

  test("a CA rotation: Preparing moves every end to the new CA and tls-auth key; Completing makes the egress proxy refuse the old CA's client", async () => {
    const old = set;
    const rotated = await gardenletPass(Date.now(), { initiation: "1700000000", prepared: true });
    assert.notEqual(rotated.ca.certPem, old.ca.certPem, "a new CA");
    assert.notEqual(rotated.tlsAuth, old.tlsAuth, "a new tls-auth key");
    const ms = await tunnelWith({ bundle: rotated.bundle, client: rotated.egressClient }, rotated.server.certPem);
    console.log(`# tunnel through both ends on the new CA and tls-auth key ${ms} ms after the gardenlet's pass`);
    assert.equal((await egress(top!, { bundle: rotated.bundle, client: old.egressClient })).data, BANNER, "while prepared, the old CA's client is still trusted");

    const completed = await gardenletPass(Date.now(), { initiation: "1700000000", prepared: false });
    assert.equal(completed.bundle, rotated.ca.certPem, "the bundle holds the new CA only");
    await waitFor("the egress proxy refuses the old CA's client", async () => (await egress(top!, { bundle: rotated.bundle, client: old.egressClient })).data === "", 30_000);
    await tunnelWith({ bundle: completed.bundle, client: completed.egressClient }, completed.server.certPem);
    await waitFor("the shoot API server restarted for Preparing and for Completing", async () => apiServerRestarts.length >= 3);
    assert.equal(apiServerRestarts.length, 3, "one shoot API server restart per change of its files");
    assert.equal(apiServerRestarts[2]!.bundle, completed.bundle, "the last restart reads the new CA only");
    assert.equal((await egress(top!, egressFiles())).data, BANNER);
  });
});
