// A pod runtime in memory for the kubelet loop's integration test: it records what the kubelet asked for
// and reports containers as running from the first sync, terminated (137, or the exit code set) after kill.
import type { KubeletRuntime } from "../../../src/nodeagent/kubelet/kubelet.ts";
import { metaTime } from "../../../src/utils/time.ts";
import type { ContainerStatus, Pod, PodInputs, PodRuntimeStatus } from "../../../src/nodeagent/kubelet/runtime/types.ts";

interface Entry {
  pod: Pod;
  inputs: PodInputs;
  ip: string;
  killed: boolean;
  startedAt: string;
  exits: Record<string, number>;
}

export class FakeRuntime implements KubeletRuntime {
  readonly pods = new Map<string, Entry>();
  readonly syncs: { uid: string; inputs: PodInputs }[] = [];
  readonly kills: { uid: string; grace: number | undefined }[] = [];
  readonly cleanups: string[] = [];
  private next = 2;
  private readonly listeners: ((uid: string) => void)[] = [];

  /** Records a pod as an earlier runtime would have left it (adoption). */
  preload(pod: Pod): void {
    this.pods.set(pod.metadata.uid, { pod, inputs: {}, ip: `10.96.1.${this.next++}`, killed: false, startedAt: metaTime(Date.now()), exits: {} });
  }

  /** Ends a container with an exit code (as if its process exited); reported as the runtime reports its own changes. */
  exit(uid: string, container: string, code: number): void {
    this.pods.get(uid)!.exits[container] = code;
    for (const l of this.listeners) l(uid);
  }

  onChange(listener: (uid: string) => void): void {
    this.listeners.push(listener);
  }

  sync(pod: Pod, inputs: PodInputs = {}): Promise<PodRuntimeStatus> {
    this.syncs.push({ uid: pod.metadata.uid, inputs: structuredClone(inputs) });
    const e = this.pods.get(pod.metadata.uid);
    if (e) Object.assign(e, { pod, inputs });
    else this.pods.set(pod.metadata.uid, { pod, inputs, ip: `10.96.1.${this.next++}`, killed: false, startedAt: metaTime(Date.now()), exits: {} });
    return this.status(pod);
  }

  status(pod: Pod): Promise<PodRuntimeStatus> {
    const e = this.pods.get(pod.metadata.uid);
    const one = (name: string, image: string): ContainerStatus => {
      const base = { name, image, imageID: "toolbox://shell", restartCount: 0, lastState: {}, containerID: `toolbox://${pod.metadata.uid}/${name}/0` };
      const code = e?.exits[name] ?? (e?.killed ? 137 : undefined);
      if (code !== undefined) return { ...base, ready: false, started: false, state: { terminated: { exitCode: code, reason: code === 0 ? "Completed" : "Error", startedAt: e!.startedAt, finishedAt: metaTime(Date.now()), containerID: base.containerID } } };
      return { ...base, ready: true, started: true, state: { running: { startedAt: e!.startedAt } } };
    };
    const containers = e ? pod.spec.containers.map((c) => one(c.name, c.image)) : [];
    const policy = pod.spec.restartPolicy ?? "Always";
    const allEnded = containers.length > 0 && containers.every((c) => c.state.terminated);
    const phase = !e ? "Pending" : allEnded && (policy === "Never" || e.killed) ? (containers.every((c) => c.state.terminated!.exitCode === 0) ? "Succeeded" : "Failed") : "Running";
    return Promise.resolve({ uid: pod.metadata.uid, ...(e ? { podIP: e.ip } : {}), initContainerStatuses: [], containerStatuses: containers, phase });
  }

  kill(pod: Pod, grace?: number): Promise<void> {
    this.kills.push({ uid: pod.metadata.uid, grace });
    const e = this.pods.get(pod.metadata.uid);
    if (e) e.killed = true;
    return Promise.resolve();
  }

  cleanup(uid: string): Promise<void> {
    this.cleanups.push(uid);
    this.pods.delete(uid);
    return Promise.resolve();
  }

  list(): Promise<{ uid: string; pod: Pod; podIP?: string }[]> {
    return Promise.resolve([...this.pods.entries()].map(([uid, e]) => ({ uid, pod: e.pod, podIP: e.ip })));
  }

  close(): void {}
}
