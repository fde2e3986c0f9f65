// Moving from client-side to server-side apply, as kube-apiserver helps `kubectl` (the manager
// name kubectl --server-side uses) do it: the first server-side apply may take over the fields
// the kubectl.kubernetes.io/last-applied-configuration annotation says kubectl applied and that
// still hold those values; and while the annotation exists, server-side applies keep it current
// so a later client-side apply computes its patches from the right base.
import type { KubeObject } from "../../apis/meta/v1/types.ts";
import { compare } from "./compare.ts";
import { FieldSet } from "./fieldset.ts";
import { goJSON } from "./pathelement.ts";
import { toFieldSet } from "./tofieldset.ts";
import type { UpdaterOptions } from "./updater.ts";
import { isRecord } from "../../utils/guards.ts";

export const LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration";
/** kube-apiserver's limit on all annotations of an object together. */
const MAX_ANNOTATIONS_BYTES = 256 * 1024;

function lastAppliedOf(obj: KubeObject | undefined): string | undefined {
  const v = obj?.metadata?.annotations?.[LAST_APPLIED];
  return typeof v === "string" && v !== "" ? v : undefined;
}

/** The fields the annotation claims and the live object still has with the same values. */
export function allowedByLastApplied(live: KubeObject, o: UpdaterOptions): FieldSet {
  const raw = lastAppliedOf(live);
  if (!raw) return new FieldSet();
  let last: unknown;
  try {
    last = JSON.parse(raw);
  } catch {
    return new FieldSet();
  }
  if (!isRecord(last) || last.apiVersion !== o.apiVersion) return new FieldSet();
  const c = compare(last, live, o.schema);
  return toFieldSet(last, o.schema).difference(c.modified).difference(c.added).difference(c.removed);
}

/** When the live object has the annotation, sets it on `next` to the applied configuration (dropped if too large). */
export function syncLastApplied(live: KubeObject | undefined, config: KubeObject, next: KubeObject): void {
  if (!lastAppliedOf(live)) return;
  const annotations = { ...(config.metadata?.annotations ?? {}) };
  delete annotations[LAST_APPLIED];
  const meta = { ...config.metadata, annotations };
  if (Object.keys(annotations).length === 0) delete (meta as { annotations?: unknown }).annotations;
  const value = `${goJSON({ ...config, metadata: meta })}\n`;
  const target: Record<string, string> = { ...(next.metadata?.annotations ?? {}), [LAST_APPLIED]: value };
  const size = Object.entries(target).reduce((n, [k, v]) => n + Buffer.byteLength(k) + Buffer.byteLength(String(v)), 0);
  if (size > MAX_ANNOTATIONS_BYTES) delete target[LAST_APPLIED];
  next.metadata = { ...next.metadata, annotations: target };
}
