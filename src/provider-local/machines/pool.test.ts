import { test } from "node:test";
import assert from "node:assert/strict";
import { FakeHost, type MachineSpec } from "../../host/index.ts";
import { BastionPool, POOL_OWNER } from "./pool.ts";

function pool(host: FakeHost, size: number): BastionPool {
  let n = 0;
  return new BastionPool({ host, size, hostKeyTypes: ["ed25519"], prepare: "#!/bin/sh\n", newName: () => `pool.bastion-${++n}` });
}

const bastion = (name: string, wait = false): MachineSpec => ({
  name, owner: `bastion/shoot--p--s/${name}`, networks: [], userData: "#!/bin/sh\n", sshd: { hostKeyTypes: ["ed25519"] }, wait,
});

const heldMachines = async (host: FakeHost) => (await host.listMachines()).filter((m) => m.held).map((m) => m.name);

test("the pool boots its held machines one at a time in the background and refills after each claim", async () => {
  const host = new FakeHost();
  const p = pool(host, 2);
  await p.start();
  await p.settled();
  assert.deepEqual(p.held(), ["pool.bastion-1", "pool.bastion-2"]);
  assert.deepEqual(await heldMachines(host), ["pool.bastion-1", "pool.bastion-2"]);
  const rec = (await host.listRecords((id) => id === "machine/pool.bastion-1"))[0];
  assert.equal(rec?.owner, POOL_OWNER);
  assert.equal(host.machineSpec("pool.bastion-1").hold, true);

  const info = await p.createMachine(bastion("b1"));
  assert.equal(info.name, "b1");
  assert.ok(host.calls.includes("claimMachine pool.bastion-1 -> b1"), host.calls.join("\n"));
  assert.equal(await host.machineStatus("pool.bastion-1"), undefined, "the claimed machine is the bastion's now");
  await p.settled();
  assert.deepEqual(p.held(), ["pool.bastion-2", "pool.bastion-3"], "refilled");
});

test("no held machine is booted while a creation runs; the refill starts when the last one ends", async () => {
  const host = new FakeHost({ boot: "manual" });
  const p = pool(host, 1);
  await p.start();
  await p.settled();
  // Two creations at once: the first claims the held machine, the second starts one; both wait for their boot.
  const first = p.createMachine(bastion("b1", true));
  const second = p.createMachine(bastion("b2", true));
  await new Promise<void>((r) => setImmediate(r));
  assert.deepEqual(p.held(), []);
  host.completeBoot("b1");
  await first;
  await new Promise<void>((r) => setImmediate(r));
  assert.equal(host.calls.filter((c) => c.startsWith("startMachine pool.")).length, 1, `no refill while b2 is made: ${host.calls.join(", ")}`);
  host.completeBoot("b2");
  await second;
  await p.settled();
  assert.deepEqual(p.held(), ["pool.bastion-2"]);
  assert.ok(host.calls.indexOf("startMachine pool.bastion-2") > host.calls.indexOf("startMachine b2"));
});

test("a held machine that cannot be claimed is removed and the machine is started the usual way", async () => {
  const host = new FakeHost();
  const p = pool(host, 1);
  await p.start();
  await p.settled();
  host.crashMachine("pool.bastion-1");
  const info = await p.createMachine(bastion("b1"));
  assert.equal(info.running, true);
  assert.equal(await host.machineStatus("pool.bastion-1"), undefined, "the dead held machine is gone");
  assert.ok(host.calls.includes("startMachine b1"));
});

test("a pool's stop removes its held machines", async () => {
  const host = new FakeHost();
  const p = pool(host, 2);
  await p.start();
  await p.settled();
  await p.stop();
  assert.deepEqual(await host.listMachines(), []);
  assert.deepEqual(p.held(), []);
});

test("a pool restarted after a crash takes over the machines still held and removes the others", async () => {
  const host = new FakeHost();
  const first = pool(host, 3);
  await first.start();
  await first.settled();
  // first "crashed": it never stopped.
  host.crashMachine("pool.bastion-2");
  let n = 10;
  const again = new BastionPool({ host, size: 2, hostKeyTypes: ["ed25519"], newName: () => `pool.bastion-${++n}` });
  await again.start();
  await again.settled();
  assert.deepEqual(again.held(), ["pool.bastion-1", "pool.bastion-3"]);
  assert.equal(await host.machineStatus("pool.bastion-2"), undefined);
  assert.ok(!host.calls.includes("startMachine pool.bastion-11"), "nothing to boot: two are held");
});

test("size 0 holds nothing: every machine is started", async () => {
  const host = new FakeHost();
  const p = pool(host, 0);
  await p.start();
  await p.settled();
  await p.createMachine(bastion("b1"));
  await p.settled();
  assert.deepEqual(host.calls.filter((c) => c.startsWith("startMachine") || c.startsWith("claimMachine")), ["startMachine b1"]);
});

test("no held machine is booted while a claimed machine is still coming up in whileBusy; the refill starts after", async () => {
  const host = new FakeHost();
  const p = pool(host, 1);
  await p.start();
  await p.settled();
  let ready!: () => void;
  const busy = p.whileBusy(async () => {
    await p.createMachine(bastion("b1"));
    // The claim has returned; the machine's user-data and sshd are still to come.
    await new Promise<void>((r) => (ready = r));
  });
  while (!host.calls.includes("claimMachine pool.bastion-1 -> b1")) await new Promise<void>((r) => setImmediate(r));
  await new Promise<void>((r) => setImmediate(r));
  assert.deepEqual(host.calls.filter((c) => c.startsWith("startMachine pool.")), ["startMachine pool.bastion-1"], "no refill before b1 is ready");
  ready();
  await busy;
  await p.settled();
  assert.deepEqual(p.held(), ["pool.bastion-2"]);
});
