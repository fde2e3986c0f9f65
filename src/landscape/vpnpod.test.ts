import assert from "node:assert/strict";
import { test } from "node:test";
import { VPN_SHOOT_NODE, podStatus, vpnShootPod } from "./vpnpod.ts";

const base = { address: "10.250.0.2", restarts: 0, startTime: "2026-11-27T07:00:00Z", previous: undefined };
const ready = (s: ReturnType<typeof podStatus>) => s.conditions?.find((c) => c.type === "Ready");

test("the vpn-shoot Pod carries Gardener's labels, is bound to a node no kubelet has and sits on the client's address", () => {
  const pod = vpnShootPod("10.250.0.2");
  assert.deepEqual([pod.metadata.namespace, pod.metadata.name, pod.metadata.labels?.app, pod.metadata.labels?.type], ["kube-system", "vpn-shoot", "vpn-shoot", "tunnel"]);
  assert.deepEqual([pod.spec?.nodeName, pod.spec?.hostNetwork], [VPN_SHOOT_NODE, true]);
  assert.equal(pod.spec?.containers[0]?.ports?.[0]?.containerPort, 8080);
});

test("its status: Pending before the processes ran, Running and Ready while healthy, Running but not ready after they died; transitions only on change", () => {
  const pending = podStatus({ ...base, running: false, ready: false, nowIso: "2026-11-27T07:00:00Z" });
  assert.equal(pending.phase, "Pending");
  assert.equal(pending.containerStatuses?.[0]?.state?.waiting?.reason, "ContainerCreating");

  const up = podStatus({ ...base, running: true, ready: true, nowIso: "2026-11-27T07:00:02Z", previous: pending });
  assert.deepEqual([up.phase, up.podIP, up.hostIP, ready(up)?.status, ready(up)?.lastTransitionTime], ["Running", "10.250.0.2", "10.250.0.2", "True", "2026-11-27T07:00:02Z"]);
  const still = podStatus({ ...base, running: true, ready: true, nowIso: "2026-11-27T07:00:04Z", previous: up });
  assert.equal(ready(still)?.lastTransitionTime, "2026-11-27T07:00:02Z", "no transition without a change");

  const unhealthy = podStatus({ ...base, running: true, ready: false, nowIso: "2026-11-27T07:00:06Z", previous: still });
  assert.deepEqual([unhealthy.phase, ready(unhealthy)?.status, ready(unhealthy)?.lastTransitionTime], ["Running", "False", "2026-11-27T07:00:06Z"]);
  const died = podStatus({ ...base, running: false, ready: true, restarts: 1, nowIso: "2026-11-27T07:00:08Z", previous: up });
  assert.deepEqual([died.phase, ready(died)?.status, died.containerStatuses?.[0]?.state?.waiting?.reason, died.containerStatuses?.[0]?.restartCount], ["Running", "False", "CrashLoopBackOff", 1]);
});
