import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { type NodeFacts, nodeStatus, nodeStatusChanged } from "./node-status.ts";
import { refreshAt } from "./tokens.ts";
import { containerEvents } from "./pod-events.ts";
import type { ContainerStatus } from "./runtime/types.ts";

const facts: NodeFacts = { hostname: "w1", internalIP: "10.0.0.5", cpus: 2, memoryKi: 4_000_000, ephemeralStorageKi: 1_000_000, machineID: "m", bootID: "b", kernelVersion: "6.1", osImage: "Debian", architecture: "amd64" };

describe("node status", () => {
  it("capacity, allocatable less the eviction threshold, endpoint, addresses and the four conditions", () => {
    const s = nodeStatus(facts, { ready: true }, undefined, "2026-01-01T00:00:00Z");
    assert.deepEqual(s.capacity, { cpu: "2", memory: "4000000Ki", "ephemeral-storage": "1000000Ki", "hugepages-2Mi": "0", pods: "110" });
    assert.equal(s.allocatable?.memory, `${4_000_000 - 102_400}Ki`);
    assert.deepEqual(s.daemonEndpoints, { kubeletEndpoint: { Port: 10250 } });
    assert.deepEqual(s.addresses, [{ type: "InternalIP", address: "10.0.0.5" }, { type: "Hostname", address: "w1" }]);
    assert.deepEqual(s.conditions?.map((c) => [c.type, c.status, c.reason, c.message]), [
      ["MemoryPressure", "False", "KubeletHasSufficientMemory", "kubelet has sufficient memory available"],
      ["DiskPressure", "False", "KubeletHasNoDiskPressure", "kubelet has no disk pressure"],
      ["PIDPressure", "False", "KubeletHasSufficientPID", "kubelet has sufficient PID available"],
      ["Ready", "True", "KubeletReady", "kubelet is posting ready status"],
    ]);
  });

  it("Ready transitions: lastTransitionTime moves only when the status does; heartbeats alone are no change", () => {
    const t0 = nodeStatus(facts, { ready: true }, undefined, "2026-01-01T00:00:00Z");
    const t1 = nodeStatus(facts, { ready: true }, { metadata: {}, status: t0 }, "2026-01-01T00:00:10Z");
    assert.equal(t1.conditions?.[3]?.lastTransitionTime, "2026-01-01T00:00:00Z");
    assert.equal(t1.conditions?.[3]?.lastHeartbeatTime, "2026-01-01T00:00:10Z");
    assert.equal(nodeStatusChanged(t0, t1), false);
    const t2 = nodeStatus(facts, { ready: false, notReadyMessage: "PLEG is not healthy" }, { metadata: {}, status: t1 }, "2026-01-01T00:00:20Z");
    assert.deepEqual([t2.conditions?.[3]?.status, t2.conditions?.[3]?.reason, t2.conditions?.[3]?.message, t2.conditions?.[3]?.lastTransitionTime], ["False", "KubeletNotReady", "PLEG is not healthy", "2026-01-01T00:00:20Z"]);
    assert.equal(nodeStatusChanged(t1, t2), true);
  });
});

describe("tokens and events", () => {
  it("a token is requested anew at 80 % of its lifetime, at most after 24 h", () => {
    assert.equal(refreshAt(0, 3600_000), 2880_000);
    assert.equal(refreshAt(0, 7 * 24 * 3600_000), 24 * 3600_000);
  });

  it("a new container is Pulled (with its toolbox profile), Created and Started once; back-off is a BackOff warning", () => {
    const ref = { name: "p", namespace: "ns", uid: "u" };
    const running: ContainerStatus = { name: "c", image: "busybox", imageID: "toolbox://shell", restartCount: 0, ready: true, started: true, lastState: {}, containerID: "toolbox://u/c/0", state: { running: { startedAt: "x" } } };
    assert.deepEqual(containerEvents(ref, undefined, running, new Set()).map((e) => `${e.type} ${e.reason} ${e.message}`), [
      'Normal Pulled Container image "busybox" already present on machine as toolbox profile "shell"',
      "Normal Created Created container: c",
      "Normal Started Started container c",
    ]);
    assert.deepEqual(containerEvents(ref, running, running, new Set(["toolbox://u/c/0"])), []);
    const backoff = { ...running, ready: false, started: false, state: { waiting: { reason: "CrashLoopBackOff", message: "back-off 10s" } } };
    assert.deepEqual(containerEvents(ref, running, backoff, new Set(["toolbox://u/c/0"])).map((e) => `${e.type} ${e.reason} ${e.message}`), ["Warning BackOff Back-off restarting failed container c in pod p_ns(u)"]);
    const pull: ContainerStatus = { ...backoff, state: { waiting: { reason: "ErrImagePull", message: 'image "nginx" maps to no toolbox profile' } }, image: "nginx" };
    delete pull.containerID;
    assert.deepEqual(containerEvents(ref, undefined, pull, new Set()).map((e) => e.message), ['Failed to pull image "nginx": image "nginx" maps to no toolbox profile', "Error: ErrImagePull"]);
  });
});
