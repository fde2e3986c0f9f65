// A real in-process API server on a FakeClock (its node lifecycle controller follows it) and
// schedulers connected as system:kube-scheduler through the server's scheduler.kubeconfig, plus
// helpers for nodes (Ready, labels, taints, node Leases) and pods.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import type { Pod, Toleration } from "../../../src/apis/core/v1/pod.ts";
import type { Event, Node, Taint } from "../../../src/apis/core/v1/types.ts";
import type { RunningServer } from "../../../src/apiserver/server/server.ts";
import { type Lease, Leases, Namespaces, ServiceAccounts } from "../../../src/client/builtins.ts";
import { Client } from "../../../src/client/client.ts";
import { Events } from "../../../src/client/events.ts";
import { type Scheduler, createScheduler } from "../../../src/scheduler/app.ts";
import { Nodes, Pods } from "../../../src/scheduler/scheduler.ts";
import { FakeClock, realClock } from "../../../src/utils/clock.ts";
import { eventually } from "../../support/http.ts";
import { startInProcessApiServer } from "../../support/inprocess.ts";
import { metaTime, microTime } from "../../../src/utils/time.ts";

export { eventually };

export interface Env {
  dir: string;
  clock: FakeClock;
  server: RunningServer;
  /** The test's own admin client. */
  admin: Client;
  /** Starts a scheduler as system:kube-scheduler (leader-elected when `identity` is given). */
  startScheduler(o?: { identity?: string }): Promise<Scheduler>;
  stop(): Promise<void>;
}

export async function startEnv(o: { gracePeriod?: string } = {}): Promise<Env> {
  const dir = mkdtempSync(join(tmpdir(), "scheduler-it-"));
  const clock = new FakeClock(Date.now());
  const cleanups: (() => unknown)[] = [() => rmSync(dir, { recursive: true, force: true })];
  const stop = async () => {
    for (const c of cleanups.splice(0).reverse()) await Promise.resolve(c()).catch(() => undefined);
  };
  try {
    const api = await startInProcessApiServer({ dataDir: dir, flags: ["--node-monitor-grace-period", o.gracePeriod ?? "40s"], clock });
    cleanups.push(() => api.stop());
    const { server, admin } = api;
    const startScheduler = async (so: { identity?: string } = {}) => {
      const client = Client.fromKubeconfigFile(server.schedulerKubeconfigPath, { fieldManager: "kube-scheduler" });
      const s = createScheduler({
        client,
        clock,
        cacheClock: realClock,
        server: false,
        defaultMetrics: false,
        logger: pino({ level: process.env.SCHEDULER_IT_LOG_LEVEL ?? "silent" }),
        leaderElection: so.identity ? { namespace: "kube-system", name: "kube-scheduler", identity: so.identity, releaseOnCancel: true } : undefined,
      });
      cleanups.push(() => client.close());
      cleanups.push(() => s.stop());
      await s.start();
      return s;
    };
    return { dir, clock, server, admin, startScheduler, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** A namespace whose default ServiceAccount exists (pods need it). */
export async function namespace(env: Env, name: string): Promise<void> {
  await env.admin.create(Namespaces, { metadata: { name } });
  await eventually(`default ServiceAccount in ${name}`, () => env.admin.get(ServiceAccounts, { namespace: name, name: "default" }).catch(() => undefined));
}

export interface NodeOptions {
  labels?: Record<string, string>;
  taints?: Taint[];
  ready?: boolean;
}

/** A Node that its kubelet reported Ready (unless ready: false), with its Lease renewed now. */
export async function addNode(env: Env, name: string, o: NodeOptions = {}): Promise<Node> {
  await env.admin.create(Nodes, { metadata: { name, labels: { "kubernetes.io/hostname": name, ...o.labels } }, spec: { taints: o.taints } });
  await renewLease(env, name);
  return postReady(env, name, o.ready ?? true);
}

/** The kubelet's status report: Ready with a fresh heartbeat. */
export async function postReady(env: Env, name: string, ready = true): Promise<Node> {
  const now = metaTime(env.clock.now());
  const condition = { type: "Ready", status: ready ? "True" : "False", reason: ready ? "KubeletReady" : "KubeletNotReady", message: "kubelet reports", lastHeartbeatTime: now, lastTransitionTime: now };
  return env.admin.patchStatus(Nodes, { name }, { type: "strategic", body: { status: { conditions: [condition] } } });
}

/** The kubelet's heartbeat: kube-node-lease/<name> renewed at the fake clock's now. */
export async function renewLease(env: Env, name: string): Promise<void> {
  const key = { namespace: "kube-node-lease", name };
  const spec = { holderIdentity: name, leaseDurationSeconds: 40, renewTime: microTime(env.clock.nowMs()) };
  const existing: Lease | undefined = await env.admin.get(Leases, key).catch(() => undefined);
  if (!existing) await env.admin.create(Leases, { metadata: key, spec });
  else await env.admin.update(Leases, { ...existing, spec });
}

/**
 * Resolves once the node lifecycle controller handled every Node and Lease event that came before
 * this call (an event barrier instead of a sleep): it handles one node at a time, in the order the
 * events came, so once `probe`, a node added now that reports NotReady, has its not-ready taints,
 * whatever was queued before it is done.
 */
export async function lifecycleHandledEarlierEvents(env: Env, probe: string): Promise<void> {
  await addNode(env, probe, { ready: false });
  await eventually(`${probe}'s not-ready taints`, async () => ((await env.admin.get(Nodes, { name: probe })).spec?.taints?.length ? true : undefined));
}

export function podSpec(o: { nodeSelector?: Record<string, string>; tolerations?: Toleration[]; nodeName?: string; schedulerName?: string } = {}): NonNullable<Pod["spec"]> {
  return { containers: [{ name: "c", image: "busybox" }], ...o };
}

export function createPod(env: Env, ns: string, name: string, spec: Pod["spec"] = podSpec()): Promise<Pod> {
  return env.admin.create(Pods, { metadata: { name, namespace: ns }, spec });
}

export async function boundNode(env: Env, ns: string, name: string): Promise<string> {
  return eventually(`${ns}/${name} bound`, async () => (await env.admin.get(Pods, { namespace: ns, name })).spec?.nodeName || undefined);
}

export function podScheduled(pod: Pod) {
  return (pod.status?.conditions ?? []).find((c) => c.type === "PodScheduled");
}

export async function eventsFor(env: Env, ns: string, name: string, reason?: string): Promise<Event[]> {
  const list = await env.admin.list(Events, { namespace: ns });
  return list.items.filter((e) => e.involvedObject.name === name && (!reason || e.reason === reason));
}
