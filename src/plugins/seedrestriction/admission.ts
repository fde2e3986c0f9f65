// Admission plugin `SeedRestriction` (docs/bastion.md#admission) for gardenlet identities: the seed
// authorizer lets a gardenlet `create` Bastions, and this plugin confines that to Bastions of its
// own seed (`spec.seedName`, as set by the Bastion plugin from the Shoot), and `create` of
// Secrets to the garden copies of its shoots' node key pairs. Validating; CREATE only.
import type { KubeObject } from "../../apis/meta/v1/types.ts";
import { GROUP, RESOURCE_BASTIONS } from "../../apis/operations/v1alpha1/types.ts";
import { seedNameOfUser } from "../../api/gardencore/identity.ts";
import { newBadRequest, newForbiddenMessage } from "../../apimachinery/errors.ts";
import type { AdmissionAttributes, AdmissionPlugin, Operation } from "../../apiserver/admission/types.ts";
import type { InternalClient } from "../../apiserver/registry/client.ts";
import { GROUP as CORE_GROUP } from "../../apis/gardencore/v1beta1/types.ts";
import { isRecord } from "../../utils/guards.ts";

export const PLUGIN_NAME = "SeedRestriction";

function seedNameOfObject(obj: KubeObject | undefined): string {
  const spec = obj?.spec;
  const name = isRecord(spec) ? spec.seedName : undefined;
  return typeof name === "string" ? name : "";
}

/** The Bastion rule for a gardenlet of `seed`; exported to show it also refuses what it is not registered for. */
export function admitBastion(seed: string, operation: Operation, obj: KubeObject | undefined): void {
  if (operation !== "CREATE") throw newBadRequest(`unexpected operation: ${JSON.stringify(operation)}`);
  if (seedNameOfObject(obj) !== seed) throw newForbiddenMessage(`object does not belong to seed ${seed}`);
}

const SHOOTS = { group: CORE_GROUP, resource: "shoots" };

/**
 * A gardenlet may create only the garden copies of the node key pair of a shoot of its own seed
 * (`<shoot>.ssh-keypair[.old]` in the shoot's namespace; docs/maintenance-and-rotation.md#key-pair-secrets).
 */
export async function admitSecret(seed: string, attrs: AdmissionAttributes, client: InternalClient): Promise<void> {
  const shootName = /^(.+)\.ssh-keypair(\.old)?$/.exec(attrs.name)?.[1];
  const shoot = shootName ? await client.get(SHOOTS, attrs.namespace, shootName) : undefined;
  if (!shoot || seedNameOfObject(shoot) !== seed) throw newForbiddenMessage(`object does not belong to seed ${seed}`);
}

export class SeedRestriction implements AdmissionPlugin {
  readonly name = PLUGIN_NAME;

  async validate(attrs: AdmissionAttributes, client: InternalClient): Promise<void> {
    if (attrs.subresource !== "" || attrs.operation !== "CREATE") return;
    const seed = seedNameOfUser(attrs.user);
    if (seed === undefined) return;
    if (attrs.resource.group === GROUP && attrs.resource.plural === RESOURCE_BASTIONS) admitBastion(seed, attrs.operation, attrs.object);
    if (attrs.resource.group === "" && attrs.resource.plural === "secrets") await admitSecret(seed, attrs, client);
  }
}
