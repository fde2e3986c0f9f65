// The gardenlet's `vpn` controller against in-process garden and seed API servers (the seed server also
// plays the shoot), on a FakeClock: the VPN Secrets with their names, contents and renewal, the shoot copies,
// the Services and Endpoints in plain and HA mode and under hibernation, and the tunnel check's condition from
// a probe stand-in (the real probe through pods/proxy is shown in tunnelcheck.test.ts; docs/reversed-vpn.md#gardenlet).
import assert from "node:assert/strict";
import { X509Certificate } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { pino } from "pino";
import type { Endpoints, Service } from "../../../src/apis/core/v1/service.ts";
import { EC_P256 } from "../../../src/apiserver/certs/keys.ts";
import { loadEgressSelector } from "../../../src/apiserver/egressselector/egressselector.ts";
import { type Secret, ConfigMaps, Secrets } from "../../../src/client/builtins.ts";
import type { Client } from "../../../src/client/client.ts";
import { Shoots } from "../../../src/client/garden.ts";
import { unlessNotFound } from "../../../src/client/helpers.ts";
import { type Gardenlet, createGardenlet } from "../../../src/gardenlet/app.ts";
import { staticShootClients } from "../../../src/gardenlet/controller/sshkeypair/reconciler.ts";
import { EndpointsType, Pods, Services } from "../../../src/gardenlet/controller/vpn/resources.ts";
import type { Probe } from "../../../src/gardenlet/controller/vpn/tunnelcheck.ts";
import { gardenAdmissionPlugins } from "../../../src/plugins/garden.ts";
import { type Clock, FakeClock, realClock } from "../../../src/utils/clock.ts";
import { pollUntil } from "../../../src/utils/poll.ts";
import { vpnIssuer } from "../../../src/vpn/credentials.ts";
import { type InProcessServer, startInProcessApiServer } from "../../support/inprocess.ts";
import { CP, KEY, NS, registerShoot } from "./shoot-setup.ts";

const ADDRESSES = ["127.77.0.1", "127.77.0.2"];
const DAY = 24 * 60 * 60 * 1000;
const dir = mkdtempSync(join(tmpdir(), "vpn-gardenlet-it-"));

let garden: InProcessServer;
let seed: InProcessServer;
let gardenlet: Gardenlet;
const clock = new FakeClock(Date.UTC(2026, 10, 1));
/**
 * The gardenlet's clock: the fake time, fake timers for the controller's requeues (5 s and longer) and real
 * ones for short waits (informer and work-queue retries after a failed request on a loaded machine, which
 * would otherwise wait for a step that never comes).
 */
const gardenletClock: Clock = {
  now: () => clock.now(),
  nowMs: () => clock.nowMs(),
  setTimer: (ms, fn) => (ms >= 5000 ? clock.setTimer(ms, fn) : realClock.setTimer(ms, fn)),
  sleep: (ms, signal) => realClock.sleep(ms, signal),
};
let ready = false;
const probes: { at: number; pod: string; port: number }[] = [];
/** Stands in for the pods/proxy request to the vpn-shoot Pod's health port. */
const probe: Probe = async (_shoot, pod, _timeoutMs) => {
  probes.push({ at: clock.nowMs(), pod: `${pod.namespace}/${pod.name}`, port: pod.port });
  if (!ready) throw new Error("the server is currently unable to handle the request");
};

const secret = (c: Client, namespace: string, name: string) => unlessNotFound(c.get(Secrets, { namespace, name }));
const data = (s: Secret | undefined, key: string) => Buffer.from(s?.data?.[key] ?? "", "base64").toString("utf8");
const cert = (s: Secret | undefined) => new X509Certificate(data(s, "tls.crt"));
const condition = async () => (await garden.admin.get(Shoots, KEY)).status?.conditions?.find((c) => c.type === "SystemComponentsHealthy");
const patchShoot = (body: Record<string, unknown>) => garden.admin.patch(Shoots, KEY, { type: "merge", body });
/**
 * Moves the fake clock stepMs at a time until cond() answers, looking in real time after each step: a pass
 * that was still running during a step schedules its requeue after it, and the next step fires that.
 */
async function stepUntil<T>(what: string, cond: () => Promise<T | undefined> | T | undefined, stepMs: number): Promise<T> {
  for (let i = 0; i < 20; i++) {
    const v = await pollUntil(what, cond, { timeoutMs: 1000 }).catch(() => undefined);
    if (v !== undefined) return v;
    clock.step(stepMs);
  }
  return pollUntil(what, cond);
}
/** Runs a pass now (the care loop's requeue would on the fake clock). */
const kick = () => gardenlet.vpn!.controller.enqueue(KEY);

before(async () => {
  garden = await startInProcessApiServer({ flags: ["--enable-gardener-apis"], gardenAdmission: gardenAdmissionPlugins() });
  seed = await startInProcessApiServer();
  await registerShoot(garden.admin, seed.admin);
  gardenlet = createGardenlet({
    gardenClient: garden.admin,
    seedClient: seed.admin,
    seedName: "a",
    clock: gardenletClock,
    logger: pino({ level: "silent" }),
    server: false,
    defaultMetrics: false,
    shootClients: staticShootClients(new Map([[`${NS}/s`, seed.admin]])),
    vpn: { issuer: vpnIssuer(EC_P256), addresses: { addressesFor: (_ns, count) => ADDRESSES.slice(0, count) }, probe, egressSecretsDir: join(dir, "secrets") },
  });
  await gardenlet.start();
});

after(async () => {
  await gardenlet?.stop();
  await seed?.stop();
  await garden?.stop();
  rmSync(dir, { recursive: true, force: true });
});

test("the seed holds the CA, bundle, certificates and tls-auth key, the shoot its copies", async () => {
  await pollUntil("the last seed secret", () => secret(seed.admin, CP, "vpn-shoot-client"));
  const server = await secret(seed.admin, CP, "vpn-seed-server");
  const ca = new X509Certificate(data(await secret(seed.admin, CP, "ca-vpn"), "ca.crt"));
  assert.match(ca.subject, /CN=vpn/);
  assert.equal(data(await secret(seed.admin, CP, "ca-vpn-bundle"), "bundle.crt"), ca.toString());
  const s = cert(server);
  assert.match(s.subject, /CN=vpn-seed-server/);
  assert.ok(s.checkIssued(ca) && s.verify(ca.publicKey));
  for (const san of ["DNS:vpn-seed-server", `DNS:vpn-seed-server.${CP}`, `DNS:vpn-seed-server.${CP}.svc`, `DNS:vpn-seed-server.${CP}.svc.cluster.local`, "IP Address:127.77.0.1"]) {
    assert.ok(s.subjectAltName?.split(", ").includes(san), `${san} in ${s.subjectAltName}`);
  }
  assert.ok(!s.subjectAltName?.includes("127.77.0.2"));
  const validDays = (Date.parse(s.validTo) - Date.parse(s.validFrom)) / DAY;
  assert.ok(validDays > 364.9 && validDays < 365.1, `leaf valid ${validDays} days`);
  assert.ok((Date.parse(ca.validTo) - Date.parse(ca.validFrom)) / DAY > 3649);
  assert.equal(server?.metadata.labels?.["managed-by"], "secrets-manager");
  assert.equal(server?.metadata.labels?.["valid-until-time"], String(Math.floor(Date.parse(s.validTo) / 1000)));
  for (const name of ["kube-apiserver-http-proxy-client", "vpn-shoot-client"]) {
    const c = cert(await secret(seed.admin, CP, name));
    assert.match(c.subject, new RegExp(`CN=${name}`));
    assert.ok(c.checkIssued(ca));
    assert.equal(c.keyUsage?.includes("1.3.6.1.5.5.7.3.2"), true, "clientAuth");
  }
  const tlsAuth = data(await secret(seed.admin, CP, "vpn-seed-server-tlsauth"), "vpn.tlsauth");
  assert.match(tlsAuth, /^-----BEGIN OpenVPN Static key V1-----\n([0-9a-f]{32}\n){16}-----END OpenVPN Static key V1-----\n$/);
  // The shoot's copies.
  await pollUntil("vpn-shoot-client in the shoot", () => secret(seed.admin, "kube-system", "vpn-shoot-client"));
  const shootCa = await secret(seed.admin, "kube-system", "vpn-shoot-ca");
  assert.equal(data(shootCa, "bundle.crt"), ca.toString());
  assert.equal(data(await secret(seed.admin, "kube-system", "vpn-shoot-tlsauth"), "vpn.tlsauth"), tlsAuth);
  assert.equal(data(await secret(seed.admin, "kube-system", "vpn-shoot-client"), "tls.crt"), data(await secret(seed.admin, CP, "vpn-shoot-client"), "tls.crt"));
});

test("plain mode publishes one headless Service and its Endpoints", async () => {
  const ep = await pollUntil("endpoints", () => unlessNotFound(seed.admin.get(EndpointsType, { namespace: CP, name: "vpn-seed-server" })));
  const svc = await seed.admin.get(Services, { namespace: CP, name: "vpn-seed-server" });
  assert.equal(svc.spec?.clusterIP, "None");
  assert.deepEqual(svc.metadata.labels, { app: "vpn-seed-server" });
  assert.deepEqual(svc.spec?.ports?.map((p) => [p.name, p.port]), [["vpn-seed-server", 1194], ["http-proxy", 9443], ["metrics", 15000]]);
  assert.deepEqual(ep.subsets?.[0]?.addresses?.map((a) => a.ip), ["127.77.0.1"]);
  assert.deepEqual(ep.metadata.labels, { app: "vpn-seed-server" });
});

test("the egress selector ConfigMap points the shoot API server's cluster traffic at the egress proxy", async () => {
  const cm = await pollUntil("the ConfigMap", () => unlessNotFound(seed.admin.get(ConfigMaps, { namespace: CP, name: "kube-apiserver-egress-selector-config" })));
  const yaml = cm.data?.["egress-selector-configuration.yaml"] ?? "";
  assert.match(yaml, /url: https:\/\/127\.77\.0\.1:9443/);
  assert.match(yaml, /name: controlplane\n\s+connection:\n\s+proxyProtocol: Direct/);
  // With the Secrets mounted where the configuration says, the API server's loader accepts it.
  for (const [name, keys] of [["ca-vpn-bundle", ["bundle.crt"]], ["kube-apiserver-http-proxy-client", ["tls.crt", "tls.key"]]] as const) {
    mkdirSync(join(dir, "secrets", name), { recursive: true });
    for (const k of keys) writeFileSync(join(dir, "secrets", name, k), data(await secret(seed.admin, CP, name), k));
  }
  writeFileSync(join(dir, "egress.yaml"), yaml);
  assert.equal(typeof (await loadEgressSelector(join(dir, "egress.yaml"))).cluster, "function");
});

test("the tunnel check: no tunnel pod, no running vpn-shoot pod, a failing probe, then healthy", async () => {
  let c = await pollUntil("NoTunnelDeployed", async () => ((await condition())?.reason === "NoTunnelDeployed" ? await condition() : undefined));
  assert.equal(c?.status, "False");
  assert.equal(c?.message, "no tunnels are currently deployed to perform health-check on");

  await seed.admin.create(Pods, { metadata: { namespace: "kube-system", name: "vpn-shoot", labels: { app: "vpn-shoot", type: "tunnel" } }, spec: { containers: [{ name: "vpn-shoot", image: "vpn-shoot" }] } });
  kick();
  c = await pollUntil("no running pod", async () => ((await condition())?.message.includes("no running vpn-shoot pod") ? await condition() : undefined));
  assert.equal(c?.reason, "TunnelConnectionBroken");
  assert.equal(c?.message, "Tunnel connection has not been established (no running vpn-shoot pod found yet in the shoot cluster)");

  await seed.admin.patchStatus(Pods, { namespace: "kube-system", name: "vpn-shoot" }, { type: "merge", body: { status: { phase: "Running", podIP: "10.250.0.5" } } });
  kick();
  c = await pollUntil("probe failure", async () => ((await condition())?.message.includes("could not forward") ? await condition() : undefined));
  assert.equal(c?.status, "False");
  assert.equal(c?.message, "Tunnel connection has not been established (could not forward to vpn-shoot pod (timeout after 5 seconds): the server is currently unable to handle the request)");
  assert.deepEqual(probes.at(-1)?.pod, "kube-system/vpn-shoot");
  assert.equal(probes.at(-1)?.port, 8080);

  // While failing within 15 min of the spec change, the check runs every 5 s of fake time.
  const before = probes.length;
  const at = clock.nowMs();
  await stepUntil("a probe 5 s later", () => (probes.length > before ? true : undefined), 5000);
  assert.ok(probes[before]!.at - at <= 10_000, `re-checked after ${probes[before]!.at - at} ms of fake time`);

  ready = true;
  c = await stepUntil("healthy", async () => ((await condition())?.status === "True" ? await condition() : undefined), 5000);
  assert.equal(c?.reason, "SystemComponentsRunning");
  assert.equal(c?.message, "All system components are healthy.");
  const transition = c?.lastTransitionTime;
  // Healthy: the care loop checks again within a minute, and an unchanged result writes nothing.
  const count = probes.length;
  await stepUntil("the care loop's probe", () => (probes.length > count ? true : undefined), 60_000);
  assert.equal((await condition())?.lastTransitionTime, transition);
});

test("certificates are kept until 80 % of their validity has passed, then renewed by the same CA", async () => {
  const rv = (await secret(seed.admin, CP, "vpn-seed-server"))?.metadata.resourceVersion;
  const serial = cert(await secret(seed.admin, CP, "vpn-seed-server")).serialNumber;
  const caPem = data(await secret(seed.admin, CP, "ca-vpn"), "ca.crt");
  const tlsAuth = data(await secret(seed.admin, CP, "vpn-seed-server-tlsauth"), "vpn.tlsauth");
  clock.step(290 * DAY);
  const probed = probes.length;
  kick();
  await pollUntil("a pass", () => (probes.length > probed ? true : undefined));
  assert.equal((await secret(seed.admin, CP, "vpn-seed-server"))?.metadata.resourceVersion, rv, "not renewed before 80 %");

  clock.step(3 * DAY);
  kick();
  const renewed = await pollUntil("renewed", async () => {
    const s = await secret(seed.admin, CP, "vpn-seed-server");
    return cert(s).serialNumber !== serial ? s : undefined;
  });
  assert.ok(Date.parse(cert(renewed).validFrom) > clock.nowMs() - DAY);
  assert.equal(data(await secret(seed.admin, CP, "ca-vpn"), "ca.crt"), caPem, "the CA stays");
  assert.equal(data(await secret(seed.admin, CP, "vpn-seed-server-tlsauth"), "vpn.tlsauth"), tlsAuth, "the tls-auth key stays");
  await pollUntil("the shoot's copy renewed", async () => {
    const shootCopy = cert(await secret(seed.admin, "kube-system", "vpn-shoot-client"));
    return shootCopy.serialNumber === cert(await secret(seed.admin, CP, "vpn-shoot-client")).serialNumber && Date.parse(shootCopy.validFrom) > clock.nowMs() - DAY ? true : undefined;
  });
});

test("a replaced CA, a foreign or tampered certificate and a broken tls-auth key are all re-issued", async () => {
  const foreign = await vpnIssuer(EC_P256).ca(clock.now());
  const other = await vpnIssuer(EC_P256).client(foreign, "kube-apiserver-http-proxy-client", clock.now());
  const put = async (name: string, d: Record<string, string>) => {
    const s = (await secret(seed.admin, CP, name))!;
    await seed.admin.update(Secrets, { ...s, data: Object.fromEntries(Object.entries(d).map(([k, v]) => [k, Buffer.from(v).toString("base64")])) });
  };
  await put("kube-apiserver-http-proxy-client", { "tls.crt": other.certPem, "tls.key": other.keyPem });
  await put("vpn-seed-server-tlsauth", { "vpn.tlsauth": "not a key" });
  kick();
  const ca = new X509Certificate(data(await secret(seed.admin, CP, "ca-vpn"), "ca.crt"));
  await pollUntil("egress client re-issued by the shoot's CA", async () => (cert(await secret(seed.admin, CP, "kube-apiserver-http-proxy-client")).checkIssued(ca) ? true : undefined));
  await pollUntil("tls-auth regenerated", async () => (data(await secret(seed.admin, CP, "vpn-seed-server-tlsauth"), "vpn.tlsauth").startsWith("-----BEGIN OpenVPN") ? true : undefined));

  await seed.admin.delete(Secrets, { namespace: CP, name: "ca-vpn" });
  kick();
  const newCa = await pollUntil("a new CA", async () => {
    const s = await secret(seed.admin, CP, "ca-vpn");
    return s && data(s, "ca.crt") !== ca.toString() ? new X509Certificate(data(s, "ca.crt")) : undefined;
  });
  await pollUntil("every leaf re-issued by the new CA", async () => {
    for (const name of ["vpn-seed-server", "kube-apiserver-http-proxy-client", "vpn-shoot-client"]) if (!cert(await secret(seed.admin, CP, name)).checkIssued(newCa)) return undefined;
    return data(await secret(seed.admin, CP, "ca-vpn-bundle"), "bundle.crt") === newCa.toString() ? true : undefined;
  });
});

test("HA: two client certificates, two OpenVPN Services, both addresses; back to plain removes them", async () => {
  await patchShoot({ metadata: { annotations: { "alpha.control-plane.shoot.gardener.cloud/high-availability-vpn": "true" } } });
  const ep = (name: string) => seed.admin.get(EndpointsType, { namespace: CP, name });
  const svc = (name: string) => seed.admin.get(Services, { namespace: CP, name });
  const ports = (s: Service | Endpoints) => ("spec" in s ? (s as Service).spec?.ports : (s as Endpoints).subsets?.[0]?.ports)?.map((p) => p.port);
  // The pass writes vpn-seed-server-0, -1, then vpn-seed-server: wait for the last.
  await pollUntil("HA endpoints", async () => (JSON.stringify(ports(await ep("vpn-seed-server"))) === "[9443,15000]" ? true : undefined));
  assert.deepEqual((await ep("vpn-seed-server-0")).subsets?.[0]?.addresses?.map((a) => a.ip), ["127.77.0.1"]);
  assert.deepEqual((await ep("vpn-seed-server-1")).subsets?.[0]?.addresses?.map((a) => a.ip), ["127.77.0.2"]);
  assert.deepEqual(ports(await svc("vpn-seed-server-0")), [1194]);
  assert.deepEqual(ports(await svc("vpn-seed-server")), [9443, 15000]);
  assert.deepEqual(ports(await ep("vpn-seed-server")), [9443, 15000]);
  await pollUntil("HA secrets", async () => {
    const names = ["vpn-shoot-client-0", "vpn-shoot-client-1"];
    for (const n of names) if (!(await secret(seed.admin, CP, n)) || !(await secret(seed.admin, "kube-system", n))) return undefined;
    return !(await secret(seed.admin, CP, "vpn-shoot-client")) && !(await secret(seed.admin, "kube-system", "vpn-shoot-client")) ? true : undefined;
  });
  assert.match(cert(await secret(seed.admin, "kube-system", "vpn-shoot-client-1")).subject, /CN=vpn-shoot-client-1/);
  assert.ok(cert(await secret(seed.admin, CP, "vpn-seed-server")).subjectAltName?.includes("IP Address:127.77.0.2"), "the server certificate names both addresses");

  await patchShoot({ metadata: { annotations: { "alpha.control-plane.shoot.gardener.cloud/high-availability-vpn": "false" } } });
  await pollUntil("plain again", async () => ((await unlessNotFound(svc("vpn-seed-server-1"))) === undefined ? true : undefined));
  assert.equal(await unlessNotFound(ep("vpn-seed-server-0")), undefined);
  assert.deepEqual(ports(await svc("vpn-seed-server")), [1194, 9443, 15000]);
  await pollUntil("plain client secrets", async () => ((await secret(seed.admin, "kube-system", "vpn-shoot-client")) && !(await secret(seed.admin, CP, "vpn-shoot-client-0")) ? true : undefined));
});

test("CA rotation: prepared trusts old and new CA with every leaf and the tls-auth key new; completed drops the old CA", async () => {
  const rotation = (phase: string) =>
    garden.admin.patchStatus(Shoots, KEY, { type: "merge", body: { status: { credentials: { rotation: { certificateAuthorities: { phase, lastInitiationTime: "2027-09-01T00:00:00Z" } } } } } });
  const oldCa = data(await secret(seed.admin, CP, "ca-vpn"), "ca.crt");
  const oldTlsAuth = data(await secret(seed.admin, CP, "vpn-seed-server-tlsauth"), "vpn.tlsauth");
  await rotation("Preparing");
  const newCa = await pollUntil("a new CA", async () => {
    const pem = data(await secret(seed.admin, CP, "ca-vpn"), "ca.crt");
    return pem !== oldCa ? pem : undefined;
  });
  assert.equal(data(await secret(seed.admin, CP, "ca-vpn-old"), "ca.crt"), oldCa);
  assert.equal((await secret(seed.admin, CP, "ca-vpn"))?.metadata.labels?.["last-rotation-initiation-time"], String(Date.parse("2027-09-01T00:00:00Z") / 1000));
  await pollUntil("the shoot's bundle holds both CAs", async () => (data(await secret(seed.admin, "kube-system", "vpn-shoot-ca"), "bundle.crt") === newCa + oldCa ? true : undefined));
  assert.equal(data(await secret(seed.admin, CP, "ca-vpn-bundle"), "bundle.crt"), newCa + oldCa);
  const ca = new X509Certificate(newCa);
  for (const name of ["vpn-seed-server", "kube-apiserver-http-proxy-client", "vpn-shoot-client"]) assert.ok(cert(await secret(seed.admin, CP, name)).checkIssued(ca), `${name} by the new CA`);
  const newTlsAuth = data(await secret(seed.admin, CP, "vpn-seed-server-tlsauth"), "vpn.tlsauth");
  assert.notEqual(newTlsAuth, oldTlsAuth);

  // Prepared, and further passes: the same rotation is not repeated.
  await rotation("Prepared");
  const rv = (await secret(seed.admin, CP, "ca-vpn"))?.metadata.resourceVersion;
  const probed = probes.length;
  kick();
  await pollUntil("a pass", () => (probes.length > probed ? true : undefined));
  assert.equal((await secret(seed.admin, CP, "ca-vpn"))?.metadata.resourceVersion, rv);
  assert.equal(data(await secret(seed.admin, CP, "vpn-seed-server-tlsauth"), "vpn.tlsauth"), newTlsAuth);

  await rotation("Completing");
  await pollUntil("the old CA deleted", async () => ((await secret(seed.admin, CP, "ca-vpn-old")) === undefined ? true : undefined));
  await pollUntil("bundles with the new CA only", async () =>
    data(await secret(seed.admin, CP, "ca-vpn-bundle"), "bundle.crt") === newCa && data(await secret(seed.admin, "kube-system", "vpn-shoot-ca"), "bundle.crt") === newCa ? true : undefined,
  );
  assert.equal(data(await secret(seed.admin, CP, "ca-vpn"), "ca.crt"), newCa);
  assert.equal(data(await secret(seed.admin, CP, "vpn-seed-server-tlsauth"), "vpn.tlsauth"), newTlsAuth);
});

test("hibernation removes the Endpoints and keeps Services and Secrets", async () => {
  await patchShoot({ spec: { hibernation: { enabled: true } } });
  await pollUntil("endpoints gone", async () => ((await unlessNotFound(seed.admin.get(EndpointsType, { namespace: CP, name: "vpn-seed-server" }))) === undefined ? true : undefined));
  assert.ok(await seed.admin.get(Services, { namespace: CP, name: "vpn-seed-server" }));
  assert.ok(await secret(seed.admin, CP, "ca-vpn"));
  await patchShoot({ spec: { hibernation: { enabled: false } } });
  await pollUntil("endpoints back", () => unlessNotFound(seed.admin.get(EndpointsType, { namespace: CP, name: "vpn-seed-server" })));
});
