import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Pod } from "../../../../apis/core/v1/pod.ts";
import type { KubeObject } from "../../../../apis/meta/v1/types.ts";
import { compileSchema } from "../../../schema/compile.ts";
import { GenericStore } from "../../generic/store.ts";
import { rejects } from "../../generic/testing/assert.ts";
import { newTestStore } from "../../generic/testing/fixtures.ts";
import { simulateCreate, simulateStatusUpdate, simulateUpdate } from "../testing.ts";
import { withPodBinding } from "./binding.ts";
import { podDefinition as def } from "./definition.ts";
import { defaultPullPolicy } from "./strategy.ts";

const pod = (spec: Record<string, unknown>, name = "p"): KubeObject => ({ apiVersion: "v1", kind: "Pod", metadata: { name, namespace: "dev" }, spec });
const c = (extra: Record<string, unknown> = {}) => ({ name: "c", image: "busybox", ...extra });

describe("Pod defaults", () => {
  it("fills what kube-apiserver fills for `kubectl run`", () => {
    const out = simulateCreate(def, pod({ containers: [c({ ports: [{ containerPort: 80 }], env: [{ name: "N", valueFrom: { fieldRef: { fieldPath: "metadata.name" } } }] })] }));
    assert.deepEqual(out.errors, []);
    const spec = out.obj.spec as Record<string, unknown>;
    assert.equal(spec.restartPolicy, "Always");
    assert.equal(spec.terminationGracePeriodSeconds, 30);
    assert.equal(spec.dnsPolicy, "ClusterFirst");
    assert.equal(spec.schedulerName, "default-scheduler");
    assert.equal(spec.enableServiceLinks, true);
    assert.deepEqual(spec.securityContext, {});
    const ctr = (spec.containers as Record<string, unknown>[])[0]!;
    assert.equal(ctr.imagePullPolicy, "Always");
    assert.equal(ctr.terminationMessagePath, "/dev/termination-log");
    assert.equal(ctr.terminationMessagePolicy, "File");
    assert.deepEqual(ctr.ports, [{ containerPort: 80, protocol: "TCP" }]);
    assert.deepEqual(ctr.env, [{ name: "N", valueFrom: { fieldRef: { apiVersion: "v1", fieldPath: "metadata.name" } } }]);
    assert.deepEqual(out.obj.status, { phase: "Pending", qosClass: "BestEffort" });
  });

  it("pull policy follows the tag, volumes default to emptyDir, requests to limits, hostNetwork ports to hostPort", () => {
    assert.equal(defaultPullPolicy("nginx:1.25"), "IfNotPresent");
    assert.equal(defaultPullPolicy("registry:5000/nginx"), "Always");
    assert.equal(defaultPullPolicy("nginx:latest"), "Always");
    assert.equal(defaultPullPolicy("nginx@sha256:abc"), "IfNotPresent");
    const out = simulateCreate(
      def,
      pod({
        hostNetwork: true,
        serviceAccount: "legacy",
        containers: [c({ resources: { limits: { cpu: "1", memory: "1Gi" } }, ports: [{ containerPort: 8080 }] })],
        volumes: [{ name: "scratch" }, { name: "cm", configMap: { name: "x" } }],
      }),
    );
    assert.deepEqual(out.errors, []);
    const spec = out.obj.spec as Pod["spec"] & Record<string, unknown>;
    assert.deepEqual(spec.volumes, [
      { name: "scratch", emptyDir: {} },
      { name: "cm", configMap: { name: "x", defaultMode: 420 } },
    ]);
    assert.deepEqual(spec.containers[0]!.resources, { limits: { cpu: "1", memory: "1Gi" }, requests: { cpu: "1", memory: "1Gi" } });
    assert.equal(spec.containers[0]!.ports![0]!.hostPort, 8080);
    assert.equal(spec.serviceAccountName, "legacy");
    assert.equal((out.obj.status as Record<string, unknown>).qosClass, "Guaranteed");
  });
});

describe("Pod validation", () => {
  it("reports every problem with Kubernetes' paths and messages", () => {
    const out = simulateCreate(
      def,
      pod({
        containers: [
          c({ name: "c", image: "", ports: [{ containerPort: 70000, protocol: "ICMP" }] }),
          c({ name: "c", env: [{ name: "1X", value: "v" }, { name: "A", value: "v", valueFrom: { secretKeyRef: { key: "k" } } }] }),
          c({ name: "d", volumeMounts: [{ name: "missing", mountPath: "/a" }], resources: { requests: { cpu: "2" }, limits: { cpu: "1" } } }),
        ],
        volumes: [
          { name: "h", hostPath: { path: "/x", type: "Weird" } },
          { name: "two", emptyDir: {}, secret: { secretName: "s" } },
        ],
        restartPolicy: "Sometimes",
      }),
    );
    assert.deepEqual(out.errors, [
      'spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"',
      'spec.volumes[0].hostPath.type: Unsupported value: "Weird": supported values: "", "DirectoryOrCreate", "Directory", "FileOrCreate", "File", "Socket", "CharDevice", "BlockDevice"',
      "spec.volumes[1].secret: Forbidden: may not specify more than 1 volume type",
      "spec.containers[0].image: Required value",
      "spec.containers[0].ports[0].containerPort: Invalid value: 70000: must be between 1 and 65535, inclusive",
      'spec.containers[0].ports[0].protocol: Unsupported value: "ICMP": supported values: "SCTP", "TCP", "UDP"',
      'spec.containers[1].name: Duplicate value: "c"',
      `spec.containers[1].env[0].name: Invalid value: "1X": a valid environment variable name must consist of alphabetic characters, digits, '_', '-', or '.', and must not start with a digit (e.g. 'my.env-name', or 'MY_ENV.NAME', or 'MyEnvName1', regex used for validation is '[-._a-zA-Z][-._a-zA-Z0-9]*')`,
      'spec.containers[1].env[1].valueFrom: Invalid value: "": may not be specified when `value` is not empty',
      "spec.containers[1].env[1].valueFrom.secretKeyRef.name: Required value",
      'spec.containers[2].volumeMounts[0].name: Not found: "missing"',
      'spec.containers[2].resources.requests[cpu]: Invalid value: "2": must be less than or equal to cpu limit of 1',
    ]);
  });

  it("requires containers and checks downward API paths and projected tokens", () => {
    assert.deepEqual(simulateCreate(def, pod({ containers: [] })).errors, ["spec.containers: Required value"]);
    const out = simulateCreate(
      def,
      pod({
        containers: [c({ env: [{ name: "X", valueFrom: { fieldRef: { fieldPath: "spec.bogus" } } }, { name: "L", valueFrom: { fieldRef: { fieldPath: "metadata.labels['app']" } } }] })],
        volumes: [{ name: "t", projected: { sources: [{ serviceAccountToken: { path: "token", expirationSeconds: 60 } }, { configMap: { name: "x", items: [{ key: "k", path: "token" }] } }] } }],
      }),
    );
    assert.deepEqual(out.errors, [
      "spec.volumes[0].projected.sources[0].serviceAccountToken.expirationSeconds: Invalid value: 60: may not specify a duration less than 10 minutes",
      'spec.volumes[0].projected.sources[1].configMap.items[0].path: Invalid value: "token": conflicting duplicate paths',
      'spec.containers[0].env[0].valueFrom.fieldRef.fieldPath: Unsupported value: "spec.bogus": supported values: "metadata.name", "metadata.namespace", "metadata.uid", "spec.nodeName", "spec.serviceAccountName", "status.hostIP", "status.hostIPs", "status.podIP", "status.podIPs"',
    ]);
  });

  it("lets an update change images, activeDeadlineSeconds and add tolerations, nothing else", () => {
    const old = simulateCreate(def, pod({ containers: [c()], activeDeadlineSeconds: 100 })).obj;
    const ok = structuredClone(old);
    const spec = ok.spec as Pod["spec"] & Record<string, unknown>;
    spec.containers[0]!.image = "alpine";
    spec.activeDeadlineSeconds = 50;
    spec.tolerations = [{ key: "k", operator: "Exists" }];
    assert.deepEqual(simulateUpdate(def, ok, old).errors, []);
    const bad = structuredClone(old);
    (bad.spec as Record<string, unknown>).restartPolicy = "Never";
    (bad.spec as Record<string, unknown>).activeDeadlineSeconds = 200;
    assert.deepEqual(simulateUpdate(def, bad, old).errors, [
      "spec.activeDeadlineSeconds: Invalid value: 200: must be less than or equal to previous value",
      "spec: Forbidden: pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)",
    ]);
    const more = structuredClone(old);
    (more.spec as Pod["spec"] & Record<string, unknown>).containers.push(c({ name: "e" }));
    assert.deepEqual(simulateUpdate(def, more, old).errors, ["spec.containers: Forbidden: pod updates may not add or remove containers"]);
  });

  it("status updates keep terminal phases and valid pod IPs", () => {
    const old = simulateCreate(def, pod({ containers: [c()] })).obj;
    old.status = { phase: "Succeeded" };
    const out = simulateStatusUpdate(def, { ...old, status: { phase: "Running", podIP: "10.0.0.1", podIPs: [{ ip: "nope" }] } }, old);
    assert.deepEqual(out.errors, [
      "status.phase: Forbidden: cannot transition from terminal phase Succeeded to Running",
      'status.podIPs[0]: Invalid value: "nope": must be a valid IP address',
      'status.podIPs[0].ip: Invalid value: "nope": must be equal to podIP',
    ]);
  });
});

describe("Pod table", () => {
  const now = new Date("2024-01-01T01:00:00Z");
  const base = (extra: Partial<Pod> = {}): Pod => ({
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "p", creationTimestamp: "2024-01-01T00:00:00Z" },
    spec: { containers: [{ name: "a" }, { name: "b" }] },
    ...extra,
  });

  it("has upstream's columns and shows Pending, Running, restarts, Terminating and Init states", () => {
    assert.deepEqual(
      def.table!.columns.map((col) => [col.name, col.priority]),
      [["Ready", 0], ["Status", 0], ["Restarts", 0], ["Age", 0], ["IP", 1], ["Node", 1], ["Nominated Node", 1], ["Readiness Gates", 1]],
    );
    assert.deepEqual(def.table!.cells(base({ status: { phase: "Pending" } }), now), ["0/2", "Pending", "0", "60m", "<none>", "<none>", "<none>", "<none>"]);
    const running = base({
      spec: { containers: [{ name: "a" }, { name: "b" }], nodeName: "n1", readinessGates: [{ conditionType: "x" }] },
      status: {
        phase: "Running",
        podIPs: [{ ip: "10.1.0.5" }],
        containerStatuses: [
          { name: "a", ready: true, restartCount: 2, image: "i", imageID: "", state: { running: {} }, lastState: { terminated: { exitCode: 1, finishedAt: "2024-01-01T00:55:00Z" } } },
          { name: "b", ready: false, restartCount: 0, image: "i", imageID: "", state: { waiting: { reason: "CrashLoopBackOff" } } },
        ],
      },
    });
    assert.deepEqual(def.table!.cells(running, now), ["1/2", "CrashLoopBackOff", "2 (5m ago)", "60m", "10.1.0.5", "n1", "<none>", "0/1"]);
    const deleting = base({ metadata: { name: "p", creationTimestamp: "2024-01-01T00:00:00Z", deletionTimestamp: "2024-01-01T01:00:30Z" }, status: { phase: "Running" } });
    assert.equal(def.table!.cells(deleting, now)[1], "Terminating");
    const init = base({ spec: { containers: [{ name: "a" }], initContainers: [{ name: "i" }, { name: "j" }] }, status: { phase: "Pending", initContainerStatuses: [{ name: "i", ready: false, restartCount: 0, image: "", imageID: "", state: { terminated: { exitCode: 0 } } }, { name: "j", ready: false, restartCount: 0, image: "", imageID: "", state: { running: {} } }] } });
    assert.equal(def.table!.cells(init, now)[1], "Init:1/2");
  });

  it("offers upstream's field selectors", () => {
    const p = base({ spec: { containers: [], nodeName: "n1", serviceAccountName: "sa", schedulerName: "s" }, status: { phase: "Running", podIP: "10.0.0.1" } });
    const f = def.fieldSelectors!;
    assert.deepEqual(
      ["spec.nodeName", "status.phase", "spec.serviceAccountName", "spec.schedulerName", "status.podIP"].map((k) => f[k]!(p)),
      ["n1", "Running", "sa", "s", "10.0.0.1"],
    );
  });
});

describe("Pod store: binding and graceful deletion", () => {
  async function setup() {
    const t = await newTestStore(def);
    const withBinding = withPodBinding(def, (d) => new GenericStore(d, { storage: t.storage, clock: t.clock, schema: compileSchema(d.schema) }));
    return { ...t, binding: withBinding.subresources!.binding! };
  }

  it("binds once, sets PodScheduled, and refuses a second binding with 409", async () => {
    const t = await setup();
    await t.store.create(t.ctx("dev"), pod({ containers: [c()] }));
    const req = (node: string) => ({ ctx: t.ctx("dev"), verb: "create", namespace: "dev", name: "p", query: new URLSearchParams(), body: { apiVersion: "v1", kind: "Binding", metadata: { name: "p", annotations: { a: "b" } }, target: { kind: "Node", name: node } } });
    const res = await t.binding.handle!(req("n1"));
    assert.equal(res.status, 201);
    const bound = (await t.store.get(t.ctx("dev"), "p")) as Pod;
    assert.equal(bound.spec!.nodeName, "n1");
    assert.equal(bound.metadata.annotations!.a, "b");
    assert.deepEqual(bound.status!.conditions!.map((x) => [x.type, x.status]), [["PodScheduled", "True"]]);
    await rejects(t.binding.handle!(req("n2")), 409, "Conflict", 'Operation cannot be fulfilled on pods/binding "p": pod p is already assigned to node "n1"');
    await rejects(t.binding.handle!({ ...req("n2"), body: { target: {} } }), 422, "Invalid", /target.name: Required value/);
  });

  it("deletes unscheduled pods at once and only marks bound ones until grace 0", async () => {
    const t = await setup();
    await t.store.create(t.ctx("dev"), pod({ containers: [c()] }, "free"));
    assert.equal((await t.store.delete(t.ctx("dev"), "free", {})).deleted, true);

    await t.store.create(t.ctx("dev"), pod({ containers: [c()], nodeName: "n1", terminationGracePeriodSeconds: 60 }, "bound"));
    const first = await t.store.delete(t.ctx("dev"), "bound", {});
    assert.equal(first.deleted, false);
    assert.equal(first.object.metadata.deletionGracePeriodSeconds, 60);
    assert.equal(first.object.metadata.deletionTimestamp, "2026-01-01T12:01:00Z");
    // A longer or equal period changes nothing; a shorter one moves the deadline earlier.
    const again = await t.store.delete(t.ctx("dev"), "bound", { gracePeriodSeconds: 90 });
    assert.equal(again.object.metadata.deletionTimestamp, "2026-01-01T12:01:00Z");
    const shorter = await t.store.delete(t.ctx("dev"), "bound", { gracePeriodSeconds: 10 });
    assert.equal(shorter.deleted, false);
    assert.equal(shorter.object.metadata.deletionTimestamp, "2026-01-01T12:00:10Z");
    assert.equal(shorter.object.metadata.deletionGracePeriodSeconds, 10);
    // The kubelet's confirmation.
    assert.equal((await t.store.delete(t.ctx("dev"), "bound", { gracePeriodSeconds: 0 })).deleted, true);
    await rejects(t.store.get(t.ctx("dev"), "bound"), 404, "NotFound");
  });

  it("deletes terminated pods at once and treats a negative grace period as 1 second", async () => {
    const t = await setup();
    await t.store.create(t.ctx("dev"), pod({ containers: [c()], nodeName: "n1" }, "x"));
    const marked = await t.store.delete(t.ctx("dev"), "x", { gracePeriodSeconds: -5 });
    assert.equal(marked.object.metadata.deletionGracePeriodSeconds, 1);
    await t.store.create(t.ctx("dev"), pod({ containers: [c()], nodeName: "n1" }, "done"));
    const done = (await t.store.get(t.ctx("dev"), "done")) as Pod;
    await t.store.update(t.ctx("dev"), "done", { ...done, status: { phase: "Succeeded" } }, {}, "status");
    assert.equal((await t.store.delete(t.ctx("dev"), "done", {})).deleted, true);
  });
});
