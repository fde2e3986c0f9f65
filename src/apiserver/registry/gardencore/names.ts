// Gardener kinds name their objects with DNS-1123 labels, stricter than the DNS-1123 subdomain
// rule the generic store applies to every object's metadata. A name failing both would be
// reported twice, so strategies keep a label error only where the store's check passed.
import type { ObjectMeta } from "../../../apis/meta/v1/types.ts";
import type { FieldError } from "../../../apimachinery/field/errors.ts";
import { nameIsDNSLabel, nameIsDNSSubdomain } from "../../../apimachinery/validation/names.ts";
import { validateObjectMetaCreate } from "../../../apimachinery/validation/objectmeta.ts";

export function withoutStoreNameErrors(errs: FieldError[], meta: ObjectMeta): FieldError[] {
  const storeRejects = (field: string): boolean => {
    if (field === "metadata.name") return nameIsDNSSubdomain(meta.name ?? "", false).length > 0;
    if (field === "metadata.generateName") return nameIsDNSSubdomain(meta.generateName ?? "", true).length > 0;
    return false;
  };
  return errs.filter((e) => !(e.type === "FieldValueInvalid" && storeRejects(e.field)));
}

/** The DNS-1123 label errors of metadata.name / generateName not already reported by the store. */
export function labelNameErrors(meta: ObjectMeta, namespaced: boolean): FieldError[] {
  const errs = validateObjectMetaCreate(meta, { namespaced, nameValidator: nameIsDNSLabel }).filter(
    (e) => e.field === "metadata.name" || e.field === "metadata.generateName",
  );
  return withoutStoreNameErrors(errs, meta);
}
