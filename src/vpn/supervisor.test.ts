import assert from "node:assert/strict";
import { test } from "node:test";
import { FakeHost } from "../host/index.ts";
import { FakeClock } from "../utils/clock.ts";
import { ProcessSupervisor } from "./supervisor.ts";

/** Lets the supervisor's promise chains run between clock steps. */
const settle = () => new Promise((r) => setImmediate(r));

test("an exited process is started again after the restart delay, not before; stop ends supervision", async () => {
  const host = new FakeHost();
  const clock = new FakeClock();
  let restarts = 0;
  const sup = new ProcessSupervisor(host, { name: "openvpn.x", command: "openvpn" }, { clock, pollMs: 200, restartDelayMs: 1000, onRestart: () => restarts++ });
  await sup.start();
  const first = sup.pid;
  assert.ok(first);
  host.state.processes.get("openvpn.x")!.running = false;
  clock.step(200);
  await settle();
  assert.equal(await sup.running(), false);
  clock.step(999);
  await settle();
  assert.equal(await sup.running(), false, "not before the delay");
  clock.step(1);
  await settle();
  await settle();
  assert.equal(await sup.running(), true);
  assert.notEqual(sup.pid, first);
  assert.equal(restarts, 1);
  assert.equal(sup.restarts, 1);

  await sup.stop();
  assert.equal(await host.processStatus("openvpn.x"), undefined, "stopped and forgotten");
  clock.step(10_000);
  await settle();
  assert.equal(await host.processStatus("openvpn.x"), undefined, "not restarted after stop");
});

test("a failed start is tried again after the restart delay", async () => {
  const host = new FakeHost();
  const clock = new FakeClock();
  const errors: unknown[] = [];
  let fail = true;
  const real = host.startProcess.bind(host);
  host.startProcess = (spec) => (fail ? Promise.reject(new Error("no openvpn")) : real(spec));
  const sup = new ProcessSupervisor(host, { name: "p", command: "openvpn" }, { clock, onError: (e) => errors.push(e) });
  await sup.start();
  assert.equal(errors.length, 1);
  fail = false;
  clock.step(1000);
  await settle();
  assert.equal(await sup.running(), true);
  await sup.stop();
});

test("restart() replaces the running process at once, counts it, and supervision goes on; after stop() it does nothing", async () => {
  const host = new FakeHost();
  const clock = new FakeClock();
  let restarts = 0;
  const sup = new ProcessSupervisor(host, { name: "openvpn.r", command: "openvpn" }, { clock, pollMs: 200, restartDelayMs: 1000, onRestart: () => restarts++ });
  await sup.start();
  const first = sup.pid;
  await sup.restart();
  assert.ok(sup.pid !== undefined && sup.pid !== first, "a new process");
  assert.equal(await sup.running(), true);
  assert.equal(restarts, 1);
  // Still supervised: an exit after the restart is noticed and repaired.
  host.state.processes.get("openvpn.r")!.running = false;
  clock.step(200);
  await settle();
  clock.step(1000);
  await settle();
  await settle();
  assert.equal(await sup.running(), true);
  assert.equal(sup.restarts, 2);
  await sup.stop();
  await sup.restart();
  assert.equal(await host.processStatus("openvpn.r"), undefined, "no process after stop");
});
