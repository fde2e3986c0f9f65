// patch (docs/kubernetes-api.md#patch): JSON patch, merge patch, strategic merge patch (built-in kinds only, else 415);
// server-side apply is apply.ts. Every patch type is bounded in work by its helper (see
// apimachinery/patch/) and in result by checkPatched: depth, then the kind's size limit. The patch is applied to the current object inside the update
// loop, so a storage conflict re-applies it to the fresh object. It is unconditional unless the
// patch itself sets metadata.resourceVersion.
import type { KubeObject } from "../../../apis/meta/v1/types.ts";
import { StatusError } from "../../../apimachinery/errors.ts";
import { applyJsonPatch } from "../../../apimachinery/patch/json-patch.ts";
import { mergePatch } from "../../../apimachinery/patch/merge-patch.ts";
import { strategicMergePatch } from "../../../apimachinery/patch/strategic-merge-patch.ts";
import type { RequestContext } from "../types.ts";
import type { StoreCore } from "./core.ts";
import type { PatchType, WriteOptions, WriteResult } from "./interface.ts";
import { apply } from "./apply.ts";
import { trackWrite } from "./managed-fields.ts";
import { decodeBody } from "./prepare.ts";
import { checkPatched } from "./size.ts";
import { updateLoop } from "./update.ts";

export const PATCH_MEDIA_TYPES: Record<PatchType, string> = {
  json: "application/json-patch+json",
  merge: "application/merge-patch+json",
  strategic: "application/strategic-merge-patch+json",
  apply: "application/apply-patch+yaml",
};

function unsupported(core: StoreCore, type: "strategic"): StatusError {
  const accepted = [PATCH_MEDIA_TYPES.json, PATCH_MEDIA_TYPES.merge, PATCH_MEDIA_TYPES.apply];
  if (core.def.strategicMergePatch) accepted.push(PATCH_MEDIA_TYPES.strategic);
  const note = ` (strategic merge patch is not supported for ${core.def.plural}${core.def.group ? `.${core.def.group}` : ""}; use a merge patch)`;
  return new StatusError(
    415,
    "UnsupportedMediaType",
    `the body of the request was in an unknown format - accepted media types include: ${accepted.join(", ")}${note}`,
    { causes: [{ reason: "UnexpectedServerResponse", message: PATCH_MEDIA_TYPES[type] }] },
  );
}

export async function patch(
  core: StoreCore,
  ctx: RequestContext,
  name: string,
  type: PatchType,
  patchDoc: unknown,
  options: WriteOptions = {},
  subresource = "",
): Promise<WriteResult> {
  if (type === "strategic" && !core.def.strategicMergePatch) throw unsupported(core, type);
  if (type === "apply") return apply(core, ctx, name, patchDoc, options, subresource);
  return updateLoop(
    core,
    ctx,
    name,
    (current) => {
      // updateLoop only asks without a current object when it may create; patch never creates.
      const base = current!;
      const patched = applyPatch(core, type, base, patchDoc);
      checkPatched(core.def, patched, name);
      const decoded = decodeBody(core, patched, options.fieldValidation);
      if (!decoded.obj.metadata.resourceVersion) decoded.obj.metadata.resourceVersion = base.metadata.resourceVersion;
      trackWrite(core, base, decoded.obj, options, subresource);
      return decoded;
    },
    options,
    subresource,
    false,
  );
}

function applyPatch(core: StoreCore, type: PatchType, current: KubeObject, patchDoc: unknown): unknown {
  try {
    if (type === "json") return applyJsonPatch(current, patchDoc);
    if (type === "merge") return mergePatch(current, patchDoc);
    return strategicMergePatch(current, patchDoc, core.def.schema);
  } catch (err) {
    if (err instanceof StatusError) throw err;
    // A patch the helpers could not apply is the client's error, never a 500.
    const message = err instanceof Error ? err.message : String(err);
    throw new StatusError(422, "Invalid", `the server rejected our request due to an error in our request: ${message}`);
  }
}
