// bin/kube-scheduler.js as a landscape starts it: with the API server's scheduler.kubeconfig
// (user system:kube-scheduler, bootstrap ClusterRole system:kube-scheduler) and leader election,
// it binds a pod, serves /metrics and /healthz, and stops on SIGTERM with exit 0. Bad flags: exit 2, one line.
import assert from "node:assert/strict";
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { type Lease, Leases } from "../../../src/client/builtins.ts";
import { repoRoot } from "../../support/apiserver.ts";
import { type Env, addNode, boundNode, createPod, eventually, namespace, startEnv } from "./support.ts";

const BIN = join(repoRoot, "bin", "kube-scheduler.js");

void describe("kube-scheduler command", { timeout: 90_000 }, () => {
  let env: Env;
  let child: ChildProcess | undefined;
  before(async () => {
    env = await startEnv();
    await namespace(env, "cmd");
    await addNode(env, "cmd-node");
  });
  after(async () => {
    if (child && child.exitCode === null) child.kill("SIGKILL");
    await env?.stop();
  });

  void it("exits 2 with one line for bad flags and 0 for --help", () => {
    const bad = spawnSync(process.execPath, [BIN], { encoding: "utf8" });
    assert.equal(bad.status, 2);
    assert.equal(bad.stderr, "error: --kubeconfig is required\n");
    const help = spawnSync(process.execPath, [BIN, "--help"], { encoding: "utf8" });
    assert.equal(help.status, 0);
    for (const flag of ["--kubeconfig", "--leader-elect", "--metrics-bind-address", "--log-level"]) assert.ok(help.stdout.includes(flag), flag);
    assert.match(help.stdout, /fewest pods/);
  });

  void it("binds pods as system:kube-scheduler with leader election, serves metrics, stops on SIGTERM", async () => {
    child = spawn(process.execPath, [BIN, "--kubeconfig", env.server.schedulerKubeconfigPath, "--metrics-bind-address", "127.0.0.1:0", "--log-level", "warn"], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    child.stdout?.on("data", (c: Buffer) => (out += c.toString()));
    child.stderr?.on("data", (c: Buffer) => (out += c.toString()));
    const exited = new Promise<number | null>((resolve) => child!.once("exit", (code) => resolve(code)));
    const url = await eventually("ready line", () => /metrics on (http:\/\/\S+)\/metrics/.exec(out)?.[1], 30_000);

    await createPod(env, "cmd", "web");
    assert.equal(await boundNode(env, "cmd", "web"), "cmd-node");
    const lease: Lease = await env.admin.get(Leases, { namespace: "kube-system", name: "kube-scheduler" });
    assert.ok(lease.spec?.holderIdentity, "the scheduler holds the kube-scheduler Lease");
    const metrics = await (await fetch(`${url}/metrics`)).text();
    assert.match(metrics, /controller_runtime_reconcile_total\{controller="scheduler"/);
    assert.equal((await fetch(`${url}/healthz`)).status, 200);

    child.kill("SIGTERM");
    assert.equal(await exited, 0, out);
    assert.doesNotMatch(out, /forbidden/i);
  });
});
