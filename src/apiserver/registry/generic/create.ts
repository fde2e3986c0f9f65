// create (docs/kubernetes-api.md#create): namespace from the URL, system fields, generateName with up to 8 attempts,
// validation (422 with every cause), admission, dryRun (the would-be object, nothing stored).
import type { KubeObject } from "../../../apis/meta/v1/types.ts";
import { newAlreadyExists, newBadRequest, newGenerateNameConflict } from "../../../apimachinery/errors.ts";
import { StorageError } from "../../storage/interface.ts";
import type { RequestContext } from "../types.ts";
import { encode, objectKey, offerDecoded } from "./codec.ts";
import { admit, type StoreCore } from "./core.ts";
import type { WriteOptions, WriteResult } from "./interface.ts";
import { decodeBody, prepareCreate, settleNamespace, validateCreate } from "./prepare.ts";
import { trackWrite } from "./managed-fields.ts";
import { getKey } from "./read.ts";
import { checkObjectSize } from "./size.ts";
import { storageToStatus } from "./rv.ts";

/** kube-apiserver's maxNameGenerationCreateAttempts. */
export const MAX_NAME_GENERATION_ATTEMPTS = 8;

export async function create(core: StoreCore, ctx: RequestContext, body: unknown, options: WriteOptions = {}): Promise<WriteResult> {
  const { obj, warnings } = decodeBody(core, body, options.fieldValidation, options.bodyOwned);
  // kube-apiserver's storage refuses this too (there as a 500); it is the client's mistake, so a 400 here.
  if (obj.metadata.resourceVersion) throw newBadRequest("resourceVersion should not be set on objects to be created");
  trackWrite(core, undefined, obj, options, "");
  return createDecoded(core, ctx, obj, warnings, options);
}

/** create for an already decoded body (also used by PUT with allowCreateOnUpdate). */
export async function createDecoded(
  core: StoreCore,
  ctx: RequestContext,
  obj: KubeObject,
  warnings: string[],
  options: WriteOptions,
): Promise<WriteResult> {
  const def = core.def;
  const dryRun = Boolean(options.dryRun || ctx.dryRun);
  settleNamespace(core, ctx, obj);
  const namespace = obj.metadata.namespace;
  if (def.namespaced && !namespace) throw newBadRequest("namespace is required for a namespaced resource");

  const attrs = { operation: "CREATE" as const, namespace, object: obj, dryRun, name: obj.metadata.name ?? "" };
  const admitting = admit(core, ctx, attrs, "admit");
  if (admitting) await admitting;
  prepareCreate(core, ctx, obj);
  const base = obj.metadata.generateName;
  const generated = !obj.metadata.name && Boolean(base);
  if (generated) obj.metadata.name = core.generateName(base!);
  validateCreate(core, ctx, obj);
  attrs.name = obj.metadata.name ?? "";
  const validating = admit(core, ctx, attrs, "validate");
  if (validating) await validating;
  warnings.push(...(def.strategy.warningsOnCreate?.(ctx, obj) ?? []));

  for (let attempt = 1; ; attempt++) {
    const name = obj.metadata.name!;
    const key = objectKey(def, namespace, name);
    const value = encode(def, obj);
    checkObjectSize(def, obj, value);
    if (dryRun) {
      if (await getKey(core, key)) throw newAlreadyExists(core.gr, name);
      return { object: obj, warnings, created: true };
    }
    // A handed-over body is ours alone: the change's watchers may share it instead of decoding the value.
    const withdraw = options.bodyOwned ? offerDecoded(def, value, obj) : undefined;
    let created = false;
    try {
      const kv = await core.storage.create(key, value);
      created = true;
      // What the stored value decodes to, without decoding it: obj is this create's own copy.
      obj.metadata.resourceVersion = String(kv.modRevision);
      return { object: obj, warnings, created };
    } catch (err) {
      if (!(err instanceof StorageError && err.code === "KeyExists")) throw storageToStatus(err);
      if (!generated) throw newAlreadyExists(core.gr, name);
      if (attempt >= MAX_NAME_GENERATION_ATTEMPTS) throw newGenerateNameConflict(core.gr, name, 1);
      obj.metadata.name = core.generateName(base!);
    } finally {
      withdraw?.(created);
    }
  }
}
