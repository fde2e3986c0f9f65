// Runs inside the worker machine (started by main.ts): an in-process API server, the node agent as kubelet
// (real PodRuntime) and its kubelet server on 127.0.0.1:10250, as on a worker; measures through the API and
// real kubectl and prints JSON on the last line. The scheduler runs too: pods are created unbound.
// usage: node --import tsx api-driver.ts <pods>
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { Exec, KubeConfig } from "@kubernetes/client-node";
import { pino } from "pino";
import type { Pod } from "../../src/apis/core/v1/pod.ts";
import { writeKubeletServingCertificate } from "../../src/apiserver/certs/kubelet.ts";
import { parseOptions } from "../../src/apiserver/server/options.ts";
import { startApiServer } from "../../src/apiserver/server/server.ts";
import { Client } from "../../src/client/client.ts";
import { createNodeAgent } from "../../src/nodeagent/agent.ts";
import { Pods } from "../../src/nodeagent/kubelet/kubelet.ts";
import { Nodes } from "../../src/scheduler/scheduler.ts";
import { startKubeletServer } from "../../src/nodeagent/kubelet/server/server.ts";
import { createScheduler } from "../../src/scheduler/app.ts";
import { RecordingSshd } from "../../src/nodeagent/sshd.ts";
import { fixedUserManager } from "../../src/nodeagent/users.ts";
import { summarize } from "../support/stats.ts";
import { kubectlRun, ptyPrompt } from "./kubectl.ts";
import { kubeletExec, memory, processIds } from "./probes.ts";

const target = Number(process.argv[2] ?? "100");
const NODE = "worker";
const NS = "default";
const STATE = "/var/lib/gardener-node-agent/kubelet";
const dir = mkdtempSync(join(tmpdir(), "bench-workloads-"));
const parsed = parseOptions(["--data-dir", join(dir, "api"), "--secure-port", "0", "--etcd-compaction-interval", "0s"]);
if (parsed.kind !== "options") throw new Error(parsed.stderr);
const server = await startApiServer(parsed.options, { logger: pino({ level: "silent" }) });
const kubeconfig = server.adminKubeconfigPath;
const client = Client.fromKubeconfigFile(kubeconfig, { fieldManager: "bench" });
const tls = await writeKubeletServingCertificate(join(dir, "api", "pki"), join(dir, "kubelet"), { nodeName: NODE, hosts: ["127.0.0.1"] });
const agent = createNodeAgent({
  client: Client.fromKubeconfigFile(kubeconfig, { fieldManager: "kubelet" }),
  nodeName: NODE, pool: "worker", root: join(dir, "root"), users: fixedUserManager(), sshd: new RecordingSshd(),
  internalIP: "127.0.0.1", hostname: NODE, logger: pino({ level: "silent" }), server: false, defaultMetrics: false,
  kubelet: { stateDir: STATE, podCIDR: "10.96.7.0/23" },
});
await agent.start();
const scheduler = createScheduler({ client: Client.fromKubeconfigFile(server.schedulerKubeconfigPath, { fieldManager: "kube-scheduler" }), logger: pino({ level: "silent" }), server: false, defaultMetrics: false });
await scheduler.start();
const kubelet = agent.kubelet!;
const kserver = await startKubeletServer({
  kubelet, certPem: readFileSync(tls.certFile, "utf8"), keyPem: readFileSync(tls.keyFile, "utf8"), clientCAPem: readFileSync(tls.clientCAFile, "utf8"), address: "127.0.0.1", port: 10250,
});
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
// Measured from a Ready node on: the kubelet reports Ready once its runtime can start pods.
for (let i = 0; i < 600; i++) {
  const node = await client.get(Nodes, { name: NODE }).catch(() => undefined);
  if (node?.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True")) break;
  await sleep(100);
}
let seq = 0;
const podOf = (name: string, c: Record<string, unknown> = {}): Pod => ({
  metadata: { name, namespace: NS },
  spec: { automountServiceAccountToken: false, terminationGracePeriodSeconds: 1, containers: [{ name: "c", image: "busybox", command: ["sleep", "3600"], ...c }] },
});
// Where a pod's start goes: when it was seen bound, when the kubelet handed it to the runtime, when the
// runtime returned, when it was seen Running (ms after its create call).
const marks = new Map<string, { t0: number; bound?: number; syncStart?: number; syncEnd?: number }>();
const runtimeSync = kubelet.runtime.sync.bind(kubelet.runtime);
kubelet.runtime.sync = async (pod, inputs) => {
  const m = marks.get(pod.metadata.name);
  if (m) m.syncStart ??= performance.now() - m.t0;
  const r = await runtimeSync(pod, inputs);
  if (m) m.syncEnd ??= performance.now() - m.t0;
  return r;
};
/**
 * Creates n pods at once and resolves with the ms from the create call to phase Running of each, as a watch
 * delivers them (a list every few ms would cost the API server, in this same process, more than it measures).
 */
async function createRunning(n: number, timeoutMs = 60_000): Promise<{ ms: number[]; names: string[] }> {
  const names = Array.from({ length: n }, () => `p${seq++}`);
  const want = new Set(names);
  const done = new Map<string, number>();
  const resourceVersion = (await client.list(Pods, { namespace: NS })).metadata?.resourceVersion;
  const stop = new AbortController();
  let finish = (): void => undefined;
  const finished = new Promise<void>((resolve) => (finish = resolve));
  const timer = setTimeout(finish, timeoutMs);
  let t0 = performance.now();
  const watching = client
    .watch(Pods, { namespace: NS, ...(resourceVersion ? { resourceVersion } : {}) }, (ev) => {
      const p = ev.object as Pod | undefined;
      const name = p?.metadata?.name;
      if (!p || !name) return;
      const t = performance.now() - t0;
      const m = marks.get(name);
      if (m && p.spec?.nodeName) m.bound ??= t;
      if (want.has(name) && !done.has(name) && p.status?.phase === "Running") {
        done.set(name, t);
        if (done.size === want.size) finish();
      }
    }, stop.signal)
    .catch(() => undefined);
  t0 = performance.now();
  for (const name of names) marks.set(name, { t0 });
  await Promise.all(names.map((name) => client.create(Pods, podOf(name))));
  await finished;
  clearTimeout(timer);
  stop.abort();
  await watching;
  return { ms: [...done.values()], names };
}
async function deleteAll(): Promise<void> {
  const names = (await client.list(Pods, { namespace: NS })).items.map((p) => p.metadata.name!);
  await Promise.all(names.map((name) => client.delete(Pods, { namespace: NS, name }, { gracePeriodSeconds: 0 }).catch(() => undefined)));
  for (let i = 0; i < 2400 && (await kubelet.runtime.list()).length > 0; i++) await sleep(100);
}
const timed = async (n: number, f: () => Promise<unknown>) => {
  const xs: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await f();
    xs.push(performance.now() - t);
  }
  return summarize(xs);
};

const out: Record<string, unknown> = {};
try {
  const serial: number[] = [];
  for (let i = 0; i < 20; i++) serial.push(...(await createRunning(1)).ms);
  out.createSerial = summarize(serial);
  const serialMarks = [...marks.values()];
  for (const k of ["bound", "syncStart", "syncEnd"] as const) out[`serial_${k}`] = summarize(serialMarks.map((m) => m[k] ?? NaN));
  const batch = await createRunning(20);
  out.create20AtOnce = summarize(batch.ms);
  const pod = kubelet.podByName(NS, "p0")!;
  // exec `true`, from the innermost layer out: the runtime's spawn, the kubelet server (WebSocket, mTLS),
  // the API server's proxy (client-node, no process start), kubectl; kubectl's own start is measured
  // by `kubectl get pod` (start, discovery cache, one request).
  out.execRuntime = await timed(20, async () => {
    const s = await kubelet.runtime.exec(pod, "c", ["true"]);
    s.stdout.resume();
    s.stderr?.resume();
    await s.exit;
  });
  const kubeletTls = { ca: readFileSync(join(dir, "api", "pki", "ca.crt"), "utf8"), cert: readFileSync(join(dir, "api", "pki", "apiserver-kubelet-client.crt"), "utf8"), key: readFileSync(join(dir, "api", "pki", "apiserver-kubelet-client.key"), "utf8") };
  out.execKubelet = await timed(20, () => kubeletExec(kserver.port, kubeletTls, NS, "p0", "c", ["true"]));
  const kc = new KubeConfig();
  kc.loadFromFile(kubeconfig);
  out.execApiServer = await timed(20, () => new Promise<void>((resolve, reject) => {
    const sink = new PassThrough().resume();
    new Exec(kc).exec(NS, "p0", "c", ["true"], sink, sink, null, false, () => resolve()).catch(reject);
  }));
  await kubectlRun(kubeconfig, ["get", "pod", "p0", "-o", "name"]);
  out.kubectlGet = await timed(20, () => kubectlRun(kubeconfig, ["get", "pod", "p0", "-o", "name"]));
  out.kubectlExec = await timed(20, () => kubectlRun(kubeconfig, ["exec", "p0", "--", "true"]));
  const prompts: number[] = [];
  for (let i = 0; i < 5; i++) prompts.push(await ptyPrompt(kubeconfig, `t${i}`));
  out.runItPrompt = summarize(prompts);
  await deleteAll();

  const baseline = processIds();
  const before = memory(baseline);
  const t0 = performance.now();
  const scale = await createRunning(target, 240_000);
  const seconds = (performance.now() - t0) / 1000;
  await sleep(3000);
  const afterMem = memory(baseline);
  const running = (await client.list(Pods, { namespace: NS })).items.filter((p) => p.status?.phase === "Running").length;
  out.scale = {
    requested: target, running, runningWithinTimeout: scale.ms.length, seconds, createRunning: summarize(scale.ms),
    podRssKiB: Math.round(afterMem.newRssKiB / Math.max(1, running)), podPssKiB: Math.round(afterMem.newPssKiB / Math.max(1, running)), processes: afterMem.newProcesses,
    selfRssKiBPerPod: Math.round((afterMem.selfRssKiB - before.selfRssKiB) / Math.max(1, running)), selfRssKiB: afterMem.selfRssKiB,
    memAvailableKiBPerPod: Math.round((before.availableKiB - afterMem.availableKiB) / Math.max(1, running)),
  };
  const t1 = performance.now();
  await deleteAll();
  out.deleteAllSeconds = (performance.now() - t1) / 1000;
} catch (err) {
  out.error = String((err as Error).stack ?? err);
}
await deleteAll().catch(() => undefined);
await kserver.close();
await agent.stop();
await scheduler.stop();
client.close();
await server.stop();
rmSync(dir, { recursive: true, force: true });
process.stdout.write(`${JSON.stringify(out)}\n`);
process.exit(0);
