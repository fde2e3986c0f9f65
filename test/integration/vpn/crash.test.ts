// Whoever deployed the VPN crashes (SIGKILL) with the tunnel up: its openvpn and vpn-seed-server processes
// live on in their namespaces, and a sweep of the state directory finds and removes every host object.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { after, describe, test } from "node:test";
import { LinuxHost } from "../../../src/host/index.ts";
import { isAlive } from "../../../src/host/procs.ts";
import { type TestHost, cleanUpAndAssertNoLeaks, newTestHost } from "../../e2e/host/support.ts";
import { skipVpn } from "./topology.ts";

const child = fileURLToPath(new URL("./crash-child.ts", import.meta.url));

describe("reversed VPN after a crash of its deployer", { skip: skipVpn }, () => {
  let t: TestHost | undefined;
  after(() => cleanUpAndAssertNoLeaks(t));

  test("the VPN processes outlive the crash and a sweep removes everything", async () => {
    t = await newTestHost();
    const p = spawn(process.execPath, ["--import", "tsx", child, t.stateDir, t.prefix], { stdio: ["ignore", "pipe", "pipe"] });
    let err = "";
    p.stderr.on("data", (d: Buffer) => (err += d.toString()));
    await new Promise<void>((resolve, reject) => {
      p.stdout.on("data", (d: Buffer) => d.toString().includes("built") && resolve());
      p.once("exit", (code) => reject(new Error(`crash-child exited with ${code} before the tunnel was up: ${err}`)));
    });
    const exited = new Promise((r) => p.once("exit", r));
    p.kill("SIGKILL");
    await exited;

    const host = new LinuxHost({ stateDir: t.stateDir });
    const processes = (await host.listRecords()).filter((r) => r.kind === "process");
    assert.deepEqual(processes.map((r) => r.name).sort(), ["banner", "vpn-seed-server.shoot--local--vpn", "vpn-seed-server.shoot--local--vpn.openvpn", "vpn-shoot-client.shoot--local--vpn"]);
    for (const r of processes) assert.ok(r.kind === "process" && r.process && isAlive(r.process), `${r.name} outlives the crash`);
    const inv = await host.inventory();
    for (const n of inv.netns) t.tracker.netns(n);
    assert.equal(inv.netns.length, 4, JSON.stringify(inv.netns));
    // cleanUpAndAssertNoLeaks (after): removeAll, then no namespace, link, table, mount or process is left.
  });
});
