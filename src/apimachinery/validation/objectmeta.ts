// ObjectMeta validation on create and update (k8s.io/apimachinery/pkg/api/validation/objectmeta.go
// and pkg/apis/meta/v1/validation). Pure: returns every FieldError, with paths under "metadata";
// callers wrap a non-empty list in newInvalid (422).
import type { ManagedFieldsEntry, ObjectMeta, OwnerReference } from "../../apis/meta/v1/types.ts";
import { type FieldError, Path, forbidden, invalid, required, tooLong, typeInvalid } from "../field/errors.ts";
import { isQualifiedName, isValidLabelValue } from "../names/validation.ts";
import { IS_NEGATIVE_ERROR_MSG, type NameValidator, nameIsDNSSubdomain, validateNamespaceName, validatePathSegmentName } from "./names.ts";

export const FIELD_IMMUTABLE_ERROR_MSG = "field is immutable";
export const TOTAL_ANNOTATION_SIZE_LIMIT_B = 256 * 1024;
export const FIELD_MANAGER_MAX_LENGTH = 128;
export const FINALIZER_ORPHAN_DEPENDENTS = "orphan";
export const FINALIZER_DELETE_DEPENDENTS = "foregroundDeletion";

export interface ObjectMetaOptions {
  /** Namespaced kinds require a namespace; cluster-scoped kinds forbid one. */
  namespaced: boolean;
  /** Rule for metadata.name and metadata.generateName; default DNS-1123 subdomain. */
  nameValidator?: NameValidator;
  /**
   * Update only: report an empty metadata.resourceVersion (`must be specified for an update`).
   * Off by default because the registry fills in the stored RV for unconditional updates first.
   */
  requireResourceVersion?: boolean;
}

const META = Path.root("metadata");
const bytes = (s: string): number => Buffer.byteLength(s, "utf8");

function stringMap(m: unknown, path: Path, errs: FieldError[]): [string, string][] {
  if (m === undefined || m === null) return [];
  if (typeof m !== "object" || Array.isArray(m)) {
    errs.push(typeInvalid(path, m, "must be an object of strings"));
    return [];
  }
  const entries: [string, string][] = [];
  for (const [k, v] of Object.entries(m)) {
    if (typeof v === "string") entries.push([k, v]);
    else errs.push(typeInvalid(path.key(k), v, "must be a string"));
  }
  return entries;
}

export function validateLabels(labels: unknown, path: Path = META.child("labels")): FieldError[] {
  const errs: FieldError[] = [];
  for (const [k, v] of stringMap(labels, path, errs)) {
    for (const msg of isQualifiedName(k)) errs.push(invalid(path, k, msg));
    for (const msg of isValidLabelValue(v)) errs.push(invalid(path, v, msg));
  }
  return errs;
}

/** Keys are qualified names (case-insensitive); keys and values together at most 256 KiB. */
export function validateAnnotations(annotations: unknown, path: Path = META.child("annotations")): FieldError[] {
  const errs: FieldError[] = [];
  let total = 0;
  for (const [k, v] of stringMap(annotations, path, errs)) {
    for (const msg of isQualifiedName(k.toLowerCase())) errs.push(invalid(path, k, msg));
    total += bytes(k) + bytes(v);
  }
  if (total > TOTAL_ANNOTATION_SIZE_LIMIT_B) {
    errs.push(tooLong(path, undefined, `may not be more than ${TOTAL_ANNOTATION_SIZE_LIMIT_B} bytes`));
  }
  return errs;
}

/** "group/version" or "version"; more slashes are not a valid apiVersion. */
function versionOf(apiVersion: string): string {
  const parts = apiVersion.split("/");
  if (parts.length === 1) return parts[0]!;
  return parts.length === 2 ? parts[1]! : "";
}

export function validateOwnerReferences(refs: OwnerReference[] | undefined, path: Path = META.child("ownerReferences")): FieldError[] {
  const errs: FieldError[] = [];
  let firstController = "";
  for (const ref of refs ?? []) {
    const apiVersion = ref.apiVersion ?? "";
    if (!versionOf(apiVersion)) errs.push(invalid(path.child("apiVersion"), apiVersion, "version must not be empty"));
    if (!ref.kind) errs.push(invalid(path.child("kind"), ref.kind ?? "", "kind must not be empty"));
    if (!ref.name) errs.push(invalid(path.child("name"), ref.name ?? "", "name must not be empty"));
    if (!ref.uid) errs.push(invalid(path.child("uid"), ref.uid ?? "", "uid must not be empty"));
    if (apiVersion === "v1" && ref.kind === "Event") errs.push(invalid(path, ref, "/v1, Kind=Event is disallowed from being an owner"));
    if (ref.controller === true) {
      const name = `${ref.kind}/${ref.name}`;
      if (firstController) {
        errs.push(
          invalid(
            path,
            refs,
            `Only one reference can have Controller set to true. Found "true" in references for ${firstController} and ${name}`,
          ),
        );
      } else {
        firstController = name;
      }
    }
  }
  return errs;
}

/** Finalizers are qualified names; orphan and foregroundDeletion exclude each other. */
export function validateFinalizers(finalizers: string[] | undefined, path: Path = META.child("finalizers")): FieldError[] {
  const errs: FieldError[] = [];
  for (const f of finalizers ?? []) for (const msg of isQualifiedName(f)) errs.push(invalid(path, f, msg));
  const list = finalizers ?? [];
  if (list.includes(FINALIZER_ORPHAN_DEPENDENTS) && list.includes(FINALIZER_DELETE_DEPENDENTS)) {
    errs.push(invalid(path, list, `finalizer ${FINALIZER_ORPHAN_DEPENDENTS} and ${FINALIZER_DELETE_DEPENDENTS} cannot be both set`));
  }
  return errs;
}

export function validateNoNewFinalizers(newF: string[] | undefined, oldF: string[] | undefined, path: Path = META.child("finalizers")): FieldError[] {
  const old = new Set(oldF ?? []);
  const extra = [...new Set((newF ?? []).filter((f) => !old.has(f)))].sort();
  if (extra.length === 0) return [];
  const shown = `[]string{${extra.map((f) => JSON.stringify(f)).join(", ")}}`;
  return [forbidden(path, `no new finalizers can be added if the object is being deleted, found new finalizers ${shown}`)];
}

const MANAGED_FIELDS = META.child("managedFields");

/** A printable character or a space (Go's unicode.IsPrint); a whole string of them is checked first, then each character. */
const PRINTABLE_CHAR = "[\\p{L}\\p{M}\\p{N}\\p{P}\\p{S} ]";
const PRINTABLE = new RegExp(`^${PRINTABLE_CHAR}*$`, "u");
const PRINTABLE_ONE = new RegExp(`^${PRINTABLE_CHAR}$`, "u");

/** Short and printable: valid without counting bytes (every write validates its managedFields). */
function plainManager(manager: string): boolean {
  return manager.length <= FIELD_MANAGER_MAX_LENGTH / 4 && PRINTABLE.test(manager);
}

/** Printable characters only (Go's unicode.IsPrint), at most 128 bytes. */
export function validateFieldManager(manager: string, path: Path): FieldError[] {
  const errs: FieldError[] = [];
  if (bytes(manager) > FIELD_MANAGER_MAX_LENGTH) errs.push(tooLong(path, undefined, `may not be more than ${FIELD_MANAGER_MAX_LENGTH} bytes`));
  let at = 0;
  for (const ch of manager) {
    if (!PRINTABLE_ONE.test(ch)) {
      const code = ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0");
      errs.push(invalid(path, manager, `invalid character U+${code} (at position ${at})`));
    }
    at += bytes(ch);
  }
  return errs;
}

export function validateManagedFields(entries: ManagedFieldsEntry[] | undefined, path: Path = MANAGED_FIELDS): FieldError[] {
  const errs: FieldError[] = [];
  (entries ?? []).forEach((e, i) => {
    if (e.operation !== "Apply" && e.operation !== "Update") errs.push(invalid(path.index(i).child("operation"), e.operation ?? "", "must be `Apply` or `Update`"));
    if (e.fieldsType && e.fieldsType !== "FieldsV1") errs.push(invalid(path.index(i).child("fieldsType"), e.fieldsType, "must be `FieldsV1`"));
    const manager = e.manager ?? "";
    if (!plainManager(manager)) errs.push(...validateFieldManager(manager, path.index(i).child("manager")));
  });
  return errs;
}

function validateName(meta: ObjectMeta, nameFn: NameValidator): FieldError[] {
  const errs: FieldError[] = [];
  if (meta.generateName) checkName(errs, nameFn, meta.generateName, true, "generateName");
  if (meta.name) checkName(errs, nameFn, meta.name, false, "name");
  else if (!meta.generateName) errs.push(required(META.child("name"), "name or generateName is required"));
  return errs;
}

function checkName(errs: FieldError[], nameFn: NameValidator, value: string, prefix: boolean, field: string): void {
  // The kind's own rule first; the path-segment rule only matters for permissive validators.
  let msgs = nameFn(value, prefix);
  if (msgs.length === 0) msgs = validatePathSegmentName(value, prefix);
  for (const msg of msgs) errs.push(invalid(META.child(field), value, msg));
}

/**
 * Create-time checks. An empty name is accepted when generateName is set (the name is generated
 * after validation).
 */
export function validateObjectMetaCreate(meta: ObjectMeta, opts: ObjectMetaOptions): FieldError[] {
  const errs = validateName(meta, opts.nameValidator ?? nameIsDNSSubdomain);
  if (opts.namespaced) {
    if (!meta.namespace) errs.push(required(META.child("namespace")));
    else for (const msg of validateNamespaceName(meta.namespace, false)) errs.push(invalid(META.child("namespace"), meta.namespace, msg));
  } else if (meta.namespace) {
    errs.push(forbidden(META.child("namespace"), "not allowed on this type"));
  }
  if (typeof meta.generation === "number" && meta.generation < 0) {
    errs.push(invalid(META.child("generation"), meta.generation, IS_NEGATIVE_ERROR_MSG));
  }
  errs.push(...validateLabels(meta.labels));
  errs.push(...validateAnnotations(meta.annotations));
  errs.push(...validateOwnerReferences(meta.ownerReferences));
  errs.push(...validateFinalizers(meta.finalizers));
  errs.push(...validateManagedFields(meta.managedFields));
  return errs;
}

/** Timestamps compare as instants when both parse; absent and "" are the same. */
function sameValue(a: unknown, b: unknown, timestamp = false): boolean {
  const norm = (v: unknown): unknown => (v === undefined || v === null || v === "" ? undefined : v);
  const x = norm(a);
  const y = norm(b);
  if (timestamp && typeof x === "string" && typeof y === "string") {
    const tx = Date.parse(x);
    const ty = Date.parse(y);
    if (!Number.isNaN(tx) && !Number.isNaN(ty)) return Math.floor(tx / 1000) === Math.floor(ty / 1000);
  }
  return x === y;
}

/** `field is immutable` (with the new value) unless old and new are the same. */
export function validateImmutableField(newVal: unknown, oldVal: unknown, path: Path | string, timestamp = false): FieldError[] {
  return sameValue(newVal, oldVal, timestamp) ? [] : [invalid(path, newVal ?? "", FIELD_IMMUTABLE_ERROR_MSG)];
}

/**
 * Update-time checks: immutable identity and timestamps, no new finalizers while deleting,
 * generation never decreases, plus the create-time syntax checks of mutable fields.
 */
export function validateObjectMetaUpdate(newMeta: ObjectMeta, oldMeta: ObjectMeta, opts: ObjectMetaOptions): FieldError[] {
  const errs: FieldError[] = [];
  if (oldMeta.deletionTimestamp) errs.push(...validateNoNewFinalizers(newMeta.finalizers, oldMeta.finalizers));
  if (opts.requireResourceVersion && !newMeta.resourceVersion) {
    errs.push(invalid(META.child("resourceVersion"), newMeta.resourceVersion ?? "", "must be specified for an update"));
  }
  if ((newMeta.generation ?? 0) < (oldMeta.generation ?? 0)) {
    errs.push(invalid(META.child("generation"), newMeta.generation ?? 0, "must not be decremented"));
  }
  errs.push(...validateImmutableField(newMeta.name, oldMeta.name, META.child("name")));
  errs.push(...validateImmutableField(newMeta.namespace, oldMeta.namespace, META.child("namespace")));
  errs.push(...validateImmutableField(newMeta.uid, oldMeta.uid, META.child("uid")));
  errs.push(...validateImmutableField(newMeta.creationTimestamp, oldMeta.creationTimestamp, META.child("creationTimestamp"), true));
  errs.push(...validateImmutableField(newMeta.deletionTimestamp, oldMeta.deletionTimestamp, META.child("deletionTimestamp"), true));
  errs.push(
    ...validateImmutableField(newMeta.deletionGracePeriodSeconds, oldMeta.deletionGracePeriodSeconds, META.child("deletionGracePeriodSeconds")),
  );
  errs.push(...validateLabels(newMeta.labels));
  errs.push(...validateAnnotations(newMeta.annotations));
  errs.push(...validateOwnerReferences(newMeta.ownerReferences));
  errs.push(...validateFinalizers(newMeta.finalizers));
  errs.push(...validateManagedFields(newMeta.managedFields));
  return errs;
}
