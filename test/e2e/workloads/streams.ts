// The streams of the workloads e2e test on the landscape (docs/exec-attach-logs.md): right after `up`,
// exec and logs work without a retry; `exec -it` and `run -it` carry the shell's exit code with kubectl
// 1.30 and 1.33 and no job control warning; `attach -it` to a running tty container; `logs -f` sees a line
// written after it started and ends with the container; a deleted pod's `Killing` event in `describe pod`
// and `get events`.
import assert from "node:assert/strict";
import { eventually } from "../../support/http.ts";
import { kubectlPath, type Kubectl, type KubectlVersion } from "../../support/kubectl.ts";
import { parseTable } from "../../support/table.ts";
import { kubectlInPty, podInPhase } from "./support.ts";

const VERSIONS: KubectlVersion[] = ["1.30", "1.33"];
const NO_JOB_CONTROL = /process group|job control/i;

const pod = (name: string, script: string, extra: object = {}): object => ({
  apiVersion: "v1", kind: "Pod", metadata: { name },
  spec: { restartPolicy: "Never", terminationGracePeriodSeconds: 30, containers: [{ name: "c", image: "busybox", command: ["sh", "-c", script], ...extra }] },
});
const ttyPod = (name: string): object => ({
  apiVersion: "v1", kind: "Pod", metadata: { name },
  spec: { restartPolicy: "Never", containers: [{ name: "c", image: "busybox", command: ["sh"], stdin: true, tty: true }] },
});

/** Pods started at once: a shell for exec, a follow target, one that holds its deletion, two tty shells. */
export async function startStreamPods(k: Kubectl): Promise<void> {
  const items = [
    // Writes "late" once /tmp/go exists (touched by an exec), so `logs -f` surely started before.
    pod("follow", "echo first; while [ ! -e /tmp/go ]; do sleep 0.1; done; echo late"),
    // On TERM it waits for /tmp/stop, so the pod stays Terminating while its events are read.
    pod("killme", "trap 'while [ ! -e /tmp/stop ]; do sleep 0.1; done; exit 0' TERM; echo up; while :; do sleep 0.2; done"),
    ...VERSIONS.map((v) => ttyPod(`attach-${v.replace(".", "-")}`)),
  ];
  await k.ok(["apply", "-f", "-"], { input: JSON.stringify({ apiVersion: "v1", kind: "List", items }) });
}

/** Right after `up`: the first exec and logs on a Running pod succeed at once (no retry). */
export async function firstExecAndLogs(k: Kubectl): Promise<void> {
  await podInPhase(k, "follow", ["Running"]);
  const exec = await k.run(["exec", "follow", "--", "sh", "-c", "echo exec-ok; exit 3"]);
  assert.equal(exec.code, 3, exec.stderr);
  assert.equal(exec.stdout, "exec-ok\n");
  const logs = await k.run(["logs", "follow"]);
  assert.equal(logs.code, 0, logs.stderr);
  assert.equal(logs.stdout, "first\n");
}

/** `logs -f` from before a line is written until the container ends. */
export async function followLogs(k: Kubectl): Promise<void> {
  const follow = k.stream(["logs", "-f", "follow"]);
  try {
    await follow.waitFor(/^first\n/, 20_000);
    await k.ok(["exec", "follow", "--", "touch", "/tmp/go"]);
    assert.equal(await follow.exit(20_000), 0, follow.stderr());
    assert.equal(follow.stdout(), "first\nlate\n", "the line written after logs -f started, then the end");
  } finally {
    await follow.stop();
  }
  assert.equal((await podInPhase(k, "follow", ["Succeeded", "Failed"])).status.phase, "Succeeded");
}

/** exec -it (sh -c and an interactive sh) and run -it exit with the shell's code; attach -it to a running tty container. */
export async function terminals(k: Kubectl): Promise<void> {
  await podInPhase(k, "killme", ["Running"]);
  for (const v of VERSIONS) {
    const c = await kubectlInPty(kubectlPath(v), k.kubeconfig, "exec -it killme -- sh -c 'stty size; exit 4'", []);
    assert.equal(c.code, 4, `${v} exec -it sh -c: ${c.out}`);
    assert.match(c.out, /^40 100\r?$/m);
    const i = await kubectlInPty(kubectlPath(v), k.kubeconfig, "exec -it killme -- sh", [{ until: /# /, send: "echo $((6*7))i; exit 4\r" }]);
    assert.match(i.out, /42i/);
    assert.equal(i.code, 4, `${v} exec -it sh: ${i.out}`);
    assert.doesNotMatch(i.out, NO_JOB_CONTROL, `${v}: the exec'd shell owns its terminal`);
  }
  for (const v of VERSIONS) {
    const name = `attach-${v.replace(".", "-")}`;
    await podInPhase(k, name, ["Running"]);
    const a = await kubectlInPty(kubectlPath(v), k.kubeconfig, `attach -it ${name} -c c`, [
      { until: /press(ing)? enter/i, send: "\r" }, { until: /# /, send: "echo $((6*7))a; exit 5\r" },
    ]);
    assert.match(a.out, /42a/, `${v} attach: ${a.out}`);
    assert.doesNotMatch(a.out, NO_JOB_CONTROL);
    const done = await podInPhase(k, name, ["Succeeded", "Failed"]);
    assert.equal(done.status.containerStatuses?.[0]?.state.terminated?.exitCode, 5, `${v}: the attached shell's exit ended the container`);
  }
  await Promise.all(VERSIONS.map(async (v) => {
    const name = `run-${v.replace(".", "-")}`;
    const run = await kubectlInPty(kubectlPath(v), k.kubeconfig, `run -it --rm ${name} --image=busybox --restart=Never -- sh`, [
      { until: /pressing enter/, send: "\r" }, { until: /# /, send: "echo $((6*7))r; exit 4\r" },
    ]);
    assert.match(run.out, /42r/);
    assert.doesNotMatch(run.out, NO_JOB_CONTROL);
    assert.equal(run.code, 4, `${v} run -it: ${run.out}`);
    assert.match(run.out, new RegExp(`pod "${name}" deleted`));
  }));
}

/** Deleting a pod: `describe pod` shows Killing (`Stopping container c`) while it terminates, `get events` lists it. */
export async function killingEvent(k: Kubectl): Promise<void> {
  await podInPhase(k, "killme", ["Running"]);
  await k.ok(["delete", "pod", "killme", "--wait=false"]);
  const killing = await eventually("Killing in describe pod", async () => {
    const described = await k.ok(["describe", "pod", "killme"]);
    const section = described.split(/^Events:\n/m)[1] ?? "";
    const events = parseTable(section.split("\n").map((l) => l.replace(/^ {2}/, "")).join("\n"));
    return events.records.find((r) => r.Reason === "Killing");
  }, 20_000, 250);
  assert.equal(killing.Type, "Normal");
  assert.equal(killing.Message, "Stopping container c");
  assert.match(killing.From ?? "", /^kubelet$/);
  const listed = parseTable(await k.ok(["get", "events", "--field-selector", "involvedObject.name=killme"]));
  const row = listed.records.find((r) => r.REASON === "Killing");
  assert.ok(row, `Killing in get events: ${JSON.stringify(listed.records)}`);
  assert.deepEqual([row.TYPE, row.OBJECT, row.MESSAGE], ["Normal", "pod/killme", "Stopping container c"]);
  await k.ok(["exec", "killme", "--", "touch", "/tmp/stop"]);
  await eventually("killme gone", async () => ((await k.run(["get", "pod", "killme"])).stderr.includes("NotFound") ? true : undefined), 30_000, 250);
}
