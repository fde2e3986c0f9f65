// Many machines removed at once (host/teardown.ts, used by sweep and `down`): every removed machine's
// processes, mounts, namespace, bridge port and guard elements go; a kept machine on the same bridge
// keeps running and stays reachable; the state directory holds nothing else of them.
import { after, describe, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { cleanUpAndAssertNoLeaks, newTestHost, skipUnlessRoot, type TestHost } from "./support.ts";

const MACHINES = 6;

describe("host e2e: many machines removed at once", { skip: skipUnlessRoot, timeout: 180_000 }, () => {
  let t: TestHost | undefined;
  after(() => cleanUpAndAssertNoLeaks(t));

  test("sweep removes the unkept machines in batches and leaves the kept one running", async () => {
    t = await newTestHost();
    const { host } = t;
    const pub = host.names.netns("pub");
    const bridge = host.names.link("pub");
    await host.ensureNetns(pub, { owner: "landscape" });
    await host.ensureBridge({ name: bridge, netns: pub, addresses: ["198.18.0.1/24"], owner: "landscape" });
    const names = ["kept", ...Array.from({ length: MACHINES }, (_, i) => `m${i}`)];
    const started = await Promise.all(
      names.map((name, i) =>
        host.startMachine({ name, owner: `bastion/${name}`, networks: [{ bridge, bridgeNetns: pub, address: `198.18.0.${10 + i}/24` }], sshd: { hostKeyTypes: ["ed25519"] } }),
      ),
    );
    for (const m of started) {
      t.tracker.netns(m.netns);
      t.tracker.pidnsOf(m.init!.pid);
    }
    const guard = host.names.table("guard", bridge);
    const ports = async (): Promise<string[]> => {
      const json = JSON.parse((await host.execInNetns(pub, "nft", ["-j", "list", "set", "bridge", guard, "ports"])).stdout) as { nftables: { set?: { elem?: string[] } }[] };
      return (json.nftables.find((x) => x.set)?.set?.elem ?? []).sort();
    };
    assert.equal((await ports()).length, names.length);

    const start = performance.now();
    const report = await host.sweep({ keep: (r) => r.owner === "landscape" || r.owner === "bastion/kept" });
    const ms = performance.now() - start;
    assert.deepEqual(report.failed, []);
    assert.deepEqual(report.removed.sort(), started.slice(1).map((m) => `machine/${m.name}`).sort(), "each machine counts as removed");
    process.stderr.write(`sweep of ${MACHINES} machines: ${ms.toFixed(0)} ms\n`);

    const kept = started[0]!;
    assert.deepEqual((await host.inventory()).netns.sort(), [kept.netns, pub].sort());
    assert.deepEqual(await ports(), [host.names.machineLink("kept", 0)], "only the kept machine's port is guarded");
    const out = (await host.execInNetns(pub, "ip", ["-o", "link", "show"])).stdout;
    const links = [...out.matchAll(/^\d+:\s+([^:@\s]+)/gm)].map((m) => m[1]!).filter((l) => l !== "lo");
    assert.deepEqual(links.sort(), [bridge, host.names.machineLink("kept", 0)].sort());
    for (const m of started.slice(1)) {
      assert.equal(await host.machineStatus(m.name), undefined);
      assert.equal(existsSync(join(t.stateDir, "machines", m.name)), false);
    }
    assert.deepEqual((await host.listRecords()).filter((r) => r.parent !== undefined && r.parent !== "machine/kept" && !r.parent.startsWith("link/")), []);
    const status = await host.machineStatus("kept");
    assert.equal(status?.running && status.ready, true);
    assert.equal((await host.execInMachine("kept", "true", [])).exitCode, 0);
  });
});
