// The tunnel health on the Shoot, end to end without a landscape (docs/reversed-vpn.md#tunnel-check): the
// landscape's vpn-shoot Pod writer puts the vpn-shoot Pod into the shoot's kube-system; the gardenlet's `vpn`
// controller finds it and asks `pods/vpn-shoot:8080/proxy/healthz` through a shoot API server whose cluster
// egress is a mutual-TLS CONNECT proxy stand-in (as the vpn-seed-server's) that splices the Pod's address to a
// local stand-in of the vpn-shoot-client's health port. The Shoot's SystemComponentsHealthy condition is True
// while it answers, False with the API server's error when it is stopped or hangs, and True again after.
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { type Server, createServer } from "node:http";
import { type AddressInfo, connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { type TLSSocket, createServer as createTlsServer } from "node:tls";
import { pino } from "pino";
import { EC_P256 } from "../../../src/apiserver/certs/keys.ts";
import { createCertificateAuthority, issueClientCertificate, issueServingCertificate } from "../../../src/apiserver/certs/issue.ts";
import { Pods } from "../../../src/client/builtins.ts";
import { Shoots } from "../../../src/client/garden.ts";
import { type Gardenlet, createGardenlet } from "../../../src/gardenlet/app.ts";
import { staticShootClients } from "../../../src/gardenlet/controller/sshkeypair/reconciler.ts";
import { VPN_SHOOT_NODE, VpnShootPodWriter } from "../../../src/landscape/vpnpod.ts";
import { gardenAdmissionPlugins } from "../../../src/plugins/garden.ts";
import { vpnIssuer } from "../../../src/vpn/credentials.ts";
import { eventually } from "../../support/http.ts";
import { type InProcessServer, startInProcessApiServer } from "../../support/inprocess.ts";
import { KEY, NS, registerShoot } from "./shoot-setup.ts";

/** The vpn-shoot-client's node-network address: reached only through the egress stand-in. */
const CLIENT_IP = "10.250.0.2";

let dir: string;
let garden: InProcessServer;
let shoot: InProcessServer;
let gardenlet: Gardenlet;
let writer: VpnShootPodWriter;
const connects: string[] = [];
const egress = createTlsServer();
/** The vpn-shoot-client's health port stand-in: answers, is stopped, or hangs. */
let mode: "ok" | "hang" = "ok";
let health: Server | undefined;
let healthPort = 0;

async function startHealth(): Promise<void> {
  health = createServer((req, res) => {
    if (mode === "hang") return;
    res.writeHead(req.url === "/healthz" ? 200 : 404).end("ok\n");
  });
  await new Promise<void>((resolve) => health!.listen(healthPort, "127.0.0.1", resolve));
  healthPort = (health.address() as AddressInfo).port;
}
async function stopHealth(): Promise<void> {
  health?.closeAllConnections();
  await new Promise<void>((resolve) => (health ? health.close(() => resolve()) : resolve()));
  health = undefined;
}

const condition = async () => (await garden.admin.get(Shoots, KEY)).status?.conditions?.find((c) => c.type === "SystemComponentsHealthy");
const conditionWith = (what: string, pred: (c: NonNullable<Awaited<ReturnType<typeof condition>>>) => boolean) =>
  eventually(what, async () => {
    const c = await condition();
    return c && pred(c) ? c : undefined;
  }, 20_000, 100);

before(async () => {
  dir = await mkdtemp(join(tmpdir(), "tunnelcheck-it-"));
  // The egress stand-in: mutual TLS, CONNECT <ip>:<port>, the client's health port spliced to the local stand-in.
  const ca = await createCertificateAuthority({ commonName: "vpn" });
  const serving = await issueServingCertificate(ca, { hosts: ["127.0.0.1"] });
  const client = await issueClientCertificate(ca, { commonName: "kube-apiserver-http-proxy-client" });
  egress.setSecureContext({ cert: serving.certPem, key: serving.keyPem, ca: ca.certPem });
  (egress as unknown as { requestCert: boolean }).requestCert = true;
  egress.on("secureConnection", (s: TLSSocket) => {
    s.on("error", () => undefined);
    if (!s.authorized) return void s.destroy();
    s.once("data", (d: Buffer) => {
      const target = /^CONNECT (\S+) HTTP\/1\.1\r\n/.exec(d.toString("latin1"))?.[1] ?? "?";
      connects.push(target);
      if (target !== `${CLIENT_IP}:8080`) return void s.end("HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n");
      const up = connect({ host: "127.0.0.1", port: healthPort }, () => {
        s.write("HTTP/1.1 200 Connection established\r\n\r\n");
        up.pipe(s).pipe(up);
      });
      up.on("error", () => s.end("HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n"));
    });
  });
  await new Promise<void>((resolve) => egress.listen(0, "127.0.0.1", resolve));
  for (const [f, v] of Object.entries({ ca: ca.certPem, crt: client.certPem, key: client.keyPem })) await writeFile(join(dir, f), v);
  const selection = { tcp: { url: `https://127.0.0.1:${(egress.address() as AddressInfo).port}`, tlsConfig: { caBundle: join(dir, "ca"), clientCert: join(dir, "crt"), clientKey: join(dir, "key") } } };
  await writeFile(join(dir, "egress.json"), JSON.stringify({ apiVersion: "apiserver.k8s.io/v1beta1", kind: "EgressSelectorConfiguration", egressSelections: [{ name: "cluster", connection: { proxyProtocol: "HTTPConnect", transport: selection } }] }));
  await startHealth();

  garden = await startInProcessApiServer({ flags: ["--enable-gardener-apis"], gardenAdmission: gardenAdmissionPlugins() });
  // The shoot, with its cluster egress through the stand-in; it also plays the seed (the VPN Secrets, Endpoints).
  shoot = await startInProcessApiServer({ flags: ["--egress-selector-config-file", join(dir, "egress.json")] });
  await registerShoot(garden.admin, shoot.admin);
  gardenlet = createGardenlet({
    gardenClient: garden.admin,
    seedClient: shoot.admin,
    seedName: "a",
    logger: pino({ level: "silent" }),
    server: false,
    defaultMetrics: false,
    shootClients: staticShootClients(new Map([[`${NS}/s`, shoot.admin]])),
    // The real probe through pods/proxy; a care period of 1 s keeps the test short.
    vpn: { issuer: vpnIssuer(EC_P256), addresses: { addressesFor: () => ["127.77.0.1"] }, careIntervalMs: 1000, egressSecretsDir: join(dir, "secrets") },
  });
  await gardenlet.start();
});

after(async () => {
  await writer?.stop();
  await gardenlet?.stop();
  await shoot?.stop();
  await garden?.stop();
  await stopHealth();
  egress.close();
  await rm(dir, { recursive: true, force: true });
});

test("without a vpn-shoot Pod the Shoot shows NoTunnelDeployed", async () => {
  const c = await conditionWith("NoTunnelDeployed", (x) => x.reason === "NoTunnelDeployed");
  assert.equal(c.status, "False");
  assert.equal(c.message, "no tunnels are currently deployed to perform health-check on");
});

test("the landscape's vpn-shoot Pod runs on the client's address; the check through pods/proxy and the egress makes the condition True", async () => {
  writer = new VpnShootPodWriter({
    shoot: shoot.admin, address: CLIENT_IP, intervalMs: 200, restarts: () => 0, running: async () => true,
    // The kubelet's probe from the node network: here straight to the stand-in.
    healthy: async () => (await fetch(`http://127.0.0.1:${healthPort}/healthz`, { signal: AbortSignal.timeout(1000) }).catch(() => undefined))?.status === 200,
  });
  await writer.start();
  // Ready once a probe answered: the first may time out on a loaded machine, the writer probes again.
  const pod = await eventually("the vpn-shoot Pod Ready", async () => {
    const p = await shoot.admin.get(Pods, { namespace: "kube-system", name: "vpn-shoot" });
    return p.status?.conditions?.find((c) => c.type === "Ready")?.status === "True" ? p : undefined;
  }, 20_000, 100);
  assert.deepEqual(pod.metadata.labels, { app: "vpn-shoot", type: "tunnel", "gardener.cloud/role": "system-component" });
  assert.equal(pod.spec?.nodeName, VPN_SHOOT_NODE);
  assert.equal(pod.spec?.hostNetwork, true);
  assert.equal(pod.status?.phase, "Running");
  assert.equal(pod.status?.podIP, CLIENT_IP);
  assert.equal(pod.status?.conditions?.find((c) => c.type === "Ready")?.status, "True");

  const c = await conditionWith("healthy", (x) => x.status === "True");
  assert.equal(c.reason, "SystemComponentsRunning");
  assert.equal(c.message, "All system components are healthy.");
  assert.ok(connects.includes(`${CLIENT_IP}:8080`), `the check went through the egress: ${connects.join(", ")}`);
});

test("a stopped vpn-shoot-client makes the Pod not Ready and the condition False with the API server's error; its return makes both healthy again", async () => {
  await stopHealth();
  const c = await conditionWith("broken", (x) => x.status === "False");
  assert.equal(c.reason, "TunnelConnectionBroken");
  assert.match(c.message, /^Tunnel connection has not been established \(could not forward to vpn-shoot pod \(timeout after 5 seconds\): error trying to reach service: proxy error from 127\.0\.0\.1:\d+ while dialing 10\.250\.0\.2:8080, code 502: 502 Bad Gateway\)$/);
  await eventually("the Pod not Ready", async () => ((await shoot.admin.get(Pods, { namespace: "kube-system", name: "vpn-shoot" })).status?.conditions?.find((x) => x.type === "Ready")?.status === "False" ? true : undefined), 10_000, 100);

  await startHealth();
  await conditionWith("healthy again", (x) => x.status === "True");
});

test("a health port that accepts but never answers fails the check after its 5 s timeout", async () => {
  mode = "hang";
  try {
    const c = await conditionWith("timed out", (x) => x.status === "False");
    assert.equal(c.message, "Tunnel connection has not been established (could not forward to vpn-shoot pod (timeout after 5 seconds): no answer from pod kube-system/vpn-shoot on port 8080 within 5 s)");
  } finally {
    mode = "ok";
  }
  await conditionWith("healthy again", (x) => x.status === "True");
});

test("a deleted vpn-shoot Pod is written again", async () => {
  await shoot.admin.delete(Pods, { namespace: "kube-system", name: "vpn-shoot" }, { gracePeriodSeconds: 0 });
  const pod = await eventually("the Pod again, Running", async () => {
    const p = await shoot.admin.get(Pods, { namespace: "kube-system", name: "vpn-shoot" }).catch(() => undefined);
    return p?.status?.phase === "Running" ? p : undefined;
  }, 10_000, 100);
  assert.equal(pod.status?.podIP, CLIENT_IP);
});
