// The garden's admission plugins, in the order they run: Bastion, SeedRestriction,
// DeletionConfirmation, CustomVerbAuthorizer, ShootValidator. The composition root hands them to the API server when it serves the
// Gardener APIs (--enable-gardener-apis); the server itself does not import plugins/.
import type { AdmissionPlugin } from "../apiserver/admission/types.ts";
import { BastionAdmission } from "./bastion/admission.ts";
import { CustomVerbAuthorizer } from "./customverbauthorizer/admission.ts";
import { DeletionConfirmation } from "./deletionconfirmation/admission.ts";
import { SeedRestriction } from "./seedrestriction/admission.ts";
import { ShootValidator } from "./shootvalidator/admission.ts";

export function gardenAdmissionPlugins(): AdmissionPlugin[] {
  return [new BastionAdmission(), new SeedRestriction(), new DeletionConfirmation(), new CustomVerbAuthorizer(), new ShootValidator()];
}
