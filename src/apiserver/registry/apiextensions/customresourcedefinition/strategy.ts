// CustomResourceDefinition strategy: the v1 defaults (singular, listKind, conversion) on every
// write, and status.storedVersions tracking the storage version. Conditions and acceptedNames
// are written through /status by the CRD controller.
import type { CustomResourceDefinition } from "../../../../apis/apiextensions/v1/types.ts";
import type { Strategy } from "../../types.ts";
import { asArray, asRecord, asString } from "../../core/keys.ts";
import { validateCRD, validateCRDUpdate, validateStoredVersions } from "./validation.ts";

export function defaultCRD(crd: CustomResourceDefinition): void {
  const spec = asRecord(crd.spec);
  if (!spec) return;
  const names = asRecord(spec.names);
  if (names) {
    const kind = asString(names.kind);
    if (!names.singular && kind) names.singular = kind.toLowerCase();
    if (!names.listKind && kind) names.listKind = `${kind}List`;
  }
  const conversion = asRecord(spec.conversion);
  if (!conversion) spec.conversion = { strategy: "None" };
  else if (!conversion.strategy) conversion.strategy = "None";
}

/** Adds the current storage version to status.storedVersions. */
function recordStorageVersion(crd: CustomResourceDefinition): void {
  const storage = asArray(crd.spec?.versions).find((v) => asRecord(v)?.storage === true);
  const name = asString(asRecord(storage)?.name);
  if (!name) return;
  const status = (asRecord(crd.status) ?? {}) as NonNullable<CustomResourceDefinition["status"]>;
  const stored = Array.isArray(status.storedVersions) ? status.storedVersions : [];
  if (!stored.includes(name)) stored.push(name);
  status.storedVersions = stored;
  crd.status = status;
}

export const crdStrategy: Strategy<CustomResourceDefinition> = {
  prepareForCreate(_ctx, crd) {
    defaultCRD(crd);
    crd.status = {};
    recordStorageVersion(crd);
  },
  prepareForUpdate(_ctx, crd) {
    defaultCRD(crd);
    recordStorageVersion(crd);
  },
  validate: (_ctx, crd) => validateCRD(crd),
  validateUpdate: (_ctx, crd, old) => validateCRDUpdate(crd, old),
  validateStatusUpdate: (_ctx, crd) => validateStoredVersions(crd),
};
