// Validation of garden Bastions (docs/bastion.md#validation), pure: every field error with its path,
// messages as Gardener's (pkg/apis/operations/validation). The API server renders them as one
// 422 Invalid for Bastion.operations.gardener.cloud.
import { ANNOTATION_CREATED_BY } from "../../../apis/gardencore/v1beta1/types.ts";
import type { ObjectMeta } from "../../../apis/meta/v1/types.ts";
import type { Bastion } from "../../../apis/operations/v1alpha1/types.ts";
import { type FieldError, Path, invalid, tooLong } from "../../../apimachinery/field/errors.ts";
import { nameIsDNSLabel } from "../../../apimachinery/validation/names.ts";
import { validateImmutableField, validateObjectMetaCreate, validateObjectMetaUpdate } from "../../../apimachinery/validation/objectmeta.ts";
import { isCIDR, isStrictSubnet, parseCIDR } from "../../cidr.ts";
import { MAX_AUTHORIZED_KEY_LENGTH, isValidAuthorizedKey } from "../sshkey.ts";
import { recordOrEmpty } from "../../../utils/guards.ts";

const SPEC = Path.root("spec");

/** Bastion names are DNS-1123 labels (they name hosts and seed objects). */
export const validateBastionName = nameIsDNSLabel;

const text = (v: unknown): string => (typeof v === "string" ? v : "");

/**
 * docs/bastion.md#validation-on-create rules on `spec`. CIDR errors use the path `spec.ingress` without an index, as Gardener does;
 * `except` entries are checked as Kubernetes checks NetworkPolicy ipBlocks, with its paths and messages.
 */
export function validateBastionSpec(specValue: unknown): FieldError[] {
  const errs: FieldError[] = [];
  const spec = recordOrEmpty(specValue);
  const shootName = text(recordOrEmpty(spec.shootRef).name);
  if (shootName === "") errs.push(invalid(SPEC.child("shootRef", "name"), shootName, "shoot reference must not be empty"));

  const key = text(spec.sshPublicKey);
  if (key === "") errs.push(invalid(SPEC.child("sshPublicKey"), key, "sshPublicKey must not be empty"));
  // As Kubernetes' TooLong: the value is not echoed back.
  else if (key.length > MAX_AUTHORIZED_KEY_LENGTH) errs.push(tooLong(SPEC.child("sshPublicKey"), undefined, `may not be more than ${MAX_AUTHORIZED_KEY_LENGTH} bytes`));
  else if (!isValidAuthorizedKey(key)) errs.push(invalid(SPEC.child("sshPublicKey"), key, "invalid sshPublicKey"));

  const ingress = Array.isArray(spec.ingress) ? spec.ingress : [];
  if (ingress.length === 0) errs.push(invalid(SPEC.child("ingress"), spec.ingress ?? null, "ingress must not be empty"));
  ingress.forEach((entry, i) => {
    const ipBlock = recordOrEmpty(recordOrEmpty(entry).ipBlock);
    const cidr = text(ipBlock.cidr);
    if (cidr === "") errs.push(invalid(SPEC.child("ingress"), cidr, "CIDR must not be empty"));
    else if (!isCIDR(cidr)) errs.push(invalid(SPEC.child("ingress"), cidr, "invalid CIDR"));
    errs.push(...validateExcept(ipBlock.except, cidr, SPEC.child("ingress").index(i).child("ipBlock", "except")));
  });
  return errs;
}

/**
 * `ipBlock.except` as Kubernetes validates NetworkPolicy's: each entry a valid CIDR strictly
 * inside `cidr` (same family, longer prefix). Not checked against an invalid `cidr`.
 */
function validateExcept(value: unknown, cidr: string, path: Path): FieldError[] {
  if (!Array.isArray(value)) return [];
  const outer = parseCIDR(cidr);
  const errs: FieldError[] = [];
  value.forEach((item, j) => {
    const except = text(item);
    const inner = parseCIDR(except);
    if (!inner) errs.push(invalid(path.index(j), except, "must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)"));
    else if (outer && !isStrictSubnet(inner, outer)) errs.push(invalid(path.index(j), except, "must be a strict subset of `cidr`"));
  });
  return errs;
}

/** docs/bastion.md#validation-on-create: metadata (name a DNS-1123 label, namespace required) and spec. */
export function validateBastion(bastion: Pick<Bastion, "metadata" | "spec">): FieldError[] {
  return [
    ...validateObjectMetaCreate(bastion.metadata ?? {}, { namespaced: true, nameValidator: validateBastionName }),
    ...validateBastionSpec(bastion.spec),
  ];
}

function createdBy(meta: ObjectMeta | undefined): string {
  return meta?.annotations?.[ANNOTATION_CREATED_BY] ?? "";
}

/** docs/bastion.md#validation-on-update without the standard ObjectMeta rules (the API server's store checks those): creator, shoot reference and key. */
export function validateBastionImmutables(bastion: Pick<Bastion, "metadata" | "spec">, old: Pick<Bastion, "metadata" | "spec">): FieldError[] {
  const spec = recordOrEmpty(bastion.spec);
  const oldSpec = recordOrEmpty(old.spec);
  return [
    ...validateImmutableField(createdBy(bastion.metadata), createdBy(old.metadata), Path.root("metadata").child("annotations")),
    ...validateImmutableField(text(recordOrEmpty(spec.shootRef).name), text(recordOrEmpty(oldSpec.shootRef).name), SPEC.child("shootRef", "name")),
    ...rawImmutable(text(spec.sshPublicKey), text(oldSpec.sshPublicKey), SPEC.child("sshPublicKey")),
  ];
}

/** docs/bastion.md#validation-on-update: immutable metadata, creator, shoot reference and key; then docs/bastion.md#validation-on-create in full on the new object. */
export function validateBastionUpdate(bastion: Pick<Bastion, "metadata" | "spec">, old: Pick<Bastion, "metadata" | "spec">): FieldError[] {
  return [
    ...validateObjectMetaUpdate(bastion.metadata ?? {}, old.metadata ?? {}, { namespaced: true }),
    ...validateBastionImmutables(bastion, old),
    ...validateBastion(bastion),
  ];
}

/** Compared as raw strings: a changed line break is a change too. */
function rawImmutable(next: string, prev: string, path: Path): FieldError[] {
  if (next === prev) return [];
  // A long new value is not echoed back (it is at most a few KiB once valid, but need not be).
  return [invalid(path, next.length > 1024 ? undefined : next, "field is immutable")];
}

/** docs/bastion.md#validation-of-status-updates: a heartbeat may lie in the past (it shortens the Bastion's life) but not in the future. */
export function validateBastionStatusUpdate(bastion: Pick<Bastion, "status">, now: Date): FieldError[] {
  const heartbeat = bastion.status?.lastHeartbeatTimestamp;
  if (typeof heartbeat !== "string") return [];
  const t = Date.parse(heartbeat);
  if (!Number.isNaN(t) && t > now.getTime()) {
    return [invalid(Path.root("status").child("lastHeartbeatTimestamp"), heartbeat, "last heartbeat must not be in the future")];
  }
  return [];
}
