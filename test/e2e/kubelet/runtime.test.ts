// The node agent's pod runtime inside a real worker machine: a driver (driver.ts) runs the runtime in the
// machine through execInMachine, as the node agent would, and prints what it saw; this file asserts on it
// and, from the host, that deleting pods leaves nothing in the machine.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { MachineInfo } from "../../../src/host/index.ts";
import { cleanUpAndAssertNoLeaks, newTestHost, skipUnlessRoot, type TestHost } from "../host/support.ts";

const here = dirname(fileURLToPath(import.meta.url));
const REPO = resolve(here, "..", "..", "..");
const STATE = "/var/lib/gardener-node-agent/host";

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

describe("kubelet e2e: pods in a worker machine", { skip: skipUnlessRoot }, () => {
  let t: TestHost | undefined;
  let m: MachineInfo;

  const drive = async (scenario: string): Promise<Json> => {
    const r = await t!.host.execInMachine(m.name, "sh", ["-c", `cd ${REPO} && exec node --import tsx ${join(here, "driver.ts")} ${STATE} ${scenario}`], { timeoutMs: 180_000 });
    const last = r.stdout.trim().split("\n").pop() ?? "";
    return JSON.parse(last) as Json;
  };

  before(async () => {
    t = await newTestHost();
    const binds = ["bin", "src", "node_modules", "package.json", "tsconfig.json", "test/e2e/kubelet"].map((p) => join(REPO, p));
    m = await t.host.startMachine({ name: "worker", networks: [], readOnlyBinds: binds, sshd: { hostKeyTypes: ["ed25519"], listenAddresses: ["127.0.0.1"] }, userData: "#!/bin/sh\nsystemctl start sshd\n", readyTimeoutMs: 60_000 });
    t.tracker.netns(m.netns);
    t.tracker.pidnsOf(m.init!.pid);
  });

  after(() => cleanUpAndAssertNoLeaks(t));

  test("a busybox pod reports terminated exit code 3 and its log lines; images without profile; init containers in order, each next one started when the one before ends (no poller)", async () => {
    const r = await drive("basic");
    const s = r.status.containerStatuses[0];
    assert.equal(s.state.terminated.exitCode, 3);
    assert.equal(s.state.terminated.reason, "Error");
    assert.equal(r.status.phase, "Failed");
    assert.equal(s.imageID, "toolbox://shell");
    assert.deepEqual(r.logs.split("\n").sort(), ["", "hi", "oops"]);
    assert.deepEqual(r.bad.state.waiting, { reason: "ErrImagePull", message: 'image "nginx:1.25" maps to no toolbox profile' });
    assert.equal(r.bad2.state.waiting.reason, "ImagePullBackOff");
    assert.deepEqual(r.init.initContainerStatuses.map((x: Json) => x.state.terminated?.reason), ["Completed", "Completed"]);
    assert.equal(r.init.phase, "Running");
    assert.equal(r.initLogs, "one\ntwo\n", "the second init container ran after the first, the main container after both");
    // Without the poller: each init container's end was seen through its exit file and reported.
    assert.ok(r.initChanges >= 2, `changes reported for the init pod: ${r.initChanges}`);
  });

  test("restartPolicy Always restarts with doubling back-off, CrashLoopBackOff in between, lastState and --previous logs", async () => {
    const r = await drive("restart");
    const seen = r.seen as Json[];
    // The back-off the runtime waited before each restart, as its CrashLoopBackOff message says: none before the
    // first restart, then 1 s, doubled to the 2 s cap. Wall times below only bound it from below (a loaded
    // machine adds detection and start to each gap, never takes from it).
    const backoffs = new Map<number, string>();
    for (const x of seen) if (x.reason === "CrashLoopBackOff" && x.restartCount < 4) backoffs.set(x.restartCount, /back-off (\d+s)/.exec(x.message)?.[1] ?? x.message);
    assert.deepEqual(Object.fromEntries(backoffs), { 1: "1s", 2: "2s", 3: "2s" }, JSON.stringify(seen));
    const gaps = r.gaps as number[];
    assert.ok(gaps.length >= 4, JSON.stringify(r.gaps));
    assert.ok(gaps[1]! >= 1000 && gaps[2]! >= 2000 && gaps[3]! >= 2000, `waited 1 s, then 2 s, then 2 s: ${gaps.join(", ")}`);
    assert.ok(r.final.restartCount >= 4);
    assert.equal(r.final.lastState.terminated.exitCode, 1);
    assert.equal(r.previous, "run\n");
  });

  test("exec: exit codes, stdout, stdin, the container's env and /etc/hosts, a missing command is 127", async () => {
    const r = await drive("exec");
    assert.equal(r.exit7.code, 7);
    const [greeting, hostname, ...hosts] = r.echo.out.split("\n");
    assert.equal(greeting, "hello s3cr3t exec");
    assert.equal(hostname, "exec");
    assert.match(hosts.join("\n"), /^10\.96\.7\.\d+\texec$/m);
    assert.match(hosts.join("\n"), /^10\.96\.0\.1\tkubernetes .*kubernetes\.default\.svc /m);
    assert.equal(r.stdin.out, "piped\n");
    assert.equal(r.missing.code, 127);
  });

  test("a tty container answers stty size after a resize; tty exec; attach sees the exit code", async () => {
    const r = await drive("tty");
    assert.match(r.size, /40 100/);
    assert.match(r.execOut, /33 120/);
    assert.equal(r.execCode, 5);
    assert.equal(r.attachExit, 4);
  });

  test("an unprivileged container sees neither the machine's processes nor its mounts; a privileged hostPID one does", async () => {
    const r = await drive("isolation");
    const [procs, caps, mounts, addr] = r.plain.out.split("\n");
    assert.ok(!/\b(init|sshd|node|shim)/.test(procs), procs);
    assert.match(caps, /CapEff:\s+00000000a80425fb/, "Docker's default capabilities");
    assert.ok(!mounts.includes("/work") && !mounts.includes(STATE) && !mounts.includes("/run/ga"), mounts);
    assert.match(addr, /^10\.96\.7\.\d+\/24$/);
    const [pprocs, pcaps] = r.priv.out.split("\n");
    assert.match(pprocs, /\binit\b.*\bsshd\b/, "hostPID shows the machine's processes");
    assert.match(pcaps, /CapEff:\s+000001ffffffffff/, "privileged: every capability");
    assert.equal(r.mountAttempt.code, 32, "no CAP_SYS_ADMIN");
    assert.equal(r.ping.code, 0, "pods reach each other over the pod bridge");
  });

  test("secret volumes update atomically through ..data, read-only; hostPath writes reach the machine", async () => {
    const r = await drive("volumes");
    assert.match(r.before.out, /^one\nca-one\n.*\.\.data /);
    assert.equal(r.after.out.split("\n").slice(0, 2).join("\n"), "two\nca-two");
    assert.match(r.after.err, /Read-only file system/);
    assert.equal(r.hostFile, "host\n");
  });

  test("SIGKILL of the runtime while pods run: a new one adopts them, deletion leaves no process, mount, namespace or record", async () => {
    const r = await drive("crash");
    assert.deepEqual(r.listed, ["adopt-a", "adopt-b"]);
    for (const k of ["adopted-adopt-a", "adopted-adopt-b"]) for (const c of r[k]) assert.deepEqual(c, { running: true, restarts: 0, same: true });
    assert.deepEqual(r.logsAfterCrash, ["tick", "tick", "tick"], "the shim kept logging while no runtime ran");
    assert.ok(r.checked >= 5);
    assert.deepEqual(r.leftovers, { netns: [], alive: [], pods: 0 });
    assert.deepEqual(r.mounts, []);
    assert.deepEqual(r.processesInContainerMountNamespaces, []);
    assert.deepEqual(r.records, []);
    const inside = await t!.host.execInMachine(m.name, "sh", ["-c", `ip netns list; ip -o link show | grep -c veth || true; grep -c ${STATE} /proc/self/mountinfo || true`]);
    assert.deepEqual(inside.stdout.trim().split("\n"), ["0", "0"], "from the host: no pod namespace, veth or mount in the machine");
  });
});
