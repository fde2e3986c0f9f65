// Validation of seed-side extension Bastions (docs/bastion.md#the-seed-bastion), as the validating webhook
// `validation.extensions.bastions.resources.gardener.cloud` runs it on CREATE and UPDATE. Pure.
import type { ExtensionBastion } from "../../../apis/extensions/v1alpha1/types.ts";
import { type FieldError, Path, forbidden, invalid, required } from "../../../apimachinery/field/errors.ts";
import { nameIsDNSSubdomain } from "../../../apimachinery/validation/names.ts";
import { validateObjectMetaCreate } from "../../../apimachinery/validation/objectmeta.ts";
import { semanticDiff, semanticEqual } from "../../equality.ts";
import { recordOrEmpty } from "../../../utils/guards.ts";

const SPEC = Path.root("spec");

type BastionLike = Pick<ExtensionBastion, "metadata" | "spec">;

const text = (v: unknown): string => (typeof v === "string" ? v : "");

/** Create: metadata (name a DNS-1123 subdomain), then type, userData and ingress required. */
export function validateExtensionBastion(bastion: BastionLike): FieldError[] {
  const spec = recordOrEmpty(bastion.spec);
  const errs = validateObjectMetaCreate(bastion.metadata ?? {}, { namespaced: true, nameValidator: nameIsDNSSubdomain });
  if (text(spec.type) === "") errs.push(required(SPEC.child("type"), "field is required"));
  if (text(spec.userData) === "") errs.push(required(SPEC.child("userData"), "field is required"));
  if (!Array.isArray(spec.ingress) || spec.ingress.length === 0) errs.push(required(SPEC.child("ingress"), "field is required"));
  return errs;
}

/**
 * Update: while the object is being deleted its spec is frozen (one Forbidden error listing the
 * requested changes as `<path>: <new> != <old>`, comma-separated); otherwise type and userData are
 * immutable and the create rules apply.
 */
export function validateExtensionBastionUpdate(bastion: BastionLike, old: BastionLike): FieldError[] {
  if (bastion.metadata?.deletionTimestamp && !semanticEqual(bastion.spec, old.spec)) {
    const changes = semanticDiff(bastion.spec, old.spec, "spec").join(",");
    return [forbidden(SPEC, `cannot update bastion spec if deletion timestamp is set. Requested changes: ${changes}`)];
  }
  const spec = recordOrEmpty(bastion.spec);
  const oldSpec = recordOrEmpty(old.spec);
  const errs: FieldError[] = [];
  if (text(spec.type) !== text(oldSpec.type)) errs.push(invalid(SPEC.child("type"), text(spec.type), "field is immutable"));
  if (text(spec.userData) !== text(oldSpec.userData)) errs.push(invalid(SPEC.child("userData"), text(spec.userData), "field is immutable"));
  return [...errs, ...validateExtensionBastion(bastion)];
}
