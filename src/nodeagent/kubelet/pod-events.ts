// The kubelet's pod Events, derived from how a container's status moved (pkg/kubelet/events): Pulled
// (naming the toolbox profile the image maps to), Created and Started for each new container, BackOff and
// Failed for the waiting reasons, Killing on deletion. The reasons and messages are upstream's.
import type { ContainerStatus } from "./runtime/types.ts";

export interface PodEvent {
  type: "Normal" | "Warning";
  reason: string;
  message: string;
}

export interface PodRef {
  name: string;
  namespace: string;
  uid: string;
}

/** Events for one container whose status went from prev (undefined: first seen) to next. */
export function containerEvents(pod: PodRef, prev: ContainerStatus | undefined, next: ContainerStatus, known: ReadonlySet<string>): PodEvent[] {
  const out: PodEvent[] = [];
  const id = next.containerID;
  // A container ID is there once the runtime started an attempt: each new one is a new container.
  if (id && !known.has(id)) {
    const profile = next.imageID.replace(/^toolbox:\/\//, "");
    out.push({ type: "Normal", reason: "Pulled", message: `Container image "${next.image}" already present on machine as toolbox profile "${profile}"` });
    out.push({ type: "Normal", reason: "Created", message: `Created container: ${next.name}` });
    if (next.state.terminated?.reason === "StartError") out.push({ type: "Warning", reason: "Failed", message: `Error: ${next.state.terminated.message ?? "the container did not start"}` });
    else out.push({ type: "Normal", reason: "Started", message: `Started container ${next.name}` });
  }
  const reason = next.state.waiting?.reason;
  const was = prev?.state.waiting?.reason;
  const again = reason !== undefined && (reason !== was || prev?.restartCount !== next.restartCount);
  if (!again) return out;
  const msg = next.state.waiting?.message ?? "";
  switch (reason) {
    case "CrashLoopBackOff":
      out.push({ type: "Warning", reason: "BackOff", message: `Back-off restarting failed container ${next.name} in pod ${pod.name}_${pod.namespace}(${pod.uid})` });
      break;
    case "ErrImagePull":
      out.push({ type: "Warning", reason: "Failed", message: `Failed to pull image "${next.image}": ${msg}` });
      out.push({ type: "Warning", reason: "Failed", message: "Error: ErrImagePull" });
      break;
    case "ImagePullBackOff":
      out.push({ type: "Normal", reason: "BackOff", message: `Back-off pulling image "${next.image}"` });
      out.push({ type: "Warning", reason: "Failed", message: "Error: ImagePullBackOff" });
      break;
    case "CreateContainerConfigError":
      out.push({ type: "Warning", reason: "Failed", message: `Error: ${msg}` });
      break;
  }
  return out;
}

/** Killing events for the containers that run when the pod is stopped. */
export function killingEvents(statuses: readonly ContainerStatus[]): PodEvent[] {
  return statuses.filter((s) => s.state.running).map((s) => ({ type: "Normal", reason: "Killing", message: `Stopping container ${s.name}` }));
}
