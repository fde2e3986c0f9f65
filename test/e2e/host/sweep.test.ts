// Crash safety: a controller process builds namespaces, bridges, tables, processes and machines and is
// killed with SIGKILL; some record files are lost too. A new host object on the same state directory sweeps
// everything away. keep() protects what an owner still claims.
import { after, describe, test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { LinuxHost } from "../../../src/host/index.ts";
import { recordId } from "../../../src/host/records.ts";
import { cleanUpAndAssertNoLeaks, newTestHost, skipUnlessRoot, type TestHost } from "./support.ts";

const child = fileURLToPath(new URL("./crash-child.ts", import.meta.url));

/** Runs crash-child.ts until it reports "built", then kills it with SIGKILL. */
async function buildAndCrash(t: TestHost): Promise<void> {
  const p = spawn(process.execPath, ["--import", "tsx", child, t.stateDir, t.prefix], { stdio: ["ignore", "pipe", "pipe"] });
  let err = "";
  p.stderr.on("data", (d: Buffer) => (err += d.toString()));
  await new Promise<void>((resolve, reject) => {
    p.stdout.on("data", (d: Buffer) => d.toString().includes("built") && resolve());
    p.once("exit", (code) => reject(new Error(`crash-child exited with ${code} before building: ${err}`)));
  });
  const exited = new Promise((r) => p.once("exit", r));
  p.kill("SIGKILL");
  await exited;
}

describe("host e2e: sweep after a crash", { skip: skipUnlessRoot }, () => {
  let t: TestHost | undefined;
  after(() => cleanUpAndAssertNoLeaks(t));

  test("everything of a crashed controller is found and removed, even with record files lost", async () => {
    t = await newTestHost();
    await buildAndCrash(t);
    const host = new LinuxHost({ stateDir: t.stateDir });
    const inv = await host.inventory();
    for (const n of inv.netns) t.tracker.netns(n);
    assert.equal(inv.netns.length, 3, JSON.stringify(inv));
    assert.deepEqual(inv.links, [host.names.link("hostbr")]);
    // The host bridge's anti-spoofing table (guard.ts) beside the controller's own table.
    assert.deepEqual(inv.tables, [`bridge ${host.names.table("guard", host.names.link("hostbr"))}`, `inet ${host.names.table("probe")}`]);
    assert.equal(inv.mounts.filter((m) => m.endsWith("/root")).length, 2, "two machine roots");
    assert.ok(inv.mounts.every((m) => m.includes("/machines/m1/root") || m.includes("/machines/m2/root")), "and only their system binds beside them");
    for (const m of await host.listMachines()) {
      assert.equal(m.running, true, "machines outlive their crashed controller");
      t.tracker.pidnsOf(m.init!.pid);
    }
    // Lose the records of machine m2, the host bridge and the process: only names and paths are left.
    const records = await host.listRecords();
    for (const r of records) {
      const id = recordId(r);
      if (id === "machine/m2" || id.startsWith("link/-/") || r.kind === "process" || r.parent === "machine/m2") {
        await rm(join(t.stateDir, "records", `${encodeURIComponent(id)}.json`));
      }
    }
    const report = await host.sweep();
    assert.deepEqual(report.failed, []);
    assert.deepEqual(await host.inventory(), { netns: [], links: [], tables: [], mounts: [], processes: [] });
    assert.deepEqual(t.tracker.processes(), []);
    assert.deepEqual(await host.listRecords(), []);
  });

  test("keep() protects the objects of owners that still exist", async () => {
    await cleanUpAndAssertNoLeaks(t);
    t = await newTestHost();
    const { host } = t;
    const pub = host.names.netns("pub");
    await host.ensureNetns(pub, { owner: "landscape" });
    await host.ensureBridge({ name: host.names.link("pub"), netns: pub, owner: "landscape" });
    await host.ensureNetns(host.names.netns("gone"), { owner: "bastion/gone" });
    const m = await host.startMachine({
      name: "kept",
      owner: "bastion/kept",
      networks: [{ bridge: host.names.link("pub"), bridgeNetns: pub, address: "192.168.250.30/24" }],
      sshd: { hostKeyTypes: ["ed25519"] },
    });
    t.tracker.netns(m.netns);
    t.tracker.pidnsOf(m.init!.pid);
    await host.ensureNat({ name: "gone", netns: pub, sourceCidr: "10.250.0.0/16", outInterface: host.names.link("pub"), owner: "bastion/gone" });
    await host.ensureNat({ name: "lost", netns: pub, sourceCidr: "10.251.0.0/16", outInterface: host.names.link("pub"), owner: "bastion/kept" });
    const lost = host.names.table("nat", "lost");
    await rm(join(t.stateDir, "records", `${encodeURIComponent(`nftTable/${pub}/ip/${lost}`)}.json`));
    const report = await host.sweep({ keep: (r) => r.owner === "landscape" || r.owner === "bastion/kept" });
    assert.deepEqual(report.failed, []);
    assert.deepEqual(report.removed, [`nftTable/${pub}/ip/${host.names.table("nat", "gone")}`, `netns/${host.names.netns("gone")}`, `nft table ${pub} ip ${lost}`]);
    // Only the bridge's guard is left: it stays with its bridge (and the machine on it).
    assert.deepEqual(await host.listTables(pub), [{ family: "bridge", name: host.names.table("guard", host.names.link("pub")) }]);
    const status = await host.machineStatus("kept");
    assert.equal(status?.running, true);
    assert.equal(status?.ready, true);
    assert.deepEqual((await host.inventory()).netns.sort(), [m.netns, pub].sort());
  });
});
