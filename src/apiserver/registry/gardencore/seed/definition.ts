// core.gardener.cloud/v1beta1 Seed (cluster-scoped). Bastion code uses only its name; the spec
// keeps Gardener's fields it does not model (provider, networks, settings...). Printed as
// NAME STATUS AGE, STATUS from the gardenlet's GardenletReady condition.
import { GROUP, SEED_CONDITION_GARDENLET_READY, VERSION } from "../../../../apis/gardencore/v1beta1/types.ts";
import type { KubeObject } from "../../../../apis/meta/v1/types.ts";
import { int64, mergeList, obj, str, stringArray } from "../../../schema/builders.ts";
import { kindSchema } from "../../../schema/objectmeta.ts";
import { asArray, asRecord } from "../../core/keys.ts";
import { ageCell, ageColumn, column } from "../../core/printers.ts";
import { gardenConditionSchema } from "../schemas.ts";
import type { ResourceDefinition, TableConvertor } from "../../types.ts";

export const SEEDS = { group: GROUP, resource: "seeds" } as const;

export const seedSchema = kindSchema({
  description: "Seed represents an installation request for an external controller.",
  properties: {
    spec: {
      ...obj(
        {
          provider: obj(
            { type: str("Type is the name of the provider."), region: str("Region is a name of a region."), zones: stringArray("Zones is the list of availability zones the seed cluster is deployed to.") },
            "Provider defines the provider type and region for this Seed cluster.",
          ),
        },
        "Spec contains the specification of the Seed.",
      ),
      "x-kubernetes-preserve-unknown-fields": true,
    },
    status: {
      ...obj(
        {
          conditions: mergeList(gardenConditionSchema, "type", "Conditions represents the latest available observations of a Seed's current state."),
          observedGeneration: int64("ObservedGeneration is the most recent generation observed for this Seed."),
        },
        "Status contains the status of the Seed.",
      ),
      "x-kubernetes-preserve-unknown-fields": true,
    },
  },
});

/** Ready / NotReady from GardenletReady; Unknown while the gardenlet has not reported. */
export function seedStatus(seed: KubeObject): string {
  const cond = asArray(asRecord(seed.status)?.conditions)
    .map((c) => asRecord(c) ?? {})
    .find((c) => c.type === SEED_CONDITION_GARDENLET_READY);
  if (!cond) return "Unknown";
  return cond.status === "True" ? "Ready" : cond.status === "False" ? "NotReady" : "Unknown";
}

export const seedTable: TableConvertor = {
  columns: [column("Status", "string", "Whether the seed's gardenlet reports ready."), ageColumn()],
  cells: (o: KubeObject, now: Date) => [seedStatus(o), ageCell(o, now)],
};

export const seedDefinition: ResourceDefinition = {
  group: GROUP,
  version: VERSION,
  kind: "Seed",
  listKind: "SeedList",
  plural: "seeds",
  singular: "seed",
  namespaced: false,
  schema: seedSchema,
  hasStatus: true,
  strategy: { validateStatusUpdate: () => [] },
  table: seedTable,
  strategicMergePatch: true,
};
