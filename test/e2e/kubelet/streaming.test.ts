// exec, attach and logs end to end: real kubectl (1.33, 1.30) and client-node against an in-process API
// server, which proxies to the kubelet server on 127.0.0.1 (the Node's InternalIP), which runs the
// commands in real containers of a PodRuntime on this host (streaming-fixture.ts).
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { request } from "node:https";
import { PassThrough } from "node:stream";
import { finished } from "node:stream/promises";
import { after, before, describe, test } from "node:test";
import { Attach, Exec, KubeConfig, Log, type V1Status } from "@kubernetes/client-node";
import { kubectl, kubectlPath, kubectlStream, type KubectlVersion } from "../../support/kubectl.ts";
import { skipUnlessRoot } from "../host/support.ts";
import { NS, startFixture, type Fixture } from "./streaming-fixture.ts";

const VERSIONS: KubectlVersion[] = ["1.33", "1.30"];
const LOOP = "i=0; while true; do i=$((i+1)); sleep 0.2; done";

/** kubectl under a pseudo-terminal of 40 rows and 100 columns (script(1)), with `input` typed in; stopped once `until` shows, unless `wait` (then it must end by itself). */
function kubectlInPty(version: KubectlVersion, kubeconfig: string, args: string, input: string, until: RegExp, wait = false): Promise<{ out: string; code: number | null }> {
  const cmd = `stty cols 100 rows 40; exec ${kubectlPath(version)} --kubeconfig ${kubeconfig} ${args}`;
  const child = spawn("script", ["-qec", cmd, "/dev/null"], { stdio: ["pipe", "pipe", "pipe"], env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: `${kubeconfig}-home`, TERM: "xterm" } });
  let out = "";
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill("SIGKILL"), 20_000);
    child.stdout.on("data", (d: Buffer) => {
      out += String(d);
      if (!wait && until.test(out)) child.kill("SIGTERM");
    });
    child.stderr.on("data", (d: Buffer) => (out += String(d)));
    setTimeout(() => child.stdin.write(input), 1500);
    child.once("close", (code) => (clearTimeout(timer), resolve({ out, code })));
  });
}

function text(s: PassThrough): () => string {
  let out = "";
  s.on("data", (d: Buffer) => (out += String(d)));
  return () => out;
}

describe("exec, attach and logs through the API server and the kubelet server", { skip: skipUnlessRoot }, () => {
  let f: Fixture;
  let kc: KubeConfig;

  before(async () => {
    f = await startFixture();
    kc = new KubeConfig();
    kc.loadFromFile(f.admin);
    await f.run("shell", { containers: [{ name: "c", image: "busybox", command: ["sh", "-c", `echo started; ${LOOP}`] }] });
    await f.run("tty", { containers: [{ name: "c", image: "busybox", command: ["sh"], tty: true, stdin: true }] });
    await f.run("two", { containers: [{ name: "a", image: "busybox", command: ["sh", "-c", `echo one; echo two; echo three; ${LOOP}`] }, { name: "b", image: "busybox", command: ["sh", "-c", LOOP] }] });
    await f.run("crash", { containers: [{ name: "c", image: "busybox", command: ["sh", "-c", "echo run; exit 1"] }] });
    await f.run("waiting", { containers: [{ name: "c", image: "nginx:1.25", command: ["sh"] }] });
    await f.run("unscheduled", { containers: [{ name: "c", image: "busybox" }] }, { unscheduled: true });
    for (const p of ["shell", "tty", "two"]) await f.until(p, (s) => s.containerStatuses.every((c) => c.state.running !== undefined));
  });
  after(() => f?.stop());

  for (const v of VERSIONS) {
    test(`kubectl ${v} exec: exit code, stdout and stderr apart, stdin until its end`, async () => {
      const exit3 = await kubectl(v, ["-n", NS, "exec", "shell", "--", "sh", "-c", "exit 3"], { kubeconfig: f.admin });
      assert.equal(exit3.code, 3, exit3.stderr);
      const out = await kubectl(v, ["-n", NS, "exec", "shell", "--", "sh", "-c", "echo out; echo err >&2; hostname"], { kubeconfig: f.admin });
      assert.equal(out.code, 0, out.stderr);
      assert.equal(out.stdout, "out\nshell\n");
      assert.equal(out.stderr, "err\n");
      const cat = await kubectl(v, ["-n", NS, "exec", "-i", "shell", "--", "sh", "-c", "cat; echo done"], { kubeconfig: f.admin, input: "piped\nlines\n" });
      assert.equal(cat.code, 0, cat.stderr);
      assert.equal(cat.stdout, "piped\nlines\ndone\n", "stdin ended (v5 CLOSE) so cat returned");
    });

    test(`kubectl ${v} exec -it through a pty: the terminal's size arrives, exit code 4 (sh -c and an interactive sh), no job control warning`, async () => {
      const r = await kubectlInPty(v, f.admin, `-n ${NS} exec -it shell -- sh -c 'stty size; read x; echo got-$x; exit 4'`, "hello\r", /got-hello/, true);
      assert.match(r.out, /40 100/);
      assert.match(r.out, /got-hello/);
      assert.equal(r.code, 4, r.out);
      const i = await kubectlInPty(v, f.admin, `-n ${NS} exec -it shell -- sh`, "echo $((6*7))i; exit 4\r", /42i/, true);
      assert.match(i.out, /42i/);
      assert.equal(i.code, 4, i.out);
      assert.doesNotMatch(i.out, /process group|job control/i, "the shell owns its terminal");
    });
  }

  test("kubectl attach -it: the container's shell answers what is typed", async () => {
    const r = await kubectlInPty("1.33", f.admin, `-n ${NS} attach -it tty -c c`, "echo attached-$((6*7))\r", /attached-42/);
    assert.match(r.out, /attached-42/);
  });

  test("kubectl logs: one container, -c, --tail, -f until the container ends, --previous, and the upstream 400s", async () => {
    const v = "1.33";
    // kubectl itself picks the first container ("Defaulted container"); the API's own answer:
    const two = await kubectl(v, ["get", "--raw", `/api/v1/namespaces/${NS}/pods/two/log`], { kubeconfig: f.admin });
    assert.notEqual(two.code, 0);
    assert.match(two.stderr, /BadRequest.*a container name must be specified for pod two, choose one of: \[a b\]/);
    assert.equal((await kubectl(v, ["-n", NS, "logs", "two", "-c", "a"], { kubeconfig: f.admin })).stdout, "one\ntwo\nthree\n");
    assert.equal((await kubectl(v, ["-n", NS, "logs", "two", "-c", "a", "--tail", "1"], { kubeconfig: f.admin })).stdout, "three\n");
    assert.equal((await kubectl(v, ["-n", NS, "logs", "shell"], { kubeconfig: f.admin })).stdout, "started\n");
    assert.match((await kubectl(v, ["-n", NS, "logs", "shell", "--timestamps"], { kubeconfig: f.admin })).stdout, /^\d{4}-\d\d-\d\dT\S+Z started\n$/);
    assert.match((await kubectl(v, ["-n", NS, "logs", "two", "-c", "nope"], { kubeconfig: f.admin })).stderr, /container nope is not valid for pod two/);
    assert.match((await kubectl(v, ["-n", NS, "logs", "waiting"], { kubeconfig: f.admin })).stderr, /container "c" in pod "waiting" is waiting to start: (image can't be pulled|trying and failing to pull image)/);
    assert.equal((await kubectl(v, ["-n", NS, "logs", "unscheduled"], { kubeconfig: f.admin })).stdout, "", "no node yet: no log (as kube-apiserver)");

    await f.run("ticker", { restartPolicy: "Never", containers: [{ name: "c", image: "busybox", command: ["sh", "-c", "sleep 1; for i in 1 2 3; do echo tick $i; sleep 0.3; done"] }] });
    const follow = kubectlStream(v, ["-n", NS, "logs", "-f", "ticker"], { kubeconfig: f.admin });
    assert.equal(await follow.exit(20_000), 0, follow.stderr());
    assert.equal(follow.stdout(), "tick 1\ntick 2\ntick 3\n", "lines written after the request started, then the end");

    await f.until("crash", (s) => s.containerStatuses[0]!.restartCount >= 1 && s.containerStatuses[0]!.lastState.terminated !== undefined);
    assert.equal((await kubectl(v, ["-n", NS, "logs", "crash", "--previous"], { kubeconfig: f.admin })).stdout, "run\n");
  });

  test("exec refusals: a pod without a node, a container the pod does not have, a user without create pods/exec", async () => {
    const unscheduled = await kubectl("1.33", ["-n", NS, "exec", "unscheduled", "--", "true"], { kubeconfig: f.admin });
    assert.match(unscheduled.stderr, /pod unscheduled does not have a host assigned/);
    const nope = await kubectl("1.33", ["-n", NS, "exec", "shell", "-c", "nope", "--", "true"], { kubeconfig: f.admin });
    assert.match(nope.stderr, /container nope is not valid for pod shell/);
    const viewer = await kubectl("1.33", ["-n", NS, "exec", "shell", "--", "true"], { kubeconfig: f.viewer });
    assert.notEqual(viewer.code, 0);
    assert.match(viewer.stderr, /Forbidden|forbidden/);
    assert.match(viewer.stderr, /pods\/exec/);
    assert.equal((await kubectl("1.33", ["-n", NS, "logs", "shell"], { kubeconfig: f.viewer })).stdout, "started\n", "the viewer may read logs");
  });

  test("client-node Exec (status callback with the exit code), Attach to a tty from two clients, Log", { timeout: 60_000 }, async () => {
    const out = new PassThrough();
    const read = text(out);
    const status = await new Promise<V1Status>((resolve) => {
      void new Exec(kc).exec(NS, "shell", "c", ["sh", "-c", "echo from-client-node; exit 7"], out, null, null, false, resolve);
    });
    assert.equal(status.status, "Failure");
    assert.equal(status.reason, "NonZeroExitCode");
    assert.equal(status.details?.causes?.[0]?.message, "7");
    assert.equal(read(), "from-client-node\n");

    const first = new PassThrough();
    const firstOut = text(first);
    const input = new PassThrough();
    const ws1 = await new Attach(kc).attach(NS, "tty", "c", first, null, input, true);
    input.write("echo before-$((1+1))\r");
    for (let i = 0; i < 100 && !/before-2/.test(firstOut()); i++) await new Promise((r) => setTimeout(r, 50));
    const second = new PassThrough();
    const secondOut = text(second);
    const ws2 = await new Attach(kc).attach(NS, "tty", "c", second, null, null, true);
    input.write("echo after-$((2+2))\r");
    for (let i = 0; i < 100 && !/after-4/.test(secondOut()); i++) await new Promise((r) => setTimeout(r, 50));
    assert.match(firstOut(), /before-2[\s\S]*after-4/);
    assert.match(secondOut(), /after-4/);
    assert.doesNotMatch(secondOut(), /before-2/, "output from the moment of attaching, no replay");
    ws1.close();
    ws2.close();

    const logOut = new PassThrough();
    const logText = text(logOut);
    // client-node 1.4 pipes the body into the stream and never calls a done callback: wait for the stream's end.
    const ended = finished(logOut);
    await new Log(kc).log(NS, "two", "a", logOut, { tailLines: 2 });
    await ended;
    assert.equal(logText(), "two\nthree\n");
  });

  test("the kubelet port refuses every client but the API server's kubelet-client identity", async () => {
    const call = (creds: { cert?: string; key?: string }) =>
      new Promise<number>((resolve, reject) => {
        const req = request(`https://127.0.0.1:${f.kubelet.port}/containerLogs/${NS}/shell/c`, { ca: f.kubeletTls.ca, ...creds }, (res) => (res.resume(), resolve(res.statusCode ?? 0)));
        req.on("error", reject);
        req.end();
      });
    assert.equal(await call({}), 401);
    assert.equal(await call(f.adminCert), 403, "system:masters is not the kubelet client");
    assert.equal(await call(f.kubeletTls), 200);
  });

  test("kubectl exec -- true: wall time over 20 runs, against kubectl get pod and an in-process WebSocket exec", async () => {
    const p50 = async (run: () => Promise<void>) => {
      const times: number[] = [];
      for (let i = 0; i < 20; i++) {
        const t = performance.now();
        await run();
        times.push(performance.now() - t);
      }
      return times.sort((a, b) => a - b)[10]!;
    };
    const exec = await p50(async () => {
      const r = await kubectl("1.33", ["-n", NS, "exec", "shell", "--", "true"], { kubeconfig: f.admin });
      assert.equal(r.code, 0, r.stderr);
    });
    const get = await p50(async () => {
      const r = await kubectl("1.33", ["-n", NS, "get", "pod", "shell", "-o", "name"], { kubeconfig: f.admin });
      assert.equal(r.code, 0, r.stderr);
    });
    const ws = await p50(
      () =>
        new Promise<void>((resolve, reject) => {
          void new Exec(kc).exec(NS, "shell", "c", ["true"], new PassThrough(), null, null, false, (st) => (st.status === "Success" ? resolve() : reject(new Error(st.message))));
        }),
    );
    process.stdout.write(`# p50 over 20 runs: kubectl exec -- true ${exec.toFixed(0)} ms; kubectl get pod ${get.toFixed(0)} ms; client-node Exec of true ${ws.toFixed(0)} ms\n`);
    assert.ok(exec < 2000, `p50 ${exec} ms`);
  });
});
