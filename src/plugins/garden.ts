// The garden's admission plugins, in the order they run: Bastion, SeedRestriction,
// DeletionConfirmation, ShootValidator. The composition root hands them to the API server when it serves the
// Gardener APIs (--enable-gardener-apis); the server itself does not import plugins/.
import type { AdmissionPlugin } from "../apiserver/admission/types.ts";
import { BastionAdmission } from "./bastion/admission.ts";
import { DeletionConfirmation } from "./deletionconfirmation/admission.ts";
import { SeedRestriction } from "./seedrestriction/admission.ts";
import { ShootValidator } from "./shootvalidator/admission.ts";

export function gardenAdmissionPlugins(): AdmissionPlugin[] {
  return [new BastionAdmission(), new SeedRestriction(), new DeletionConfirmation(), new ShootValidator()];
}
