// The commands as a user runs them: bin/gardener-controller-manager.js and bin/gardenlet.js as
// child processes against the test's garden and seed API servers (the provider runs in-process
// with the test actuator). They start, elect a leader, serve probes and metrics, drive a Bastion
// to Ready and away, and stop cleanly on SIGTERM. Bad flags exit 2 with one line.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { join } from "node:path";
import { SEEDS_GROUP } from "../../../src/apis/gardencore/v1beta1/types.ts";
import { seedUserName } from "../../../src/api/gardencore/identity.ts";
import { Leases, Namespaces } from "../../../src/client/builtins.ts";
import { Bastions, Shoots } from "../../../src/client/garden.ts";
import { repoRoot } from "../../support/apiserver.ts";
import { eventually } from "../../support/http.ts";
import { type Landscape, PROJECT_NS, bastionFor, createShoot, gone, ready, startLandscape } from "./landscape.ts";

interface Proc {
  child: ChildProcess;
  output(): string;
  exit(): Promise<number | null>;
}

function run(bin: string, args: string[]): Proc {
  const child = spawn(process.execPath, [join(repoRoot, "bin", bin), ...args], { cwd: repoRoot, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  child.stdout?.on("data", (c: Buffer) => (out += c.toString("utf8")));
  child.stderr?.on("data", (c: Buffer) => (out += c.toString("utf8")));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return { child, output: () => out, exit: () => exited };
}

function metricsUrl(p: Proc): string | undefined {
  return /metrics on (http:\/\/[\d.:]+)\/metrics/.exec(p.output())?.[1];
}

describe("gardener-controller-manager and gardenlet commands", () => {
  let ls: Landscape;
  let gcm: Proc;
  let gardenlet: Proc;
  before(async () => {
    ls = await startLandscape({ controllers: false });
    await ls.gardenAdmin.create(Namespaces, { metadata: { name: "garden" } });
    gcm = run("gardener-controller-manager.js", ["--kubeconfig", ls.garden.adminKubeconfigPath, "--metrics-bind-address", "127.0.0.1:0", "--bastion-max-lifetime", "8h"]);
    const gardenKubeconfig = await ls.kubeconfigFor(seedUserName("a"), [SEEDS_GROUP]);
    gardenlet = run("gardenlet.js", ["--garden-kubeconfig", gardenKubeconfig, "--seed-kubeconfig", ls.seed.adminKubeconfigPath, "--seed-name", "a", "--metrics-bind-address", "127.0.0.1:0"]);
    await eventually("both started", () => (metricsUrl(gcm) && metricsUrl(gardenlet) ? true : undefined), 90_000); // two cold tsx starts on a loaded machine
  });
  after(async () => {
    for (const p of [gcm, gardenlet]) if (p && p.child.exitCode === null) p.child.kill("SIGKILL");
    await ls?.stop();
  });

  test("they elect a leader, serve probes and metrics, and run the bastion flow", async () => {
    const lease = await eventually("leader lease", () => ls.gardenAdmin.get(Leases, { namespace: "garden", name: "gardener-controller-manager-leader-election" }));
    assert.ok(lease.spec?.holderIdentity);
    for (const p of [gcm, gardenlet]) {
      const r = await fetch(`${metricsUrl(p)}/readyz`);
      assert.equal(r.status, 200, p.output());
    }
    await eventually("project namespace from the GCM's project controller", async () => ((await ls.gardenAdmin.get(Namespaces, { name: PROJECT_NS })) ? true : undefined));
    await createShoot(ls, "s");
    const alice = await ls.clientFor("alice");
    await eventually("alice may create bastions", () => alice.create(Bastions, bastionFor("s", "via-cmd")));
    await ready(ls, "via-cmd");
    await ls.gardenAdmin.patch(Shoots, { namespace: PROJECT_NS, name: "s" }, { type: "merge", body: { spec: { hibernation: { enabled: true } } } });
    await gone(ls, "s", "via-cmd");
    const metrics = await (await fetch(`${metricsUrl(gcm)}/metrics`)).text();
    assert.match(metrics, /controller_runtime_reconcile_total\{controller="bastion",result="success"\} [1-9]/);
  });

  test("SIGTERM stops both with exit code 0", async () => {
    gcm.child.kill("SIGTERM");
    gardenlet.child.kill("SIGTERM");
    assert.equal(await gcm.exit(), 0, gcm.output());
    assert.equal(await gardenlet.exit(), 0, gardenlet.output());
  });

  test("bad flags: one line on stderr, exit 2", () => {
    const r = spawnSync(process.execPath, [join(repoRoot, "bin", "gardener-controller-manager.js"), "--kubeconfig", join(repoRoot, "package.json"), "--bastion-max-lifetime", "forever"], { encoding: "utf8" });
    assert.equal(r.status, 2);
    assert.equal(r.stderr, 'error: --bastion-max-lifetime: invalid duration "forever": unexpected "forever" (expected a number followed by a unit)\n');
    const g = spawnSync(process.execPath, [join(repoRoot, "bin", "gardenlet.js"), "--seed-name", "a"], { encoding: "utf8" });
    assert.equal(g.status, 2);
    assert.equal(g.stderr, "error: --garden-kubeconfig is required\n");
  });
});
