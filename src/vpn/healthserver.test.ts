import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { Gauge, Registry } from "prom-client";
import { HealthServer } from "./healthserver.ts";

const registry = new Registry();
new Gauge({ name: "vpn_tunnel_up", help: "up", labelNames: ["server"], registers: [registry] }).set({ server: "vpn-seed-server" }, 1);
let failing: string[] = [];
let ready = false;
const server = new HealthServer({ registry, failingChecks: () => failing, readiness: () => ({ ready, message: ready ? "ok: tunnel up" : "no tunnel is up" }) });
let base = "";

before(async () => {
  base = `http://127.0.0.1:${(await server.listen(0, "127.0.0.1")).port}`;
});
after(() => server.close());

const get = async (path: string, method = "GET") => {
  const r = await fetch(base + path, { method });
  return { code: r.status, body: await r.text(), type: r.headers.get("content-type") };
};

test("healthz lists every failing check, readyz follows readiness", async () => {
  assert.deepEqual(await get("/healthz"), { code: 200, body: "ok\n", type: "text/plain; charset=utf-8" });
  failing = ["openvpn vpn-seed-server-0: no status", "egress proxy: not listening"];
  assert.equal((await get("/healthz")).body, "openvpn vpn-seed-server-0: no status\negress proxy: not listening\n");
  assert.equal((await get("/healthz")).code, 500);
  assert.deepEqual((await get("/readyz?verbose")).code, 503);
  ready = true;
  assert.deepEqual(await get("/readyz"), { code: 200, body: "ok: tunnel up\n", type: "text/plain; charset=utf-8" });
});

test("metrics, HEAD, other methods and paths", async () => {
  const m = await get("/metrics");
  assert.equal(m.code, 200);
  assert.match(m.body, /^vpn_tunnel_up\{server="vpn-seed-server"\} 1$/m);
  assert.deepEqual(await get("/readyz", "HEAD"), { code: 200, body: "", type: "text/plain; charset=utf-8" });
  assert.equal((await get("/healthz", "POST")).code, 405);
  assert.equal((await get("/", "GET")).code, 404);
});

test("close ends open keep-alive connections", async () => {
  const extra = new HealthServer({ registry, failingChecks: () => [], readiness: () => ({ ready: true, message: "ok" }) });
  const port = (await extra.listen(0, "127.0.0.1")).port;
  assert.equal((await fetch(`http://127.0.0.1:${port}/healthz`)).status, 200);
  await extra.close();
  await assert.rejects(fetch(`http://127.0.0.1:${port}/healthz`));
});
