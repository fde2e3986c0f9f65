// Namespace validation (pkg/apis/core/validation ValidateNamespace): the name is a DNS-1123
// label, and every spec finalizer is "kubernetes" (or another standard name) or fully qualified.
import type { Namespace } from "../../../../apis/core/v1/types.ts";
import { type FieldError, invalid } from "../../../../apimachinery/field/errors.ts";
import { isDNS1123Label, isQualifiedName } from "../../../../apimachinery/names/validation.ts";
import { asArray } from "../keys.ts";

const STANDARD_FINALIZERS = new Set(["kubernetes", "orphan", "foregroundDeletion"]);

export function validateFinalizerName(name: string, path: string): FieldError[] {
  const errs = isQualifiedName(name).map((msg) => invalid(path, name, msg));
  if (!name.includes("/") && !STANDARD_FINALIZERS.has(name)) {
    errs.push(invalid(path, name, "name is neither a standard finalizer name nor is it fully qualified"));
  }
  return errs;
}

export function validateNamespace(ns: Namespace): FieldError[] {
  const errs: FieldError[] = [];
  const name = ns.metadata.name;
  if (name) for (const msg of isDNS1123Label(name)) errs.push(invalid("metadata.name", name, msg));
  asArray(ns.spec?.finalizers).forEach((f, i) => {
    if (typeof f === "string") errs.push(...validateFinalizerName(f, `spec.finalizers[${i}]`));
  });
  return errs;
}
