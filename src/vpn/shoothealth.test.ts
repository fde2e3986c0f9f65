import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { FakeClock } from "../utils/clock.ts";
import { ShootHealth } from "./shoothealth.ts";
import { type FakeManagement, fakeManagement } from "./testing-management.ts";

let m0: FakeManagement;
let m1: FakeManagement;
let health: ShootHealth;
let port = 0;

const get = async (path: string) => {
  const r = await fetch(`http://127.0.0.1:${port}${path}`);
  return { code: r.status, body: await r.text() };
};

before(async () => {
  [m0, m1] = await Promise.all([fakeManagement(), fakeManagement()]);
  health = new ShootHealth({
    clients: [
      { server: "vpn-seed-server-0", management: m0.path },
      { server: "vpn-seed-server-1", management: m1.path },
    ],
    listenAddress: "127.0.0.1",
    port: 0,
    clock: new FakeClock(),
  });
  port = (await health.start()).port;
});

after(async () => {
  await health.close();
  await Promise.all([m0.close(), m1.close()]);
});

test("running but connecting clients: healthy, not ready", async () => {
  assert.deepEqual(await get("/healthz"), { code: 200, body: "ok\n" });
  assert.deepEqual(await get("/readyz"), { code: 503, body: "no tunnel is connected\n" });
});

test("one CONNECTED tunnel makes it ready and shows in /metrics", async () => {
  m1.state = "CONNECTED";
  await health.poll();
  assert.deepEqual(await get("/readyz"), { code: 200, body: "ok: connected to vpn-seed-server-1\n" });
  assert.match((await get("/metrics")).body, /^vpn_tunnel_up\{server="vpn-seed-server-1"\} 1$/m);
});

test("a client whose management socket is gone fails /healthz by name", async () => {
  await m0.close();
  await health.poll();
  const h = await get("/healthz");
  assert.equal(h.code, 500);
  assert.match(h.body, /^openvpn client of vpn-seed-server-0: management socket /m);
  assert.equal((await get("/readyz")).code, 200, "the other tunnel is still connected");
});
