import { test } from "node:test";
import assert from "node:assert/strict";
import { Counter, Registry } from "prom-client";
import { type Check, startProbeServer } from "./server.ts";
import { stopOnSignals } from "./signals.ts";

test("healthz/readyz answer 200 ok or 500 with the failing checks; metrics are Prometheus text", async () => {
  const registry = new Registry();
  new Counter({ name: "demo_total", help: "demo", registers: [registry] }).inc(3);
  let ready = false;
  const readyz = new Map<string, Check>([
    ["informers-synced", () => {
      if (!ready) throw new Error("caches are not synced yet");
    }],
  ]);
  const s = await startProbeServer({ host: "127.0.0.1", port: 0, registry, healthz: new Map([["ping", () => undefined]]), readyz });
  const url = `http://127.0.0.1:${s.port}`;
  try {
    const h = await fetch(`${url}/healthz`);
    assert.equal(h.status, 200);
    assert.equal(await h.text(), "ok\n");
    const r = await fetch(`${url}/readyz`);
    assert.equal(r.status, 500);
    assert.equal(await r.text(), "[-]informers-synced failed: caches are not synced yet\nreadyz check failed\n");
    ready = true;
    const r2 = await fetch(`${url}/readyz?verbose`);
    assert.equal(r2.status, 200);
    assert.equal(await r2.text(), "[+]informers-synced ok\nreadyz check passed\n");
    const m = await fetch(`${url}/metrics`);
    assert.match(m.headers.get("content-type") ?? "", /^text\/plain/);
    assert.match(await m.text(), /^demo_total 3$/m);
    assert.equal((await fetch(`${url}/nope`)).status, 404);
    assert.equal((await fetch(`${url}/healthz`, { method: "POST" })).status, 405);
  } finally {
    await s.close();
  }
  await assert.rejects(fetch(`${url}/healthz`));
});

test("the first signal stops and exits 0, a second one exits 1 at once; a lost leadership exits 1", async () => {
  const exits: number[] = [];
  let stops = 0;
  let finishStop!: () => void;
  const target = {
    stop: () => {
      stops++;
      return new Promise<void>((r) => (finishStop = r));
    },
  };
  const remove = stopOnSignals(target, { signals: ["SIGUSR2"], exit: (c) => exits.push(c) });
  try {
    process.emit("SIGUSR2", "SIGUSR2");
    assert.equal(stops, 1);
    assert.deepEqual(exits, []);
    process.emit("SIGUSR2", "SIGUSR2");
    assert.deepEqual(exits, [1]);
    finishStop();
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(exits, [1, 0]);
  } finally {
    remove();
  }
  const lost: number[] = [];
  const remove2 = stopOnSignals({ stop: async () => undefined, done: () => Promise.reject(new Error("leader election lost")) }, { signals: ["SIGUSR2"], exit: (c) => lost.push(c) });
  await new Promise((r) => setImmediate(r));
  remove2();
  assert.deepEqual(lost, [1]);
});
