// <resource>/<name>/scale of custom resources (kubectl scale): GET returns the autoscaling/v1
// Scale; PUT and PATCH (json, merge, strategic, which for a Scale is a merge) change the
// replicas at the CRD's specReplicasPath through the resource's own store. A Scale or patch that
// carries metadata.resourceVersion is conditional (409 on a mismatch); otherwise conflicts retry
// while other writers make progress (registry/generic/retry.ts).
import { isConflict, newBadRequest, newMethodNotSupported, newUnsupportedMediaType } from "../../apimachinery/errors.ts";
import { applyJsonPatch } from "../../apimachinery/patch/json-patch.ts";
import { mergePatch } from "../../apimachinery/patch/merge-patch.ts";
import { type Scale, type ScalePaths, scaleOf, validateScale, withReplicas } from "../registry/apiextensions/scale.ts";
import { ConflictRetry } from "../registry/generic/retry.ts";
import { decodeBody, readBody } from "./body.ts";
import { bodyFormatOf, negotiateOutput, type PatchContentType, patchTypeOf } from "./negotiation.ts";
import { parseWriteOptions } from "./params.ts";
import type { ResourceRequest } from "./request.ts";
import { writeObject } from "./responses.ts";
import { isRecord } from "../../utils/guards.ts";

function respond(r: ResourceRequest, scale: Scale): void {
  const format = negotiateOutput(r.req.headers.accept, { yaml: true });
  writeObject(r.res, 200, scale, { format: format.kind === "yaml" ? format : { kind: "json" } });
}

function setsResourceVersion(type: string, patch: unknown): boolean {
  if (type === "json") return Array.isArray(patch) && patch.some((op) => isRecord(op) && op.path === "/metadata/resourceVersion");
  return isRecord(patch) && isRecord(patch.metadata) && patch.metadata.resourceVersion !== undefined;
}

/** A PUT's Scale or a PATCH's patch (JSON, merge or strategic merge; apply is not served on /scale), and the patch type. */
async function readScaleWrite(r: ResourceRequest, method: string): Promise<{ patchType: PatchContentType | undefined; input: unknown }> {
  const strict = r.url.searchParams.get("fieldValidation") === "Strict";
  const patchType = method === "PATCH" ? patchTypeOf(r.req.headers["content-type"], true) : undefined;
  if (patchType === "apply") throw newUnsupportedMediaType(r.req.headers["content-type"] ?? "", ["application/json-patch+json", "application/merge-patch+json", "application/strategic-merge-patch+json"]);
  const input = decodeBody(await readBody(r.req, r.maxBodyBytes), patchType ? "json" : bodyFormatOf(r.req.headers["content-type"]), strict);
  if (input === undefined) throw newBadRequest("the body of the request is empty");
  if (patchType === "json" ? !Array.isArray(input) : !isRecord(input)) throw newBadRequest(`the body of a scale ${method === "PUT" ? "update" : "patch"} is not valid`);
  return { patchType, input };
}

export async function serveScale(r: ResourceRequest, method: string, name: string, paths: ScalePaths): Promise<void> {
  const gr = { group: r.def.group, resource: `${r.def.plural}/scale` };
  if (method === "GET" || method === "HEAD") return respond(r, scaleOf(await r.store.get(r.ctx, name), paths));
  if (method !== "PUT" && method !== "PATCH") throw newMethodNotSupported(gr, r.info.verb);

  const { patchType, input } = await readScaleWrite(r, method);
  const opts = parseWriteOptions(r.url.searchParams, method === "PUT" ? "UpdateOptions" : "PatchOptions");
  const desired = (current: Scale): unknown => {
    if (!patchType) return input;
    return patchType === "json" ? applyJsonPatch(current, input) : mergePatch(current, input);
  };
  const conditional = patchType ? setsResourceVersion(patchType, input) : isRecord(input) && isRecord(input.metadata) && Boolean(input.metadata.resourceVersion);

  const retry = new ConflictRetry();
  for (;; await retry.next()) {
    const current = await r.store.get(r.ctx, name);
    const scale = validateScale(desired(scaleOf(current, paths)), name);
    const given = scale.metadata?.name;
    if (given && given !== name) throw newBadRequest(`the name of the object (${given}) does not match the name on the URL (${name})`);
    const obj = withReplicas(current, paths, scale.spec?.replicas ?? 0);
    obj.metadata.resourceVersion = conditional ? String(scale.metadata?.resourceVersion ?? "") : current.metadata.resourceVersion;
    try {
      const res = await r.store.update(r.ctx, name, obj, opts);
      return respond(r, scaleOf(res.object, paths));
    } catch (err) {
      if (conditional || !isConflict(err)) throw err;
    }
  }
}
