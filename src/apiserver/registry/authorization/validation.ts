// Validation of access reviews ([k8s] pkg/apis/authorization/validation/validation.go).
import type { ResourceAttributes, SelfSubjectAccessReviewSpec, SubjectAccessReviewSpec } from "../../../apis/authorization/v1/types.ts";
import { type FieldError, Path, invalid, required } from "../../../apimachinery/field/errors.ts";
import { isRecord } from "../../../utils/guards.ts";

const SPEC = Path.root("spec");

export function validateSelfSubjectAccessReviewSpec(spec: SelfSubjectAccessReviewSpec | undefined): FieldError[] {
  const errs: FieldError[] = [];
  if (!isRecord(spec)) return [required(SPEC)];
  const hasRes = spec.resourceAttributes != null;
  const hasNonRes = spec.nonResourceAttributes != null;
  if (hasRes && hasNonRes) errs.push(invalid(SPEC.child("nonResourceAttributes"), spec.nonResourceAttributes, "cannot be specified in combination with resourceAttributes"));
  if (!hasRes && !hasNonRes) errs.push(invalid(SPEC.child("resourceAttributes"), null, "exactly one of nonResourceAttributes or resourceAttributes must be specified"));
  if (hasRes && !isRecord(spec.resourceAttributes)) errs.push(invalid(SPEC.child("resourceAttributes"), spec.resourceAttributes, "must be an object"));
  if (hasNonRes && !isRecord(spec.nonResourceAttributes)) errs.push(invalid(SPEC.child("nonResourceAttributes"), spec.nonResourceAttributes, "must be an object"));
  if (hasRes && isRecord(spec.resourceAttributes)) errs.push(...validateResourceAttributes(spec.resourceAttributes));
  return errs;
}

export function validateSubjectAccessReviewSpec(spec: SubjectAccessReviewSpec | undefined): FieldError[] {
  const errs = validateSelfSubjectAccessReviewSpec(spec);
  if (!isRecord(spec)) return errs;
  if (!spec.user && (!Array.isArray(spec.groups) || spec.groups.length === 0)) {
    errs.push(invalid(SPEC.child("user"), spec.user ?? "", "at least one of user or group must be specified"));
  }
  return errs;
}

/** LocalSubjectAccessReview: additionally namespace-bound and resource-only. */
export function validateLocalSubjectAccessReviewSpec(spec: SubjectAccessReviewSpec | undefined, namespace: string): FieldError[] {
  const errs = validateSubjectAccessReviewSpec(spec);
  if (!isRecord(spec)) return errs;
  const ra = spec.resourceAttributes;
  if (isRecord(ra) && (ra.namespace ?? "") !== namespace) {
    errs.push(invalid(SPEC.child("resourceAttributes", "namespace"), ra.namespace ?? "", "must match metadata.namespace"));
  }
  if (spec.nonResourceAttributes != null) errs.push(invalid(SPEC.child("nonResourceAttributes"), spec.nonResourceAttributes, "disallowed on this kind of request"));
  return errs;
}

function validateResourceAttributes(ra: ResourceAttributes): FieldError[] {
  const errs: FieldError[] = [];
  const p = SPEC.child("resourceAttributes");
  for (const k of ["namespace", "verb", "group", "version", "resource", "subresource", "name"] as const) {
    if (ra[k] !== undefined && typeof ra[k] !== "string") errs.push(invalid(p.child(k), ra[k], "must be a string"));
  }
  return errs;
}

