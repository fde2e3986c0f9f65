// GET /containerLogs/<ns>/<pod>/<container>: the container's log as text, with the kubelet's options
// (follow, previous, tailLines, sinceSeconds, timestamps, limitBytes) and its 400 messages for
// containers that have no log to show yet (kubelet's validateContainerLogStatus).
import type { ServerResponse } from "node:http";
import { newBadRequest } from "../../../apimachinery/errors.ts";
import type { ContainerStatus, Pod } from "../runtime/types.ts";
import { flag } from "./streams.ts";
import type { KubeletPods } from "./types.ts";

export interface LogOptions {
  follow: boolean;
  previous: boolean;
  timestamps: boolean;
  tailLines?: number;
  sinceSeconds?: number;
  limitBytes?: number;
}

function count(query: URLSearchParams, name: string, min: number): number | undefined {
  const v = query.get(name);
  if (v === null) return undefined;
  if (!/^-?\d{1,15}$/.test(v)) throw newBadRequest(`invalid value "${v}" for ${name}: must be an integer`);
  const n = Number(v);
  if (n < min) throw newBadRequest(`${name}: must be ${min === 0 ? "greater than or equal to 0" : "greater than 0"}`);
  return n;
}

export function parseLogOptions(query: URLSearchParams): LogOptions {
  const o: LogOptions = { follow: flag(query, "follow"), previous: flag(query, "previous"), timestamps: flag(query, "timestamps") };
  const tail = count(query, "tailLines", 0);
  if (tail !== undefined) o.tailLines = tail;
  const since = count(query, "sinceSeconds", 1);
  if (since !== undefined) o.sinceSeconds = since;
  const limit = count(query, "limitBytes", 1);
  if (limit !== undefined) o.limitBytes = limit;
  return o;
}

/** The kubelet's refusals for a container without a log to show (400 Bad Request). */
export function checkLogStatus(status: ContainerStatus | undefined, container: string, pod: string, previous: boolean): void {
  const q = `container ${JSON.stringify(container)} in pod ${JSON.stringify(pod)}`;
  if (!status) throw newBadRequest(`${q} is not available`);
  const { state, lastState } = status;
  if (previous) {
    if (!lastState.terminated?.containerID) throw newBadRequest(`previous terminated ${q} not found`);
    return;
  }
  if (state.running) return;
  if (state.terminated) {
    if (state.terminated.containerID || lastState.terminated?.containerID) return;
    throw newBadRequest(`${q} is terminated`);
  }
  if (lastState.terminated) {
    if (lastState.terminated.containerID) return;
    throw newBadRequest(`${q} is terminated`);
  }
  const reason = state.waiting?.reason;
  if (reason === "ErrImagePull") throw newBadRequest(`${q} is waiting to start: image can't be pulled`);
  if (reason === "ImagePullBackOff") throw newBadRequest(`${q} is waiting to start: trying and failing to pull image`);
  if (reason) throw newBadRequest(`${q} is waiting to start: ${reason}`);
  throw newBadRequest(`${q} is waiting to start - no logs yet`);
}

export async function serveLogs(res: ServerResponse, kubelet: KubeletPods, pod: Pod, container: string, o: LogOptions): Promise<void> {
  const status = await kubelet.runtime.status(pod);
  const all = [...status.initContainerStatuses, ...status.containerStatuses];
  checkLogStatus(all.find((s) => s.name === container), container, pod.metadata.name, o.previous);
  const log = await kubelet.runtime.logs(pod, container, {
    follow: o.follow,
    previous: o.previous,
    timestamps: o.timestamps,
    ...(o.tailLines !== undefined ? { tail: o.tailLines } : {}),
    ...(o.sinceSeconds !== undefined ? { sinceMs: Date.now() - o.sinceSeconds * 1000 } : {}),
  });
  res.writeHead(200, { "Content-Type": "text/plain", "Cache-Control": "no-cache", "X-Content-Type-Options": "nosniff" });
  res.flushHeaders();
  // The reader going away ends the log (and a follow's polling) at once.
  res.once("close", () => log.destroy());
  let left = o.limitBytes ?? Number.POSITIVE_INFINITY;
  try {
    for await (const chunk of log as AsyncIterable<Buffer | string>) {
      const buf = typeof chunk === "string" ? Buffer.from(chunk) : chunk;
      const part = buf.length <= left ? buf : buf.subarray(0, left);
      left -= part.length;
      if (!res.write(part)) await new Promise<void>((r) => (res.once("drain", r), res.once("close", r)));
      if (left <= 0 || res.destroyed) break;
    }
  } catch {
    // destroyed because the reader went away
  } finally {
    log.destroy();
    res.end();
  }
}
