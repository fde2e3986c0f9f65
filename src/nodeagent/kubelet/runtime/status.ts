// Container statuses as the kubelet writes them, from what the runtime recorded and what the shim reports.
import { metaTime } from "../../../utils/time.ts";
import type { ContainerInfo } from "../../../host/containers.ts";
import type { ContainerState, ContainerStateTerminated, ContainerStatus, Container, PodRuntimeStatus } from "./types.ts";

/** What the runtime keeps per container (containers/<name>/state.json). */
export interface ContainerRecord {
  /** The current attempt (its directory is containers/<name>/<attempt>); -1 before the first start. */
  attempt: number;
  /** The back-off recorded at the last restart (0 before the first). */
  backoffMs: number;
  /** Waiting in back-off until then (ms since the epoch). */
  restartAt?: number;
  /** The attempt before the current one ended so (lastState). */
  last?: ContainerStateTerminated;
  /** Why it cannot start (an image without profile). */
  waiting?: { reason: string; message: string };
  imageID?: string;
}

export function containerID(uid: string, name: string, attempt: number): string {
  return `toolbox://${uid}/${name}/${attempt}`;
}

export function terminatedOf(info: ContainerInfo, id: string, logTail: string): ContainerStateTerminated | undefined {
  if (!info.exit) {
    if (info.running || !info.init) return undefined;
    // The shim died without an exit status (killed with the node): the container is gone, its end unknown.
    return { exitCode: 137, reason: "Error", message: "the container's shim ended without its exit status", finishedAt: metaTime(Date.now()), containerID: id };
  }
  const t: ContainerStateTerminated = {
    exitCode: info.exit.exitCode,
    reason: info.exit.exitCode === 0 ? "Completed" : info.started ? "Error" : "StartError",
    finishedAt: info.exit.finishedAt,
    containerID: id,
  };
  if (info.exit.signal) t.signal = info.exit.signal;
  if (info.startedAt) t.startedAt = info.startedAt;
  if (!info.started && logTail) t.message = logTail;
  return t;
}

export function statusOf(uid: string, c: Container, rec: ContainerRecord, info: ContainerInfo | undefined, logTail: string, waitingReason: string): ContainerStatus {
  const id = rec.attempt >= 0 ? containerID(uid, c.name, rec.attempt) : undefined;
  let state: ContainerState;
  const terminated = info && id ? terminatedOf(info, id, logTail) : undefined;
  if (rec.waiting) state = { waiting: { ...rec.waiting } };
  else if (info?.running && info.started) state = { running: { startedAt: info.startedAt ?? metaTime(Date.now()) } };
  else if (terminated && rec.restartAt !== undefined && rec.restartAt > Date.parse(terminated.finishedAt)) {
    // As the kubelet says it: the back-off being waited now, from the exit to the next start. A restart
    // without a wait (the first) is no back-off: until it happens the container shows as terminated.
    const waitS = Math.round((rec.restartAt - Date.parse(terminated.finishedAt)) / 1000);
    state = { waiting: { reason: "CrashLoopBackOff", message: `back-off ${waitS}s restarting failed container=${c.name}` } };
  } else if (terminated) state = { terminated };
  else state = { waiting: { reason: waitingReason } };
  const lastState: ContainerState = state.waiting && terminated ? { terminated } : rec.last ? { terminated: rec.last } : {};
  const status: ContainerStatus = {
    name: c.name,
    state,
    lastState,
    ready: state.running !== undefined,
    started: state.running !== undefined,
    restartCount: Math.max(0, rec.attempt),
    image: c.image,
    imageID: rec.imageID ?? "",
  };
  if (id) status.containerID = id;
  return status;
}

/** The pod's phase from its container statuses and restart policy. */
export function phaseOf(init: ContainerStatus[], main: ContainerStatus[], restartPolicy: string, killed: boolean): PodRuntimeStatus["phase"] {
  const initFailed = init.some((s) => s.state.terminated && s.state.terminated.exitCode !== 0);
  if (initFailed && restartPolicy === "Never") return "Failed";
  if (init.some((s) => !s.state.terminated || s.state.terminated.exitCode !== 0)) return killed ? "Failed" : "Pending";
  if (main.some((s) => s.state.running)) return "Running";
  const ended = main.every((s) => s.state.terminated);
  if (ended && (restartPolicy === "Never" || killed || (restartPolicy === "OnFailure" && main.every((s) => s.state.terminated!.exitCode === 0)))) {
    return main.every((s) => s.state.terminated!.exitCode === 0) ? "Succeeded" : "Failed";
  }
  return main.some((s) => s.restartCount > 0 || s.state.terminated) ? "Running" : "Pending";
}
