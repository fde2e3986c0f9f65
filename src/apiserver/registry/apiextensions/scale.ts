// The scale subresource of custom resources: an autoscaling/v1 Scale read from, and written back
// to, the paths the CRD names (specReplicasPath, statusReplicasPath, labelSelectorPath), as
// apiextensions-apiserver does. A missing replicas field reads as 0, a missing selector as "".
import type { KubeObject } from "../../../apis/meta/v1/types.ts";
import { newInvalid } from "../../../apimachinery/errors.ts";
import { type FieldError, invalid } from "../../../apimachinery/field/errors.ts";
import { recordOrEmpty } from "../../../utils/guards.ts";

export interface ScalePaths {
  specReplicasPath: string;
  statusReplicasPath: string;
  labelSelectorPath?: string;
}

export interface Scale extends KubeObject {
  spec: { replicas?: number };
  status: { replicas: number; selector?: string };
}

export const SCALE_KIND = { group: "autoscaling", version: "v1", kind: "Scale" };

/** ".spec.replicas" -> ["spec", "replicas"] (the CRD's validation allows only such simple paths). */
function segments(path: string): string[] {
  return path.replace(/^\./, "").split(".").filter(Boolean);
}

function nested(obj: unknown, path: string): unknown {
  let cur = obj;
  for (const s of segments(path)) {
    if (typeof cur !== "object" || cur === null || Array.isArray(cur)) return undefined;
    cur = (cur as Record<string, unknown>)[s];
  }
  return cur;
}

function int(v: unknown): number {
  return typeof v === "number" && Number.isInteger(v) ? v : 0;
}

export function scaleOf(obj: KubeObject, paths: ScalePaths): Scale {
  const m = obj.metadata;
  const metadata: KubeObject["metadata"] = { name: m.name, uid: m.uid, resourceVersion: m.resourceVersion, creationTimestamp: m.creationTimestamp };
  if (m.namespace) metadata.namespace = m.namespace;
  const selector = paths.labelSelectorPath ? nested(obj, paths.labelSelectorPath) : undefined;
  return {
    apiVersion: "autoscaling/v1",
    kind: "Scale",
    metadata,
    spec: { replicas: int(nested(obj, paths.specReplicasPath)) },
    status: { replicas: int(nested(obj, paths.statusReplicasPath)), selector: typeof selector === "string" ? selector : "" },
  };
}

/** A copy of obj with replicas at specReplicasPath (intermediate objects created). */
export function withReplicas(obj: KubeObject, paths: ScalePaths, replicas: number): KubeObject {
  const out = structuredClone(obj);
  const segs = segments(paths.specReplicasPath);
  let cur = out as Record<string, unknown>;
  for (const s of segs.slice(0, -1)) {
    const next = cur[s];
    if (typeof next !== "object" || next === null || Array.isArray(next)) cur[s] = {};
    cur = cur[s] as Record<string, unknown>;
  }
  cur[segs.at(-1)!] = replicas;
  return out;
}

/** ValidateScale: spec.replicas a non-negative int32; 422 on kind Scale.autoscaling otherwise. */
export function validateScale(scale: unknown, name: string): Scale {
  const s = recordOrEmpty(scale) as Partial<Scale>;
  const replicas = (s.spec as { replicas?: unknown } | undefined)?.replicas;
  const errs: FieldError[] = [];
  if (replicas !== undefined && (typeof replicas !== "number" || !Number.isInteger(replicas) || replicas > 2147483647)) {
    errs.push(invalid("spec.replicas", replicas, "must be an integer"));
  } else if (typeof replicas === "number" && replicas < 0) {
    errs.push(invalid("spec.replicas", replicas, "must be greater than or equal to 0"));
  }
  if (errs.length) throw newInvalid({ group: SCALE_KIND.group, kind: SCALE_KIND.kind }, name, errs);
  return s as Scale;
}
