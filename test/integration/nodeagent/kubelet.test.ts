// The node agent as kubelet against a real API server, with the pod runtime in memory (fake-runtime.ts)
// and a fake clock: the Node and its Lease, env and volumes resolved from Secrets, ConfigMaps and a
// pod-bound token, the status as the kubelet writes it, CreateContainerConfigError, volume updates on
// the resync, Events, graceful deletion and adoption after a restart.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { Pod } from "../../../src/apis/core/v1/pod.ts";
import type { Node } from "../../../src/apis/core/v1/types.ts";
import { isNotFound } from "../../../src/apimachinery/errors.ts";
import { ConfigMaps, Leases, Secrets } from "../../../src/client/builtins.ts";
import { Client } from "../../../src/client/client.ts";
import { Events } from "../../../src/client/events.ts";
import type { NodeAgent } from "../../../src/nodeagent/agent.ts";
import { LEASE_RENEW_MS } from "../../../src/nodeagent/kubelet/heartbeat.ts";
import { Pods } from "../../../src/nodeagent/kubelet/kubelet.ts";
import { Nodes } from "../../../src/nodeagent/node.ts";
import { FakeClock } from "../../../src/utils/clock.ts";
import { eventually } from "../../support/http.ts";
import { type InProcessServer, startInProcessApiServer } from "../../support/inprocess.ts";
import { NODE, startFakeKubelet } from "./fake-kubelet.ts";
import { FakeRuntime } from "./fake-runtime.ts";

const NS = "default";
const b64 = (s: string) => Buffer.from(s).toString("base64");

describe("node agent as kubelet (fake runtime)", { timeout: 120_000 }, () => {
  let dir: string;
  let api: InProcessServer;
  let client: Client;
  let clock: FakeClock;
  let runtime: FakeRuntime;
  let agent: NodeAgent;

  const start = (rt: FakeRuntime): Promise<NodeAgent> => startFakeKubelet(api, dir, clock, rt);
  const pod = (name: string) => client.get(Pods, { namespace: NS, name });
  const events = async (name: string) => (await client.list(Events, { namespace: NS })).items.filter((e) => e.involvedObject.name === name).map((e) => `${e.type} ${e.reason} ${e.message}`);

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), "kubelet-it-"));
    api = await startInProcessApiServer({ dataDir: join(dir, "api") });
    client = api.admin;
    clock = new FakeClock(Date.now());
    runtime = new FakeRuntime();
    agent = await start(runtime);
  });
  after(async () => {
    await agent?.stop();
    await api?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("registers the Node as a kubelet does and renews its Lease every 10 s", async () => {
    const node: Node = await eventually("node registered by the kubelet", async () => {
      const n = await client.get(Nodes, { name: NODE });
      return n.spec?.podCIDR && n.status?.nodeInfo ? n : undefined;
    });
    assert.equal(node.spec?.podCIDR, "10.96.1.0/24");
    assert.deepEqual(node.spec?.podCIDRs, ["10.96.1.0/24"]);
    assert.equal(node.metadata.labels?.["kubernetes.io/hostname"], NODE);
    assert.deepEqual(node.status?.addresses, [{ type: "InternalIP", address: "10.250.0.10" }, { type: "Hostname", address: NODE }]);
    assert.equal(node.status?.daemonEndpoints?.kubeletEndpoint?.Port, 10250);
    assert.match(node.status?.nodeInfo?.kubeletVersion ?? "", /^v1\.\d+\.\d+/);
    assert.equal(node.status?.capacity?.pods, "110");
    assert.deepEqual(node.status?.conditions?.map((c) => [c.type, c.status, c.reason]), [
      ["MemoryPressure", "False", "KubeletHasSufficientMemory"],
      ["DiskPressure", "False", "KubeletHasNoDiskPressure"],
      ["PIDPressure", "False", "KubeletHasSufficientPID"],
      ["Ready", "True", "KubeletReady"],
    ]);
    const first = await eventually("lease", () => client.get(Leases, { namespace: "kube-node-lease", name: NODE }).catch(() => undefined));
    assert.equal(first.spec?.holderIdentity, NODE);
    assert.equal(first.spec?.leaseDurationSeconds, 40);
    assert.equal(first.metadata.ownerReferences?.[0]?.uid, node.metadata.uid);
    clock.step(LEASE_RENEW_MS);
    const renewed = await eventually("renewed lease", async () => {
      const l = await client.get(Leases, { namespace: "kube-node-lease", name: NODE });
      return l.spec?.renewTime !== first.spec?.renewTime ? l : undefined;
    });
    assert.equal(Date.parse(renewed.spec!.renewTime!) - Date.parse(first.spec!.renewTime!), LEASE_RENEW_MS);
  });

  it("runs a bound pod with env from a Secret, a configMap volume and a pod-bound token; writes its status and events", async () => {
    await client.create(Secrets, { metadata: { name: "creds", namespace: NS }, data: { password: b64("s3cr3t") } });
    await client.create(ConfigMaps, { metadata: { name: "conf", namespace: NS }, data: { "a.txt": "one", other: "x" } });
    await eventually("default service account", () => client.transport.request({ method: "GET", path: `/api/v1/namespaces/${NS}/serviceaccounts/default` }).catch(() => undefined));
    await client.create(Pods, {
      metadata: { name: "web", namespace: NS, labels: { app: "web" } },
      spec: {
        nodeName: NODE,
        containers: [
          {
            name: "c0",
            image: "busybox",
            env: [
              { name: "PASSWORD", valueFrom: { secretKeyRef: { name: "creds", key: "password" } } },
              { name: "POD", valueFrom: { fieldRef: { fieldPath: "metadata.name" } } },
              { name: "OPT", valueFrom: { configMapKeyRef: { name: "absent", key: "k", optional: true } } },
            ],
            volumeMounts: [{ name: "conf", mountPath: "/conf" }],
          },
        ],
        volumes: [{ name: "conf", configMap: { name: "conf", items: [{ key: "a.txt", path: "dir/a.txt" }] } }],
      },
    });
    const running = await eventually("Running", async () => {
      const p = await pod("web");
      return p.status?.phase === "Running" ? p : undefined;
    });
    const uid = running.metadata.uid!;
    const sync = runtime.syncs.find((s) => s.uid === uid)!;
    assert.deepEqual(sync.inputs.env?.c0, { PASSWORD: "s3cr3t", POD: "web" });
    assert.deepEqual(sync.inputs.volumes?.conf, { "dir/a.txt": { data: "one", mode: 0o644 } });
    const api = Object.keys(sync.inputs.volumes ?? {}).find((v) => v.startsWith("kube-api-access-"))!;
    const files = sync.inputs.volumes![api]!;
    assert.deepEqual(Object.keys(files).sort(), ["ca.crt", "namespace", "token"]);
    assert.equal(typeof files.token === "object" && files.token.data.split(".").length, 3, "a JWT");
    assert.equal(typeof files.namespace === "object" && files.namespace.data, NS);
    const s = running.status!;
    assert.equal(s.hostIP, "10.250.0.10");
    assert.deepEqual(s.hostIPs, [{ ip: "10.250.0.10" }]);
    assert.match(s.podIP ?? "", /^10\.96\.1\.\d+$/);
    assert.ok(s.startTime);
    assert.equal(s.qosClass, "BestEffort");
    assert.deepEqual(s.conditions?.map((c) => [c.type, c.status]), [["PodReadyToStartContainers", "True"], ["Initialized", "True"], ["Ready", "True"], ["ContainersReady", "True"], ["PodScheduled", "True"]]);
    assert.equal(s.containerStatuses?.[0]?.state?.running !== undefined, true);
    const ev = await eventually("events", async () => {
      const e = await events("web");
      return e.some((x) => x.includes("Started")) ? e : undefined;
    });
    assert.ok(ev.includes('Normal Pulled Container image "busybox" already present on machine as toolbox profile "shell"'), ev.join("\n"));
    assert.ok(ev.includes("Normal Created Created container: c0"));
    assert.ok(ev.includes("Normal Started Started container c0"));
  });

  it("a container that ends is written at once, without the next relist (the clock stands still)", async () => {
    await client.create(Pods, { metadata: { name: "once", namespace: NS }, spec: { nodeName: NODE, restartPolicy: "Never", automountServiceAccountToken: false, containers: [{ name: "c0", image: "busybox" }] } });
    const running = await eventually("Running", async () => {
      const p = await pod("once");
      return p.status?.phase === "Running" ? p : undefined;
    });
    runtime.exit(running.metadata.uid!, "c0", 0);
    const done = await eventually("Succeeded", async () => {
      const p = await pod("once");
      return p.status?.phase === "Succeeded" ? p : undefined;
    });
    assert.equal(done.status?.containerStatuses?.[0]?.state?.terminated?.exitCode, 0);
    await client.delete(Pods, { namespace: NS, name: "once" }, { gracePeriodSeconds: 0 });
  });

  it("a changed ConfigMap reaches the runtime on the next volume resync", async () => {
    const uid = (await pod("web")).metadata.uid!;
    const before = runtime.syncs.filter((s) => s.uid === uid).length;
    await client.patch(ConfigMaps, { namespace: NS, name: "conf" }, { type: "merge", body: { data: { "a.txt": "two" } } });
    clock.step(5000);
    const last = await eventually("resynced", () => {
      const all = runtime.syncs.filter((s) => s.uid === uid);
      return all.length > before ? all[all.length - 1] : undefined;
    });
    assert.deepEqual(last.inputs.volumes?.conf, { "dir/a.txt": { data: "two", mode: 0o644 } });
  });

  it("a missing Secret leaves the container waiting with CreateContainerConfigError until it exists", async () => {
    await client.create(Pods, {
      metadata: { name: "needs", namespace: NS },
      spec: { nodeName: NODE, automountServiceAccountToken: false, containers: [{ name: "c0", image: "busybox", env: [{ name: "X", valueFrom: { secretKeyRef: { name: "later", key: "x" } } }] }] },
    });
    const waiting = await eventually("waiting", async () => {
      const p = await pod("needs");
      return p.status?.containerStatuses?.[0]?.state?.waiting?.reason === "CreateContainerConfigError" ? p : undefined;
    });
    assert.equal(waiting.status?.containerStatuses?.[0]?.state?.waiting?.message, 'secret "later" not found');
    assert.equal(waiting.status?.phase, "Pending");
    assert.deepEqual(waiting.status?.conditions?.find((c) => c.type === "Ready")?.message, "containers with unready status: [c0]");
    assert.ok((await eventually("Failed event", async () => ((await events("needs")).includes('Warning Failed Error: secret "later" not found') ? true : undefined))));
    assert.equal(runtime.syncs.some((s) => s.uid === waiting.metadata.uid), false, "nothing ran");
    await client.create(Secrets, { metadata: { name: "later", namespace: NS }, data: { x: b64("now") } });
    clock.step(5000);
    await eventually("running", async () => ((await pod("needs")).status?.phase === "Running" ? true : undefined));
  });

  it("graceful deletion: kill with the grace period, cleanup, then the pod is deleted with grace 0", async () => {
    const p = await pod("needs");
    await client.delete(Pods, { namespace: NS, name: "needs" }, { gracePeriodSeconds: 7 });
    await eventually("gone", () => pod("needs").then(() => undefined, (err: unknown) => (isNotFound(err) ? true : undefined)));
    assert.deepEqual(runtime.kills.filter((k) => k.uid === p.metadata.uid), [{ uid: p.metadata.uid, grace: 7 }]);
    assert.ok(runtime.cleanups.includes(p.metadata.uid!));
    await eventually("Killing event", async () => ((await events("needs")).includes("Normal Killing Stopping container c0") ? true : undefined));
  });

  it("after a restart, adopts the pods the API still has and cleans up the rest", async () => {
    const web: Pod = await pod("web");
    await agent.stop();
    const rt2 = new FakeRuntime();
    rt2.preload({ metadata: { name: "web", namespace: NS, uid: web.metadata.uid! }, spec: { containers: [{ name: "c0", image: "busybox" }] } });
    rt2.preload({ metadata: { name: "stale", namespace: NS, uid: "0000-stale" }, spec: { containers: [{ name: "c0", image: "busybox" }] } });
    const startedBefore = (await events("web")).filter((e) => e.includes("Started")).length;
    agent = await start(rt2);
    await eventually("stale cleaned", () => (rt2.cleanups.includes("0000-stale") ? true : undefined));
    await eventually("web adopted", () => (rt2.syncs.some((s) => s.uid === web.metadata.uid) ? true : undefined));
    assert.equal(rt2.cleanups.includes(web.metadata.uid!), false);
    assert.equal(agent.kubelet?.podByName(NS, "web")?.metadata.uid, web.metadata.uid);
    clock.step(1000);
    assert.equal((await events("web")).filter((e) => e.includes("Started")).length, startedBefore, "no second Started for the adopted container");
  });
});
