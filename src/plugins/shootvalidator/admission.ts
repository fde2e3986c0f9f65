// Admission plugin `ShootValidator`, the network part of Gardener's (docs/reversed-vpn.md#network-validation):
// a Shoot's node, pod and service ranges must not overlap each other, and on create with a seed or
// when the seed changes they must not overlap the seed's networks or its VPN transfer network. The
// Seed is read from storage. Failures are 403 Forbidden with the field errors aggregated.
import { GROUP } from "../../apis/gardencore/v1beta1/types.ts";
import type { KubeObject } from "../../apis/meta/v1/types.ts";
import { validateShootAgainstSeed, validateShootNetworksDisjoint } from "../../api/gardencore/validation/networks.ts";
import { newForbidden } from "../../apimachinery/errors.ts";
import { formatFieldErrors } from "../../apimachinery/field/errors.ts";
import type { AdmissionAttributes, AdmissionPlugin } from "../../apiserver/admission/types.ts";
import type { InternalClient } from "../../apiserver/registry/client.ts";
import { recordOrEmpty } from "../../utils/guards.ts";

export const PLUGIN_NAME = "ShootValidator";
const SHOOTS = { group: GROUP, resource: "shoots" };
const SEEDS = { group: GROUP, resource: "seeds" };

const seedNameOf = (o: KubeObject | undefined): string | undefined => {
  const name = recordOrEmpty(o?.spec).seedName;
  return typeof name === "string" && name !== "" ? name : undefined;
};

export class ShootValidator implements AdmissionPlugin {
  readonly name = PLUGIN_NAME;

  async validate(attrs: AdmissionAttributes, client: InternalClient): Promise<void> {
    if (attrs.resource.group !== GROUP || attrs.resource.plural !== "shoots" || attrs.subresource !== "") return;
    if (attrs.operation !== "CREATE" && attrs.operation !== "UPDATE") return;
    const shoot = attrs.object;
    if (!shoot) return;
    const spec = recordOrEmpty(shoot.spec);
    const errs = validateShootNetworksDisjoint(spec.networking);
    const seedName = seedNameOf(shoot);
    const seedChanged = attrs.operation === "CREATE" ? seedName !== undefined : seedName !== undefined && seedName !== seedNameOf(attrs.oldObject);
    if (seedChanged) {
      const seed = await client.get(SEEDS, undefined, seedName!);
      if (seed) errs.push(...validateShootAgainstSeed(spec.networking, recordOrEmpty(seed.spec).networks));
    }
    if (errs.length > 0) throw newForbidden(SHOOTS, attrs.name, formatFieldErrors(errs));
  }
}
