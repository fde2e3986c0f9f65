// One pod on this node (pkg/kubelet/pod_workers.go, reduced): syncs run one at a time; a sync resolves
// env and volumes (again every volume resync period, so Secret and ConfigMap changes land), hands the pod
// to the runtime when its inputs changed, writes the status when it changed and records the Events the
// change implies. A pod being deleted is killed with its grace period, cleaned up and deleted with grace
// 0 and a uid precondition; a pod gone from the API is killed and cleaned up.
import { createHash } from "node:crypto";
import type { Pod as ApiPod } from "../../apis/core/v1/pod.ts";
import { isConflict, isNotFound } from "../../apimachinery/errors.ts";
import type { Client } from "../../client/client.ts";
import type { EventRecorder } from "../../client/events.ts";
import { Pods } from "../../client/builtins.ts";
import type { Clock } from "../../utils/clock.ts";
import { toRuntimePod } from "./convert.ts";
import { ContainerConfigError, type InputSources, MountError, resolveEnv, resolveVolumes } from "./inputs.ts";
import { containerEvents, killingEvents, type PodEvent } from "./pod-events.ts";
import { composeStatus, statusKey } from "./pod-status.ts";
import type { ContainerStatus, Pod, PodInputs, PodRuntimeStatus } from "./runtime/types.ts";
import { metaTime } from "../../utils/time.ts";

export { Pods };

/** What the kubelet needs of a runtime (PodRuntime implements it). */
export interface KubeletRuntime {
  sync(pod: Pod, inputs?: PodInputs): Promise<PodRuntimeStatus>;
  status(pod: Pod): Promise<PodRuntimeStatus>;
  kill(pod: Pod, gracePeriodSeconds?: number): Promise<void>;
  cleanup(uid: string): Promise<void>;
  list(): Promise<{ uid: string; pod: Pod; podIP?: string }[]>;
  close(): void;
  /** Makes ahead what the first pod would otherwise wait for. */
  prepare?(): Promise<void>;
  /** Calls the listener with a pod's uid when the runtime changed the pod on its own (a container ended or started). */
  onChange?(listener: (uid: string) => void): void;
}

export interface WorkerDeps {
  client: Client;
  clock: Clock;
  runtime: KubeletRuntime;
  recorder: EventRecorder;
  sources: InputSources;
  hostIP?: string;
  volumeResyncMs: number;
  onError(what: string, err: unknown): void;
}

export class PodWorker {
  /** The latest object from the API; undefined once it is gone. */
  apiPod: ApiPod | undefined;
  /** The pod as the runtime runs it (after the first successful resolution). */
  runtimePod: Pod | undefined;
  private inputsHash = "";
  private resolvedAtMs = -Infinity;
  private waiting: Record<string, { reason: string; message: string }> = {};
  private lastStatus = "";
  private readonly known = new Set<string>();
  private prev = new Map<string, ContainerStatus>();
  private running: Promise<void> | undefined;
  private again = false;
  done = false;

  constructor(
    readonly uid: string,
    private readonly d: WorkerDeps,
    adopted?: Pod,
  ) {
    this.runtimePod = adopted;
  }

  /** Container IDs already reported (after an adoption): no second Created/Started for them. */
  remember(pod: ApiPod): void {
    for (const s of [...(pod.status?.containerStatuses ?? []), ...(pod.status?.initContainerStatuses ?? [])]) {
      if (s.containerID) this.known.add(s.containerID);
      if (s.lastState?.terminated && s.containerID) this.known.add(s.containerID);
    }
  }

  /** Runs a sync now, or once more after the current one. */
  kick(): Promise<void> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = (async () => {
      do {
        this.again = false;
        await this.sync().catch((err: unknown) => this.d.onError(`sync pod ${this.uid}`, err));
      } while (this.again && !this.done);
      this.running = undefined;
    })();
    return this.running;
  }

  private emit(events: PodEvent[]): void {
    const pod = this.apiPod;
    if (!pod) return;
    const ref = { ...pod, apiVersion: "v1", kind: "Pod" };
    for (const e of events) this.d.recorder.event(ref, e.type, e.reason, e.message);
  }

  private async sync(): Promise<void> {
    if (this.done) return;
    const pod = this.apiPod;
    if (!pod) return this.forget();
    if (pod.metadata.deletionTimestamp) return this.terminate(pod);
    const now = this.d.clock.nowMs();
    if (now - this.resolvedAtMs >= this.d.volumeResyncMs || !this.runtimePod) await this.resolve(pod, now);
    const rt = this.runtimePod && this.inputsHash ? await this.d.runtime.status(this.runtimePod) : undefined;
    await this.report(pod, rt);
  }

  /** Resolves env and volumes; hands the pod to the runtime when they changed. */
  private async resolve(pod: ApiPod, now: number): Promise<void> {
    const ctx = { ...(this.d.hostIP ? { hostIP: this.d.hostIP } : {}), ...(pod.status?.podIP ? { podIP: pod.status.podIP } : {}) };
    const env: Record<string, Record<string, string>> = {};
    const waiting: typeof this.waiting = {};
    for (const c of [...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? [])]) {
      try {
        env[c.name] = await resolveEnv(pod, c, this.d.sources, ctx);
      } catch (err) {
        if (!(err instanceof ContainerConfigError)) throw err;
        waiting[c.name] = { reason: "CreateContainerConfigError", message: err.message };
      }
    }
    let volumes: NonNullable<PodInputs["volumes"]>;
    try {
      volumes = await resolveVolumes(pod, this.d.sources, ctx);
    } catch (err) {
      if (!(err instanceof MountError)) throw err;
      this.emit([{ type: "Warning", reason: "FailedMount", message: err.message }]);
      this.waiting = waiting;
      return;
    }
    this.resolvedAtMs = now;
    this.waiting = waiting;
    // A container whose config cannot be made keeps the pod from starting until it can.
    if (Object.keys(waiting).length > 0 && !this.inputsHash) return;
    const inputs: PodInputs = { env, volumes };
    const rtPod = toRuntimePod(pod, env);
    const hash = createHash("sha256").update(JSON.stringify([rtPod, inputs])).digest("hex");
    if (hash === this.inputsHash) return;
    await this.d.runtime.sync(rtPod, inputs);
    this.runtimePod = rtPod;
    this.inputsHash = hash;
  }

  private async report(pod: ApiPod, rt: PodRuntimeStatus | undefined): Promise<void> {
    const ref = { name: pod.metadata.name!, namespace: pod.metadata.namespace!, uid: this.uid };
    const status = composeStatus({ pod, ...(rt ? { runtime: rt } : {}), ...(this.d.hostIP ? { hostIP: this.d.hostIP } : {}), nowIso: metaTime(this.d.clock.now()), waiting: this.waiting });
    const all = [...(status.initContainerStatuses ?? []), ...(status.containerStatuses ?? [])] as ContainerStatus[];
    const events: PodEvent[] = [];
    for (const s of all) {
      events.push(...containerEvents(ref, this.prev.get(s.name), s, this.known));
      if (s.containerID) this.known.add(s.containerID);
    }
    this.prev = new Map(all.map((s) => [s.name, s]));
    this.emit(events);
    const key = statusKey(status);
    if (key === this.lastStatus) return;
    const patched = await this.d.client.patchStatus(Pods, { namespace: ref.namespace, name: ref.name }, { type: "merge", body: { metadata: { uid: this.uid }, status } });
    this.lastStatus = key;
    if (this.apiPod && patched.metadata.uid === this.uid) this.apiPod = patched;
  }

  /** Graceful deletion: kill with the pod's grace period, final status, cleanup, delete with grace 0. */
  private async terminate(pod: ApiPod): Promise<void> {
    const grace = pod.metadata.deletionGracePeriodSeconds ?? pod.spec?.terminationGracePeriodSeconds ?? 30;
    if (this.runtimePod) {
      const before = await this.d.runtime.status(this.runtimePod);
      this.emit(killingEvents([...before.initContainerStatuses, ...before.containerStatuses]));
      await this.d.runtime.kill(this.runtimePod, grace);
      await this.report(pod, await this.d.runtime.status(this.runtimePod)).catch((err: unknown) => this.d.onError(`final status of ${this.uid}`, err));
      await this.d.runtime.cleanup(this.uid);
      this.runtimePod = undefined;
    }
    try {
      await this.d.client.delete(Pods, { namespace: pod.metadata.namespace!, name: pod.metadata.name! }, { gracePeriodSeconds: 0, preconditions: { uid: this.uid } });
    } catch (err) {
      if (!isNotFound(err) && !isConflict(err)) throw err;
    }
    await this.forget();
  }

  /** The pod is gone from the API: whatever still runs of it goes. */
  private async forget(): Promise<void> {
    if (this.runtimePod) {
      const last = this.apiPod?.metadata.deletionGracePeriodSeconds;
      await this.d.runtime.kill(this.runtimePod, last ?? 0);
    }
    await this.d.runtime.cleanup(this.uid);
    this.runtimePod = undefined;
    this.done = true;
  }
}

