// Admission plugin `SeedRestriction` (spec/bastion.md §7) for gardenlet identities: the seed
// authorizer lets a gardenlet `create` Bastions, and this plugin confines that to Bastions of its
// own seed (`spec.seedName`, as set by the Bastion plugin from the Shoot). Validating; registered
// for CREATE of `bastions` only.
import type { KubeObject } from "../../apis/meta/v1/types.ts";
import { GROUP, RESOURCE_BASTIONS } from "../../apis/operations/v1alpha1/types.ts";
import { seedNameOfUser } from "../../api/gardencore/identity.ts";
import { newBadRequest, newForbiddenMessage } from "../../apimachinery/errors.ts";
import type { AdmissionAttributes, AdmissionPlugin, Operation } from "../../apiserver/admission/types.ts";

export const PLUGIN_NAME = "SeedRestriction";

function seedNameOfObject(obj: KubeObject | undefined): string {
  const spec = obj?.spec;
  const name = typeof spec === "object" && spec !== null ? (spec as { seedName?: unknown }).seedName : undefined;
  return typeof name === "string" ? name : "";
}

/** The Bastion rule for a gardenlet of `seed`; exported to show it also refuses what it is not registered for. */
export function admitBastion(seed: string, operation: Operation, obj: KubeObject | undefined): void {
  if (operation !== "CREATE") throw newBadRequest(`unexpected operation: ${JSON.stringify(operation)}`);
  if (seedNameOfObject(obj) !== seed) throw newForbiddenMessage(`object does not belong to seed ${seed}`);
}

export class SeedRestriction implements AdmissionPlugin {
  readonly name = PLUGIN_NAME;

  async validate(attrs: AdmissionAttributes): Promise<void> {
    if (attrs.resource.group !== GROUP || attrs.resource.plural !== RESOURCE_BASTIONS) return;
    if (attrs.subresource !== "" || attrs.operation !== "CREATE") return;
    const seed = seedNameOfUser(attrs.user);
    if (seed === undefined) return;
    admitBastion(seed, attrs.operation, attrs.object);
  }
}
