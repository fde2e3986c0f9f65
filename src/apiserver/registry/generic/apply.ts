// Server-side apply (application/apply-patch+yaml, docs/kubernetes-api.md#patch): the configuration is bounded and
// pruned like any body (fieldValidation=Strict refuses unknown fields), merged over the current
// object by the field manager inside the update loop (a storage conflict re-applies it to the
// fresh object), and the result is bounded (depth, the kind's size) and defaulted. A missing
// object is created (201); /status never creates.
import type { KubeObject } from "../../../apis/meta/v1/types.ts";
import { newBadRequest } from "../../../apimachinery/errors.ts";
import { depthMessage, MAX_NESTING_DEPTH, measureJson } from "../../../apimachinery/json/bounds.ts";
import { applyConfiguration } from "../../fieldmanager/fieldmanager.ts";
import type { RequestContext } from "../types.ts";
import type { StoreCore } from "./core.ts";
import type { WriteOptions, WriteResult } from "./interface.ts";
import { fieldManagerScope, managerOf } from "./managed-fields.ts";
import { checkPatched } from "./size.ts";
import { decodeBody } from "./prepare.ts";
import { maxObjectBytes, objectTooLarge } from "./size.ts";
import { updateLoop } from "./update.ts";
import { isRecord } from "../../../utils/guards.ts";

function decodeConfiguration(core: StoreCore, patchDoc: unknown, fieldValidation: WriteOptions["fieldValidation"]): { config: KubeObject; warnings: string[] } {
  if (!isRecord(patchDoc)) throw newBadRequest("apply patch must be an object");
  const m = measureJson(patchDoc, { maxDepth: MAX_NESTING_DEPTH, maxBytes: maxObjectBytes(core.def) });
  if (m.exceeded === "depth") throw newBadRequest(`the object provided is nested too deeply: ${depthMessage()}`);
  if (m.exceeded === "bytes") throw objectTooLarge(core.def, undefined, "");
  const config = structuredClone(patchDoc) as KubeObject;
  if (config.metadata === undefined || config.metadata === null) config.metadata = {};
  if (!isRecord(config.metadata)) throw newBadRequest("metadata: expected an object");
  const removed = core.schema.prune(config);
  const warnings: string[] = [];
  if (removed.length && fieldValidation === "Strict") {
    throw newBadRequest(`strict decoding error: ${removed.map((p) => `unknown field ${JSON.stringify(p)}`).join(", ")}`);
  }
  if (fieldValidation !== "Ignore") for (const p of removed) warnings.push(`unknown field ${JSON.stringify(p)}`);
  return { config, warnings };
}

export async function apply(
  core: StoreCore,
  ctx: RequestContext,
  name: string,
  patchDoc: unknown,
  options: WriteOptions,
  subresource: string,
): Promise<WriteResult> {
  const { config, warnings } = decodeConfiguration(core, patchDoc, options.fieldValidation);
  return updateLoop(
    core,
    ctx,
    name,
    (current) => {
      const next = applyConfiguration(current, config, managerOf(options), Boolean(options.force), fieldManagerScope(core, subresource));
      checkPatched(core.def, next, name);
      const decoded = decodeBody(core, next, "Ignore");
      decoded.warnings.unshift(...warnings);
      return decoded;
    },
    options,
    subresource,
    true,
  );
}
