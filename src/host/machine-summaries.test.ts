import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { MachineSummaries } from "./machine-summaries.ts";
import { statusOf } from "./machine-status.ts";
import { readStartTime } from "./procs.ts";
import { RecordStore, type HostRecord, type MachineRecord, type RecordInput } from "./records.ts";

// The "machines" are this test process: its pid stands for supervisor and init, a listener of its own for sshd.
let server: Server;
let port = 0;
const self = { pid: process.pid, startTime: readStartTime(process.pid)! };

before(async () => {
  server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as { port: number }).port;
});
after(() => server.close());

function setup(t: { after(fn: () => void): void }) {
  const stateDir = mkdtempSync(join(tmpdir(), "summaries-"));
  t.after(() => rmSync(stateDir, { recursive: true, force: true }));
  const records = new RecordStore(stateDir);
  let gets = 0;
  const get = records.get.bind(records);
  records.get = (id: string): Promise<HostRecord | undefined> => ((gets += 1), get(id));
  const machine = (name: string, o: { ready?: boolean; supervisor?: typeof self } = {}): RecordInput => {
    const dir = join(stateDir, "machines", name);
    mkdirSync(join(dir, "ctl"), { recursive: true });
    if (o.ready) for (const [f, text] of [["ready", ""], ["user-data.exit", "0\n"]]) writeFileSync(join(dir, "ctl", f!), text!);
    return {
      kind: "machine",
      name,
      hostname: name,
      netns: `t-m-${name}`,
      dir,
      hostKeysDir: join(dir, "host-keys"),
      supervisor: o.supervisor ?? self,
      init: self,
      interfaces: [{ name: "eth0", address: `10.0.0.${name.length}/24`, hostLink: `t-${name}`, bridge: "br" }],
      sshd: { port, listenAddresses: ["127.0.0.1"], hostKeyFiles: [] },
    };
  };
  return { stateDir, records, machine, gets: () => gets, resetGets: () => (gets = 0) };
}

/** Refreshes until `done` holds (the watch reports a change a moment after the write). */
async function until(s: MachineSummaries, done: () => boolean): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`not reached: ${JSON.stringify(s.list())}`);
    await s.refresh();
    await new Promise((r) => setImmediate(r));
  }
}

test("machines are listed from their records, booting until ready, then ready", async (t) => {
  const h = setup(t);
  await h.records.put(h.machine("b1"), "created");
  const s = new MachineSummaries(h);
  t.after(() => s.close());
  assert.equal(await s.refresh(), true);
  assert.deepEqual(s.list(), [{ name: "b1", state: "Booting", addresses: ["10.0.0.2/24"] }]);
  assert.equal(await s.refresh(), false, "nothing changed");
  writeFileSync(join(h.stateDir, "machines", "b1", "ctl", "user-data.exit"), "0\n");
  writeFileSync(join(h.stateDir, "machines", "b1", "ctl", "ready"), "");
  assert.equal(await s.refresh(), true);
  assert.equal(s.list()[0]?.state, "Ready");
});

test("with many ready machines a refresh that finds no change reads no record; a new, a removed and a dead machine are seen", async (t) => {
  const h = setup(t);
  const names = Array.from({ length: 100 }, (_, i) => `m${i}`);
  await Promise.all(names.map((n) => h.records.put(h.machine(n, { ready: true }), "created")));
  const s = new MachineSummaries(h, { fullLooksPerRefresh: 4, resyncEvery: 1000 });
  t.after(() => s.close());
  await s.refresh();
  assert.equal(s.list().length, 100);
  assert.ok(s.list().every((m) => m.state === "Ready"));
  h.resetGets();
  for (let i = 0; i < 5; i++) assert.equal(await s.refresh(), false);
  assert.equal(h.gets(), 0, "no record read while nothing changed");

  await h.records.put(h.machine("new", { ready: true }), "created");
  await until(s, () => s.list().some((m) => m.name === "new" && m.state === "Ready"));
  await h.records.delete("machine/m7");
  await until(s, () => !s.list().some((m) => m.name === "m7"));
  assert.ok(h.gets() <= 6, `only the changed records were read (${h.gets()})`);

  // A supervisor that is no longer the recorded process: the machine stopped.
  await h.records.put(h.machine("m8", { ready: true, supervisor: { pid: process.pid, startTime: "1" } }), "created");
  await until(s, () => s.list().find((m) => m.name === "m8")?.state === "Stopped");
  assert.equal(s.list().length, 100);
});

test("a machine's status without the socket check trusts its ready report; with it, sshd must listen", async (t) => {
  const h = setup(t);
  const rec = (await h.records.put({ ...h.machine("quiet", { ready: true }), sshd: { port: 1, listenAddresses: ["127.0.0.1"], hostKeyFiles: [] } } as RecordInput, "created")) as MachineRecord;
  assert.equal((await statusOf(rec)).ready, false, "nothing listens on port 1");
  assert.equal((await statusOf(rec, { sockets: false })).ready, true);
});

test("without a records directory at first, records are found once it exists", async (t) => {
  const h = setup(t);
  const s = new MachineSummaries(h);
  t.after(() => s.close());
  assert.equal(await s.refresh(), false);
  assert.deepEqual(s.list(), []);
  await h.records.put(h.machine("late", { ready: true }), "created");
  assert.equal(await s.refresh(), true, "the next refresh resyncs: no watch was running");
  assert.deepEqual(s.list().map((m) => [m.name, m.state]), [["late", "Ready"]]);
});
