// Pod strategy (pkg/registry/core/pod/strategy.go, pkg/apis/core/v1/defaults.go): defaults the
// schema cannot express, status Pending with its QoS class on create, the spec fields an update
// may change, and graceful deletion (grace period from the request or
// terminationGracePeriodSeconds; unscheduled or terminated pods go at once).
import type { Container, Pod, Volume } from "../../../../apis/core/v1/pod.ts";
import type { Strategy } from "../../types.ts";
import { asRecord } from "../keys.ts";
import { parseQuantity } from "./quantity.ts";
import { validatePod, validatePodStatusUpdate, validatePodUpdate } from "./validation.ts";
import { volumeSources } from "./validation-volume.ts";

/** imagePullPolicy's default: Always for `:latest` or no tag, IfNotPresent otherwise (digests included). */
export function defaultPullPolicy(image: string): string {
  if (image.includes("@")) return "IfNotPresent";
  const lastPart = image.slice(image.lastIndexOf("/") + 1);
  const colon = lastPart.lastIndexOf(":");
  if (colon < 0) return "Always";
  return lastPart.slice(colon + 1) === "latest" ? "Always" : "IfNotPresent";
}

function defaultContainer(c: Container): void {
  if (!c.imagePullPolicy) c.imagePullPolicy = typeof c.image === "string" && c.image ? defaultPullPolicy(c.image) : "IfNotPresent";
  const res = asRecord(c.resources);
  const limits = asRecord(res?.limits);
  if (res && limits && Object.keys(limits).length) {
    const requests = (asRecord(res.requests) ?? {}) as Record<string, unknown>;
    for (const [k, v] of Object.entries(limits)) if (requests[k] === undefined) requests[k] = v;
    res.requests = requests;
  }
}

function defaultVolume(v: Volume): void {
  if (asRecord(v) && volumeSources(v).length === 0) v.emptyDir = {};
}

/** What the v1 defaulting functions and conversion add to a pod. */
export function defaultPod(pod: Pod): void {
  const spec = pod.spec;
  if (!spec || !asRecord(spec)) return;
  for (const list of [spec.containers, spec.initContainers, spec.ephemeralContainers]) {
    if (Array.isArray(list)) for (const c of list) if (asRecord(c)) defaultContainer(c);
  }
  if (Array.isArray(spec.volumes)) spec.volumes.forEach(defaultVolume);
  // serviceAccount is the deprecated alias of serviceAccountName; v1 keeps both in step.
  if (!spec.serviceAccountName && spec.serviceAccount) spec.serviceAccountName = spec.serviceAccount;
  if (spec.serviceAccountName) spec.serviceAccount = spec.serviceAccountName;
  if (spec.hostNetwork === true) {
    for (const c of [...(spec.containers ?? []), ...(spec.initContainers ?? [])]) {
      for (const p of Array.isArray(c?.ports) ? c.ports : []) if (asRecord(p) && p.hostPort === undefined) p.hostPort = p.containerPort;
    }
  }
  if (typeof spec.terminationGracePeriodSeconds === "number" && spec.terminationGracePeriodSeconds < 0) spec.terminationGracePeriodSeconds = 1;
}

/** The pod's QoS class (pkg/apis/core/helper/qos): only cpu and memory count. */
export function qosClass(pod: Pod): "Guaranteed" | "Burstable" | "BestEffort" {
  const containers = [...(pod.spec?.containers ?? []), ...(pod.spec?.initContainers ?? [])];
  let any = false;
  let guaranteed = containers.length > 0;
  for (const c of containers) {
    const requests = asRecord(c.resources?.requests) ?? {};
    const limits = asRecord(c.resources?.limits) ?? {};
    for (const r of ["cpu", "memory"]) {
      const req = parseQuantity(requests[r]);
      const lim = parseQuantity(limits[r]);
      if ((req ?? 0) > 0 || (lim ?? 0) > 0) any = true;
      if (lim === undefined || req !== lim) guaranteed = false;
    }
  }
  if (!any) return "BestEffort";
  return guaranteed ? "Guaranteed" : "Burstable";
}

export const podStrategy: Strategy<Pod> = {
  prepareForCreate(_ctx, pod) {
    defaultPod(pod);
    pod.status = { phase: "Pending", qosClass: qosClass(pod) };
  },
  prepareForUpdate(_ctx, pod) {
    defaultPod(pod);
  },
  validate: (_ctx, pod) => validatePod(pod),
  validateUpdate: (_ctx, pod, old) => validatePodUpdate(pod, old),
  validateStatusUpdate: (_ctx, pod, old) => validatePodStatusUpdate(pod, old),
  gracePeriodSeconds(_ctx, pod, requested) {
    let period = requested ?? pod.spec?.terminationGracePeriodSeconds ?? 0;
    if (!pod.spec?.nodeName) period = 0;
    const phase = pod.status?.phase;
    if (phase === "Succeeded" || phase === "Failed") period = 0;
    return period;
  },
};
