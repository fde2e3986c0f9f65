import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { createCertificateAuthority, issueServingCertificate } from "../apiserver/certs/issue.ts";
import { FakeClock } from "../utils/clock.ts";
import { advance } from "../utils/poll.ts";
import { DOWN_POLL_MS, HEALTH_POLL_MS, SeedServer, nextPollMs } from "./seedserver.ts";
import { type FakeManagement, fakeManagement, statusLines } from "./testing-management.ts";

let m0: FakeManagement;
let m1: FakeManagement;
let server: SeedServer;
let health = 0;
const clock = new FakeClock();

const get = async (path: string) => {
  const r = await fetch(`http://127.0.0.1:${health}${path}`);
  return { code: r.status, body: await r.text() };
};

before(async () => {
  [m0, m1] = await Promise.all([fakeManagement(), fakeManagement()]);
  const ca = await createCertificateAuthority({ commonName: "vpn" });
  const cert = await issueServingCertificate(ca, { hosts: ["vpn-seed-server"] });
  server = new SeedServer({
    servers: [
      { name: "vpn-seed-server-0", tunnelAddress: "127.0.0.1", management: m0.path, clientCn: "vpn-shoot-client-0" },
      { name: "vpn-seed-server-1", tunnelAddress: "127.0.0.1", management: m1.path, clientCn: "vpn-shoot-client-1" },
    ],
    credentials: { certPem: cert.certPem, keyPem: cert.keyPem, caBundlePem: ca.certPem },
    shootCidrs: ["10.250.0.0/16"],
    transferNetwork: "192.168.123.0/24",
    listenAddress: "127.0.0.1",
    egressPort: 0,
    healthPort: 0,
    statusTimeoutMs: 200,
    clock,
  });
  health = (await server.start()).health.port;
});

after(async () => {
  await server.close();
  await Promise.all([m0.close(), m1.close()]);
});

test("no client connected: healthy (both servers answer) but not ready", async () => {
  assert.deepEqual(await get("/healthz"), { code: 200, body: "ok\n" });
  assert.equal((await get("/readyz")).code, 503);
  assert.match((await get("/metrics")).body, /^vpn_tunnel_up\{server="vpn-seed-server-0"\} 0$/m);
});

test("a connected client with the expected CN makes its tunnel up; another CN does not", async () => {
  m0.status = statusLines([{ cn: "vpn-shoot-client-1" }]);
  m1.status = statusLines([{ cn: "vpn-shoot-client-1", rx: 1234 }]);
  await server.poll();
  assert.equal(server.tunnels.isUp("vpn-seed-server-0"), false);
  assert.deepEqual(await get("/readyz"), { code: 200, body: "ok: tunnel up via vpn-seed-server-1\n" });
  const metrics = (await get("/metrics")).body;
  assert.match(metrics, /^vpn_tunnel_up\{server="vpn-seed-server-1"\} 1$/m);
  assert.match(metrics, /^vpn_tunnel_received_bytes_total\{server="vpn-seed-server-1"\} 1234$/m);
});

test("a new connection of the client counts as a reconnect", async () => {
  m1.status = statusLines([{ cn: "vpn-shoot-client-1", since: 1767225700 }]);
  await server.poll();
  assert.match((await get("/metrics")).body, /^vpn_tunnel_reconnects_total\{server="vpn-seed-server-1"\} 1$/m);
});

test("a server that does not answer status within the timeout fails /healthz by name and its tunnel is down", async () => {
  m1.status = undefined;
  await server.poll();
  const h = await get("/healthz");
  assert.equal(h.code, 500);
  assert.match(h.body, /^openvpn vpn-seed-server-1: no status from .* within 200 ms$/m);
  assert.doesNotMatch(h.body, /vpn-seed-server-0/);
  assert.equal((await get("/readyz")).code, 503);
  assert.equal((await get("/nope")).code, 404);
});

test("a server whose management connection ends is down at once, before the next poll", async () => {
  m0.status = statusLines([{ cn: "vpn-shoot-client-0" }]);
  await server.poll();
  assert.equal(server.tunnels.isUp("vpn-seed-server-0"), true);
  const down = new Promise<string>((resolve) => server.tunnels.onDown(resolve));
  m0.kill();
  assert.equal(await down, "vpn-seed-server-0");
  assert.match((await get("/healthz")).body, /^openvpn vpn-seed-server-0: management socket .* closed$/m);
});

test("the poll runs every 250 ms while no tunnel is up and every 2 s while one is", async () => {
  assert.equal(nextPollMs(false), DOWN_POLL_MS);
  assert.equal(nextPollMs(true), HEALTH_POLL_MS);
  assert.equal(nextPollMs(false, 100), 100);
  m0.status = statusLines([]);
  m1.status = statusLines([]);
  await server.poll();
  // Let the scheduled poll (armed after the last one) find no tunnel, then count the polls of 1 s of fake time.
  // After each step, a poll that came due has ended and armed the next one (the clock's one timer) before
  // time moves on, however slow the machine: no poll is skipped, none is counted that did not run.
  const count = async (ms: number): Promise<number> => {
    const before = m0.queries;
    await advance(clock, ms, { stepMs: 50, settled: () => clock.pending() === 1 });
    return m0.queries - before;
  };
  const down = await count(1000);
  assert.ok(down >= 3, `${down} polls in 1 s without a tunnel`);
  m0.status = statusLines([{ cn: "vpn-shoot-client-0" }]);
  await count(500);
  assert.equal(server.tunnels.isUp("vpn-seed-server-0"), true);
  const up = await count(1900);
  assert.ok(up <= 1, `${up} polls in 1.9 s with a tunnel up`);
});
