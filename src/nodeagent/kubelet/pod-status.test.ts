import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Pod } from "../../apis/core/v1/pod.ts";
import { composeStatus, mergeConditions, statusKey } from "./pod-status.ts";
import type { ContainerStatus, PodRuntimeStatus } from "./runtime/types.ts";

const T0 = "2026-01-01T00:00:00Z";
const T1 = "2026-01-01T00:00:05Z";
const pod = (init = false): Pod => ({
  metadata: { name: "p", namespace: "ns", uid: "u" },
  spec: { containers: [{ name: "a", image: "busybox" }, { name: "b", image: "busybox" }], ...(init ? { initContainers: [{ name: "i", image: "busybox" }] } : {}) },
  status: { phase: "Pending", qosClass: "Burstable", conditions: [{ type: "PodScheduled", status: "True", lastTransitionTime: T0 }] },
});
const cs = (name: string, state: ContainerStatus["state"]): ContainerStatus => ({ name, state, lastState: {}, ready: state.running !== undefined, started: state.running !== undefined, restartCount: 0, image: "busybox", imageID: "toolbox://shell" });
const rt = (phase: PodRuntimeStatus["phase"], main: ContainerStatus[], init: ContainerStatus[] = []): PodRuntimeStatus => ({ uid: "u", podIP: "10.96.1.5", phase, containerStatuses: main, initContainerStatuses: init });
const conds = (s: { conditions?: { type: string; status: string; reason?: string; message?: string }[] }) => s.conditions?.map((c) => [c.type, c.status, c.reason ?? "", c.message ?? ""]);

describe("pod status composition", () => {
  it("before the runtime has the pod: Pending, ContainerCreating, nothing ready, PodScheduled True", () => {
    const s = composeStatus({ pod: pod(), hostIP: "10.0.0.1", nowIso: T0 });
    assert.equal(s.phase, "Pending");
    assert.deepEqual(s.containerStatuses?.map((c) => c.state?.waiting?.reason), ["ContainerCreating", "ContainerCreating"]);
    assert.deepEqual(s.hostIPs, [{ ip: "10.0.0.1" }]);
    assert.equal(s.podIP, undefined);
    assert.equal(s.startTime, T0);
    assert.equal(s.qosClass, "Burstable");
    assert.deepEqual(conds(s), [
      ["PodReadyToStartContainers", "False", "", ""],
      ["Initialized", "True", "", ""],
      ["Ready", "False", "ContainersNotReady", "containers with unready status: [a b]"],
      ["ContainersReady", "False", "ContainersNotReady", "containers with unready status: [a b]"],
      ["PodScheduled", "True", "", ""],
    ]);
  });

  it("init containers incomplete, then all running: Initialized and Ready move, transition times only on change", () => {
    const p = pod(true);
    const s1 = composeStatus({ pod: p, runtime: rt("Pending", [cs("a", { waiting: { reason: "PodInitializing" } }), cs("b", { waiting: { reason: "PodInitializing" } })], [cs("i", { running: { startedAt: T0 } })]), nowIso: T0 });
    assert.deepEqual(conds(s1)?.[1], ["Initialized", "False", "ContainersNotInitialized", "containers with incomplete status: [i]"]);
    assert.equal(s1.conditions?.[0]?.status, "True", "the sandbox is there");
    const done = cs("i", { terminated: { exitCode: 0, reason: "Completed", finishedAt: T1 } });
    const s2 = composeStatus({ pod: { ...p, status: s1 }, runtime: rt("Running", [cs("a", { running: { startedAt: T1 } }), cs("b", { running: { startedAt: T1 } })], [done]), nowIso: T1 });
    assert.equal(s2.phase, "Running");
    assert.deepEqual(conds(s2)?.slice(1, 4), [["Initialized", "True", "", ""], ["Ready", "True", "", ""], ["ContainersReady", "True", "", ""]]);
    assert.equal(s2.conditions?.[0]?.lastTransitionTime, T0, "PodReadyToStartContainers stayed True");
    assert.equal(s2.conditions?.[2]?.lastTransitionTime, T1, "Ready changed");
    assert.equal(s2.startTime, s1.startTime);
    assert.equal(s2.podIP, "10.96.1.5");
  });

  it("terminal phases: Succeeded reads PodCompleted, Failed PodFailed, and a terminal phase never goes back", () => {
    const ok = composeStatus({ pod: pod(), runtime: rt("Succeeded", [cs("a", { terminated: { exitCode: 0, reason: "Completed", finishedAt: T1 } }), cs("b", { terminated: { exitCode: 0, reason: "Completed", finishedAt: T1 } })]), nowIso: T1 });
    assert.deepEqual(conds(ok)?.slice(0, 4), [["PodReadyToStartContainers", "False", "", ""], ["Initialized", "True", "", ""], ["Ready", "False", "PodCompleted", ""], ["ContainersReady", "False", "PodCompleted", ""]]);
    const failed = composeStatus({ pod: pod(), runtime: rt("Failed", [cs("a", { terminated: { exitCode: 1, reason: "Error", finishedAt: T1 } }), cs("b", { running: { startedAt: T0 } })]), nowIso: T1 });
    assert.equal(conds(failed)?.[2]?.[2], "PodFailed");
    const again = composeStatus({ pod: { ...pod(), status: failed }, runtime: rt("Running", [cs("a", { running: { startedAt: T1 } }), cs("b", { running: { startedAt: T1 } })]), nowIso: T1 });
    assert.equal(again.phase, "Failed");
  });

  it("a container with a config error waits with the kubelet's reason and is not ready", () => {
    const s = composeStatus({ pod: pod(), nowIso: T0, waiting: { b: { reason: "CreateContainerConfigError", message: 'secret "x" not found' } } });
    assert.deepEqual(s.containerStatuses?.map((c) => c.state?.waiting), [{ reason: "ContainerCreating" }, { reason: "CreateContainerConfigError", message: 'secret "x" not found' }]);
  });

  it("mergeConditions keeps others' conditions and statusKey ignores unchanged times", () => {
    const merged = mergeConditions([{ type: "Custom", status: "True" }, { type: "Ready", status: "False", lastTransitionTime: T0 }], [{ type: "Ready", status: "False", reason: "X" }], T1);
    assert.deepEqual(merged.map((c) => [c.type, c.lastTransitionTime ?? ""]), [["Ready", T0], ["Custom", ""]]);
    const a = composeStatus({ pod: pod(), nowIso: T0 });
    assert.equal(statusKey(a), statusKey(composeStatus({ pod: { ...pod(), status: a }, nowIso: T1 })));
  });
});
