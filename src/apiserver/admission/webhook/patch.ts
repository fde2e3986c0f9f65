// Applying a mutating webhook's answer (docs/admission-webhooks.md#patches): `patchType: JSONPatch`
// with a base64 RFC 6902 patch, applied with the same bounds as a client's JSON patch (operations,
// copied bytes, work, depth). A patch may not change the object's apiVersion, kind or namespace,
// nor its name outside CREATE. Every problem is an Error the failure policy decides on.
import type { AdmissionResponse } from "../../../apis/admission/v1/types.ts";
import type { KubeObject } from "../../../apis/meta/v1/types.ts";
import { applyJsonPatch } from "../../../apimachinery/patch/json-patch.ts";
import type { AdmissionAttributes } from "../types.ts";

export function applyWebhookPatch(attrs: AdmissionAttributes, resp: AdmissionResponse): KubeObject {
  if (resp.patchType !== "JSONPatch") throw new Error(`unsupported patch type "${String(resp.patchType ?? "")}"`);
  if (typeof resp.patch !== "string") throw new Error("the patch is not a base64 string");
  let ops: unknown;
  try {
    ops = JSON.parse(Buffer.from(resp.patch, "base64").toString("utf8"));
  } catch {
    throw new Error("the patch is not JSON");
  }
  const before = attrs.object!;
  let after: unknown;
  try {
    after = applyJsonPatch(before, ops);
  } catch (err) {
    throw new Error(`the patch could not be applied: ${(err as Error).message}`);
  }
  if (!after || typeof after !== "object" || Array.isArray(after)) throw new Error("the patched object is not an object");
  const out = after as KubeObject;
  if (!out.metadata || typeof out.metadata !== "object" || Array.isArray(out.metadata)) throw new Error("the patched object has no metadata");
  if (out.apiVersion !== before.apiVersion || out.kind !== before.kind) throw new Error("the patch must not change apiVersion or kind");
  if (out.metadata.namespace !== before.metadata.namespace) throw new Error("the patch must not change metadata.namespace");
  if (attrs.operation !== "CREATE" && out.metadata.name !== before.metadata.name) throw new Error("the patch must not change metadata.name");
  return out;
}
