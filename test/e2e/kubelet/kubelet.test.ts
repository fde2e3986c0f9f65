// The node agent as kubelet inside a real worker machine: a driver (kubelet-driver.ts) runs an API server
// and the node agent with a real PodRuntime in the machine and prints what it saw; this file asserts on
// it: pods bound to the node run with status as the kubelet writes it, env from a Secret, a ConfigMap
// change inside the container within 10 s, exit codes and restart policies, graceful deletion that leaves
// nothing, and a SIGKILLed agent's successor adopting what the API still has.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { MachineInfo } from "../../../src/host/index.ts";
import { cleanUpAndAssertNoLeaks, newTestHost, skipUnlessRoot, type TestHost } from "../host/support.ts";

const here = dirname(fileURLToPath(import.meta.url));
const REPO = resolve(here, "..", "..", "..");

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

describe("kubelet e2e: the node agent runs bound pods in a worker machine", { skip: skipUnlessRoot }, () => {
  let t: TestHost | undefined;
  let m: MachineInfo;

  const drive = async (scenario: string): Promise<Json> => {
    const r = await t!.host.execInMachine(m.name, "sh", ["-c", `cd ${REPO} && exec node --import tsx ${join(here, "kubelet-driver.ts")} ${scenario}`], { timeoutMs: 240_000 });
    const last = r.stdout.trim().split("\n").pop() ?? "";
    const out = JSON.parse(last) as Json;
    assert.equal(out.error, undefined, `${out.error}\n${r.stderr.slice(-4000)}`);
    return out;
  };

  before(async () => {
    t = await newTestHost();
    const binds = ["bin", "src", "node_modules", "package.json", "tsconfig.json", "test/e2e/kubelet"].map((p) => join(REPO, p));
    m = await t.host.startMachine({ name: "worker", networks: [], readOnlyBinds: binds, sshd: { hostKeyTypes: ["ed25519"], listenAddresses: ["127.0.0.1"] }, userData: "#!/bin/sh\nsystemctl start sshd\n", readyTimeoutMs: 60_000 });
    t.tracker.netns(m.netns);
    t.tracker.pidnsOf(m.init!.pid);
  });

  after(() => cleanUpAndAssertNoLeaks(t));

  test("run, update, exit codes, restart policies, events and graceful deletion", async (tc) => {
    const r = await drive("run");
    tc.diagnostic(`configMap change inside the container after ${r.configMapUpdateMs} ms; graceful deletion (grace 5 s) done after ${r.deleteMs} ms`);
    const web = r.web;
    assert.equal(web.phase, "Running");
    assert.equal(web.hostIP, "10.96.7.1");
    assert.match(web.podIP, /^10\.96\.7\.\d+$/);
    assert.deepEqual(web.podIPs, [{ ip: web.podIP }]);
    assert.ok(web.startTime);
    assert.equal(web.qosClass, "BestEffort");
    assert.deepEqual(web.conditions.map((c: Json) => [c.type, c.status]), [["PodReadyToStartContainers", "True"], ["Initialized", "True"], ["Ready", "True"], ["ContainersReady", "True"], ["PodScheduled", "True"]]);
    const c0 = web.containerStatuses[0];
    assert.deepEqual([c0.ready, c0.started, c0.restartCount, c0.imageID, typeof c0.state.running.startedAt], [true, true, 0, "toolbox://shell", "string"]);
    assert.equal(r.webExec, "s3cr3t worker\none");
    assert.ok(r.configMapUpdateMs < 10_000, `configMap change seen after ${r.configMapUpdateMs} ms`);

    const never = r.never.containerStatuses[0].state.terminated;
    assert.deepEqual([never.exitCode, never.reason], [3, "Error"]);
    assert.equal(r.never.conditions.find((c: Json) => c.type === "Ready").reason, "PodFailed");
    assert.equal(r.onfailure.containerStatuses[0].state.terminated.exitCode, 0);
    assert.equal(r.onfailure.conditions.find((c: Json) => c.type === "Ready").reason, "PodCompleted");
    const always = r.always.containerStatuses[0];
    assert.equal(r.always.phase, "Running");
    assert.ok(always.restartCount >= 2);
    assert.equal(always.lastState.terminated.exitCode, 1);

    for (const e of ['Normal Pulled Container image "busybox" already present on machine as toolbox profile "shell"', "Normal Created Created container: c0", "Normal Started Started container c0"]) assert.ok(r.webEvents.includes(e), `${e}\n${r.webEvents.join("\n")}`);
    assert.ok(r.alwaysEvents.some((e: string) => /^Warning BackOff Back-off restarting failed container c0 in pod always_default\(/.test(e)), r.alwaysEvents.join("\n"));
    assert.ok(r.webEventsAfterDelete.includes("Normal Killing Stopping container c0"));
    assert.ok(r.deleteMs < 30_000, `deleted after ${r.deleteMs} ms`);
    assert.deepEqual(r.leftovers, { netns: [], pods: [] });
    assert.deepEqual(r.mounts, []);
  });

  test("after a SIGKILL the next agent adopts the running pod and cleans up the one deleted meanwhile", async () => {
    const r = await drive("restart");
    assert.equal(r.recordedWhileDown, 2);
    assert.equal(r.doomedCleaned, true);
    assert.equal(r.survivor.after.id, r.survivor.before.id, "the same container");
    assert.equal(r.survivor.after.restarts, 0);
    assert.equal(r.survivor.after.running, true);
    assert.equal(r.startedEvents, 1, "no second Started for the adopted container");
    assert.deepEqual(r.leftovers, { netns: [], pods: [] });
    assert.deepEqual(r.processes, [], "no process of either pod or of their shims is left");
    assert.deepEqual(r.mounts, []);
  });
});
