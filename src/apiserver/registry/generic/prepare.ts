// Turning a request body into the object to store: decoding (type meta, unknown-field pruning,
// defaults), the system fields of create and update, the status subresource rules, generation,
// and validation (ObjectMeta + schema + strategy, all errors in one 422).
import { randomUUID } from "node:crypto";
import type { KubeObject } from "../../../apis/meta/v1/types.ts";
import { newBadRequest, newInvalid } from "../../../apimachinery/errors.ts";
import type { FieldError } from "../../../apimachinery/field/errors.ts";
import { validateObjectMetaCreate, validateObjectMetaUpdate } from "../../../apimachinery/validation/objectmeta.ts";
import { depthMessage, MAX_NESTING_DEPTH, measureJson } from "../../../apimachinery/json/bounds.ts";
import { compileSchema } from "../../schema/compile.ts";
import { objectMetaSchema } from "../../schema/objectmeta.ts";
import { groupVersionOf, type RequestContext } from "../types.ts";
import { jsonEqual, normalizeMeta } from "./codec.ts";
import type { StoreCore } from "./core.ts";
import type { WriteOptions } from "./interface.ts";
import { maxObjectBytes, objectTooLarge } from "./size.ts";
import { metaTime } from "../../../utils/time.ts";
import { isRecord } from "../../../utils/guards.ts";

export interface Decoded {
  obj: KubeObject;
  warnings: string[];
}

/**
 * A deep copy of the body (the body itself when `owned`: the caller handed it over) as an object of this resource:
 * depth and size bounded, type meta checked, unknown fields dropped (fieldValidation=Strict: 400 listing all of them;
 * Warn or unset: warnings), defaults applied.
 */
export function decodeBody(core: StoreCore, body: unknown, fieldValidation: WriteOptions["fieldValidation"], owned = false): Decoded {
  if (!isRecord(body)) throw newBadRequest(`the object provided is not a JSON object of kind ${core.def.kind}`);
  // Before anything recursive (structuredClone, pruning, defaulting, validation) and before
  // admission: too deep is a 400, too large for the kind a 413 (checked exactly again when stored).
  const m = measureJson(body, { maxDepth: MAX_NESTING_DEPTH, maxBytes: maxObjectBytes(core.def) });
  if (m.exceeded === "depth") throw newBadRequest(`the object provided is nested too deeply: ${depthMessage()}`);
  if (m.exceeded === "bytes") throw objectTooLarge(core.def, undefined, nameOf(body));
  const obj = (owned ? body : structuredClone(body)) as KubeObject;
  if (obj.metadata === undefined || obj.metadata === null) obj.metadata = {};
  if (!isRecord(obj.metadata)) throw newBadRequest("metadata: expected an object");
  const gv = groupVersionOf(core.def);
  if (obj.apiVersion !== undefined && obj.apiVersion !== "" && obj.apiVersion !== gv) {
    throw newBadRequest(`the API version in the data (${String(obj.apiVersion)}) does not match the expected API version (${gv})`);
  }
  if (obj.kind !== undefined && obj.kind !== "" && obj.kind !== core.def.kind) {
    throw newBadRequest(`the kind in the data (${String(obj.kind)}) does not match the expected kind (${core.def.kind})`);
  }
  checkMetadataTypes(core, obj);
  const removed = core.schema.prune(obj);
  const warnings: string[] = [];
  if (removed.length) {
    if (fieldValidation === "Strict") {
      throw newBadRequest(`strict decoding error: ${removed.map((p) => `unknown field ${JSON.stringify(p)}`).join(", ")}`);
    }
    if (fieldValidation !== "Ignore") for (const p of removed) warnings.push(`unknown field ${JSON.stringify(p)}`);
  }
  core.schema.applyDefaults(obj);
  if (!isRecord(obj.metadata)) obj.metadata = {};
  obj.apiVersion = gv;
  obj.kind = core.def.kind;
  return { obj, warnings };
}

function nameOf(body: Record<string, unknown>): string {
  const meta = body.metadata;
  return isRecord(meta) && typeof meta.name === "string" ? meta.name : "";
}

const metadataOnly = compileSchema({ type: "object", properties: { metadata: objectMetaSchema } }, { resource: false });

/**
 * ObjectMeta fields of the wrong JSON type (a boolean name, a finalizer that is an object) cannot
 * be decoded at all: 400, as kube-apiserver's decoder answers, before any code reads them.
 */
function checkMetadataTypes(core: StoreCore, obj: KubeObject): void {
  // null is "unset" to a JSON decoder (kubectl 1.27 sends creationTimestamp: null).
  const meta = obj.metadata as Record<string, unknown>;
  for (const k of Object.keys(meta)) if (meta[k] === null) delete meta[k];
  const wrong = metadataOnly.validate({ metadata: obj.metadata }).filter((e) => e.type === "FieldValueTypeInvalid");
  if (wrong.length === 0) return;
  const { kind, version } = core.def;
  throw newBadRequest(`${kind} in version "${version}" cannot be handled as a ${kind}: ${wrong.map((e) => e.detail).join("; ")}`);
}

/** Namespace from the request: filled in when empty, 400 when different; cleared for cluster-scoped kinds. */
export function settleNamespace(core: StoreCore, ctx: RequestContext, obj: KubeObject): void {
  const meta = obj.metadata;
  if (!core.def.namespaced) {
    delete meta.namespace;
    return;
  }
  if (!meta.namespace) {
    if (ctx.namespace) meta.namespace = ctx.namespace;
  } else if (ctx.namespace && meta.namespace !== ctx.namespace) {
    throw newBadRequest("the namespace of the provided object does not match the namespace sent on the request");
  }
}

/** System fields of a new object (BeforeCreate): uid, creationTimestamp, generation 1, no deletion, no status. */
export function prepareCreate(core: StoreCore, ctx: RequestContext, obj: KubeObject): void {
  settleNamespace(core, ctx, obj);
  const meta = obj.metadata;
  delete meta.resourceVersion;
  delete meta.deletionTimestamp;
  delete meta.deletionGracePeriodSeconds;
  meta.uid = randomUUID();
  meta.creationTimestamp = metaTime(core.clock.now());
  if (core.def.tracksGeneration === false) delete meta.generation;
  else meta.generation = 1;
  if (core.def.hasStatus) delete obj.status;
  core.def.strategy.prepareForCreate?.(ctx, obj);
  obj.metadata = normalizeMeta(obj.metadata);
}

export function validateCreate(core: StoreCore, ctx: RequestContext, obj: KubeObject): void {
  const errs: FieldError[] = [
    ...validateObjectMetaCreate(obj.metadata, { namespaced: core.def.namespaced, nameValidator: core.def.nameValidator }),
    ...core.schema.validate(obj),
    ...(core.def.strategy.validate?.(ctx, obj) ?? []),
  ];
  if (errs.length) throw newInvalid(core.gk, obj.metadata.name ?? "", dedupe(errs));
}

/** Main-resource update (BeforeUpdate): immutable system fields restored from the old object, status kept, generation. */
export function prepareUpdate(core: StoreCore, ctx: RequestContext, obj: KubeObject, old: KubeObject): void {
  const meta = obj.metadata;
  const prev = old.metadata;
  meta.generation = prev.generation;
  if (!meta.uid) meta.uid = prev.uid;
  meta.creationTimestamp = prev.creationTimestamp;
  meta.deletionTimestamp = prev.deletionTimestamp;
  meta.deletionGracePeriodSeconds = prev.deletionGracePeriodSeconds;
  if (core.def.hasStatus) {
    if (old.status === undefined) delete obj.status;
    else obj.status = structuredClone(old.status);
  }
  core.def.strategy.prepareForUpdate?.(ctx, obj, old);
  obj.metadata = normalizeMeta(obj.metadata);
  // Kinds without generation keep whatever an older server stored (it may not decrease), never bumped.
  if (core.def.tracksGeneration !== false && specChanged(core, obj, old)) obj.metadata.generation = (prev.generation ?? 0) + 1;
}

/** `/status` update: the old object with only `status` replaced from the body. */
export function prepareStatusUpdate(core: StoreCore, ctx: RequestContext, body: KubeObject, old: KubeObject): KubeObject {
  const obj = structuredClone(old);
  if (body.status === undefined) delete obj.status;
  else obj.status = structuredClone(body.status);
  // The field manager computed the body's managedFields from the old object's.
  if (body.metadata.managedFields) obj.metadata.managedFields = body.metadata.managedFields;
  else delete obj.metadata.managedFields;
  core.def.strategy.prepareForStatusUpdate?.(ctx, obj, old);
  obj.metadata = normalizeMeta(obj.metadata);
  return obj;
}

export function validateUpdate(core: StoreCore, ctx: RequestContext, obj: KubeObject, old: KubeObject, subresource: string): void {
  const strategy = core.def.strategy;
  const errs: FieldError[] =
    subresource === "status"
      ? [...core.schema.validate(obj), ...(strategy.validateStatusUpdate?.(ctx, obj, old) ?? [])]
      : [
          ...validateObjectMetaUpdate(obj.metadata, old.metadata, { namespaced: core.def.namespaced, nameValidator: core.def.nameValidator }),
          ...core.schema.validate(obj),
          ...(strategy.validateUpdate?.(ctx, obj, old) ?? strategy.validate?.(ctx, obj) ?? []),
        ];
  if (errs.length) throw newInvalid(core.gk, obj.metadata.name ?? "", dedupe(errs));
}

/** The same error found by two validators is reported once. */
function dedupe(errs: FieldError[]): FieldError[] {
  const seen = new Set<string>();
  return errs.filter((e) => {
    const k = `${e.type}\0${e.field}\0${e.detail}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

/** Anything outside metadata (and status, with a status subresource) differs. */
export function specChanged(core: StoreCore, a: KubeObject, b: KubeObject): boolean {
  const strip = (o: KubeObject) => {
    const { metadata: _m, apiVersion: _a, kind: _k, ...rest } = o;
    if (core.def.hasStatus) delete rest.status;
    return rest;
  };
  return !jsonEqual(strip(a), strip(b));
}

/** Same content apart from resourceVersion: the write would change nothing. */
export function sameObject(a: KubeObject, b: KubeObject): boolean {
  const strip = (o: KubeObject) => ({ ...o, metadata: { ...normalizeMeta(o.metadata), resourceVersion: undefined } });
  return jsonEqual(strip(a), strip(b));
}
