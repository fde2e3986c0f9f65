// The node agent as kubelet (docs/kubelet.md): the loop between the API server and the pod runtime. It
// keeps the Node's status and Lease (heartbeat.ts), follows the pods bound to this node through the
// controller runtime's cache (field selector spec.nodeName=<node>), runs one PodWorker per pod, syncs a pod
// when the runtime reports a change of it and relists the runtime every second for what it did not report
// (the PLEG's job), and after a restart adopts the pods the API still has and cleans up the rest.
import type { Logger } from "pino";
import type { Pod as ApiPod } from "../../apis/core/v1/pod.ts";
import { ConfigMaps, Secrets } from "../../client/builtins.ts";
import type { Client } from "../../client/client.ts";
import { type EventRecorder, newEventRecorder } from "../../client/events.ts";
import type { Cache } from "../../controllerruntime/cache/cache.ts";
import type { Runnable } from "../../controllerruntime/manager.ts";
import { type Clock, realClock } from "../../utils/clock.ts";
import { Heartbeat } from "./heartbeat.ts";
import type { InputSources } from "./inputs.ts";
import { readNodeFacts } from "./machine.ts";
import type { NodeFacts } from "./node-status.ts";
import { type KubeletRuntime, PodWorker, Pods } from "./pod-worker.ts";
import type { PodRuntime } from "./runtime/runtime.ts";
import type { Pod } from "./runtime/types.ts";
import { TokenManager } from "./tokens.ts";
import { unlessNotFound } from "../../client/helpers.ts";

export { Pods, type KubeletRuntime } from "./pod-worker.ts";

export const RELIST_MS = 1000;
export const VOLUME_RESYNC_MS = 5000;

export interface KubeletOptions<R extends KubeletRuntime> {
  client: Client;
  /** The manager's cache; the kubelet configures it for its pods (before the manager starts). */
  cache: Cache;
  runtime: R;
  nodeName: string;
  hostname: string;
  internalIP?: string;
  podCIDR?: string;
  clock?: Clock;
  logger?: Logger;
  recorder?: EventRecorder;
  /** Machine facts for the Node (default: read from this machine). */
  facts?: () => NodeFacts;
  relistMs?: number;
  volumeResyncMs?: number;
}

/** The cache restriction for this node's pods; configure it before anything reads pods. */
export function podsOfNode(nodeName: string): { fieldSelector: string } {
  return { fieldSelector: `spec.nodeName=${nodeName}` };
}

export class Kubelet<R extends KubeletRuntime = PodRuntime> implements Runnable {
  readonly runtime: R;
  readonly heartbeat: Heartbeat;
  private readonly workers = new Map<string, PodWorker>();
  private readonly byName = new Map<string, string>();
  /** Pods this kubelet finished (deleted, cleaned up): later events about them start nothing. */
  private readonly finished = new Set<string>();
  private readonly clock: Clock;
  private readonly recorder: EventRecorder;
  private readonly tokens: TokenManager;
  private readonly sources: InputSources;
  private started = false;

  constructor(private readonly o: KubeletOptions<R>) {
    this.runtime = o.runtime;
    this.clock = o.clock ?? realClock;
    this.recorder = o.recorder ?? newEventRecorder(o.client, { clock: this.clock, component: "kubelet", instance: o.nodeName, onError: (err) => this.error("record an event", err) });
    this.tokens = new TokenManager(o.client, this.clock);
    this.sources = {
      secret: (namespace, name) => unlessNotFound(o.client.get(Secrets, { namespace, name })),
      configMap: (namespace, name) => unlessNotFound(o.client.get(ConfigMaps, { namespace, name })),
      token: (pod, sa, p) => this.tokens.token(pod, sa, p),
    };
    const facts = o.facts ?? (() => readNodeFacts(o.hostname, o.internalIP));
    this.heartbeat = new Heartbeat({ client: o.client, clock: this.clock, nodeName: o.nodeName, ...(o.podCIDR ? { podCIDR: o.podCIDR } : {}), facts, onError: (what, err) => this.error(what, err) });
    o.cache.configure(Pods, podsOfNode(o.nodeName));
    o.cache.informerFor(Pods);
    // The runtime's own changes (a container ended, the next one started) are written at once, not at the next relist.
    o.runtime.onChange?.((uid) => {
      const w = this.workers.get(uid);
      if (w) void this.kick(w);
    });
  }

  private error(what: string, err: unknown): void {
    this.o.logger?.warn({ err }, `kubelet: could not ${what}`);
  }

  /** The pod as this kubelet runs it, for the kubelet server (exec, attach, logs). */
  podByName(namespace: string, name: string): Pod | undefined {
    const uid = this.byName.get(`${namespace}/${name}`);
    return uid ? this.workers.get(uid)?.runtimePod : undefined;
  }

  private worker(uid: string, adopted?: Pod): PodWorker {
    let w = this.workers.get(uid);
    if (!w || w.done) {
      w = new PodWorker(
        uid,
        {
          client: this.o.client,
          clock: this.clock,
          runtime: this.runtime,
          recorder: this.recorder,
          sources: this.sources,
          ...(this.o.internalIP ? { hostIP: this.o.internalIP } : {}),
          volumeResyncMs: this.o.volumeResyncMs ?? VOLUME_RESYNC_MS,
          onError: (what, err) => this.error(what, err),
        },
        adopted,
      );
      this.workers.set(uid, w);
    }
    return w;
  }

  private observe(pod: ApiPod): void {
    const uid = pod.metadata.uid!;
    if (this.finished.has(uid)) return;
    const w = this.worker(uid);
    if (!w.apiPod) w.remember(pod);
    w.apiPod = pod;
    this.byName.set(`${pod.metadata.namespace}/${pod.metadata.name}`, uid);
    void this.kick(w);
  }

  private gone(pod: ApiPod): void {
    const uid = pod.metadata.uid!;
    const w = this.workers.get(uid);
    if (!w) return;
    w.apiPod = undefined;
    if (this.byName.get(`${pod.metadata.namespace}/${pod.metadata.name}`) === uid) this.byName.delete(`${pod.metadata.namespace}/${pod.metadata.name}`);
    void this.kick(w);
  }

  private async kick(w: PodWorker): Promise<void> {
    if (!this.started) return;
    await w.kick();
    if (w.done && this.workers.get(w.uid) === w) {
      this.workers.delete(w.uid);
      this.tokens.forget(w.uid);
      this.finished.add(w.uid);
      if (this.finished.size > 4096) this.finished.delete(this.finished.values().next().value as string);
    }
  }

  /** Registers the Node's kubelet fields, adopts or removes what the runtime recorded, then runs. */
  async start(signal: AbortSignal): Promise<void> {
    const prepared = this.runtime.prepare?.().catch((err: unknown) => this.error("prepare the runtime", err));
    await this.heartbeat.ensurePodCIDR();
    // Ready (and so schedulable) once the runtime can start pods at once, as the kubelet waits for its runtime.
    await prepared;
    await this.heartbeat.updateNodeStatus(true);
    const informer = this.o.cache.informerFor(Pods);
    await informer.waitForSync(signal);
    const inApi = new Map(informer.store.list().map((p) => [p.metadata.uid!, p]));
    for (const rec of await this.runtime.list()) {
      const pod = inApi.get(rec.uid);
      if (pod) {
        // Adopted: its worker takes the running containers over (or finishes a deletion under way).
        this.worker(rec.uid, rec.pod);
        continue;
      }
      await this.runtime.kill(rec.pod, 0).catch((err: unknown) => this.error(`kill ${rec.uid}`, err));
      await this.runtime.cleanup(rec.uid).catch((err: unknown) => this.error(`clean up ${rec.uid}`, err));
    }
    this.started = true;
    const off = informer.addEventHandler({ onAdd: (p) => this.observe(p), onUpdate: (_o, p) => this.observe(p), onDelete: (p) => this.gone(p) });
    this.heartbeat.start(signal);
    const every = this.o.relistMs ?? RELIST_MS;
    const relist = (): void => {
      if (signal.aborted) return;
      for (const w of this.workers.values()) void this.kick(w);
      timer = this.clock.setTimer(every, relist);
    };
    let timer = this.clock.setTimer(every, relist);
    signal.addEventListener(
      "abort",
      () => {
        timer.cancel();
        off();
        this.started = false;
        this.runtime.close();
      },
      { once: true },
    );
  }
}
