// Admission plugin `DeletionConfirmation`, as Gardener's: a Shoot or Project may only be deleted
// when the stored object carries the annotation `confirmation.gardener.cloud/deletion` with a true
// value (Go's strconv.ParseBool: 1, t, T, TRUE, true, True). Validating; DELETE only, so
// deletecollection is checked object by object. The stored object decides, never the request.
import { GROUP } from "../../apis/gardencore/v1beta1/types.ts";
import { newForbidden } from "../../apimachinery/errors.ts";
import type { AdmissionAttributes, AdmissionPlugin } from "../../apiserver/admission/types.ts";

export const PLUGIN_NAME = "DeletionConfirmation";
export const ANNOTATION_CONFIRMATION_DELETION = "confirmation.gardener.cloud/deletion";

const GUARDED = new Set(["shoots", "projects"]);
const TRUE_VALUES = new Set(["1", "t", "T", "TRUE", "true", "True"]);

export function deletionConfirmed(annotations: Record<string, string> | undefined): boolean {
  return TRUE_VALUES.has(annotations?.[ANNOTATION_CONFIRMATION_DELETION] ?? "");
}

export class DeletionConfirmation implements AdmissionPlugin {
  readonly name = PLUGIN_NAME;

  validate(attrs: AdmissionAttributes): Promise<void> {
    if (attrs.operation !== "DELETE" || attrs.resource.group !== GROUP || !GUARDED.has(attrs.resource.plural)) return Promise.resolve();
    if (deletionConfirmed(attrs.oldObject?.metadata.annotations)) return Promise.resolve();
    const gr = { group: GROUP, resource: attrs.resource.plural };
    return Promise.reject(newForbidden(gr, attrs.name, `must have a "${ANNOTATION_CONFIRMATION_DELETION}" annotation to delete`));
  }
}
