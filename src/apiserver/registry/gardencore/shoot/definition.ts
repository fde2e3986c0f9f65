// core.gardener.cloud/v1beta1 Shoot (namespaced, spec/bastion.md §3.2). Field selector
// spec.seedName ("" when unscheduled); printed as NAME SEED HIBERNATED AGE.
import { nameIsDNSLabel } from "../../../../apimachinery/validation/names.ts";
import { GROUP, VERSION, type Shoot } from "../../../../apis/gardencore/v1beta1/types.ts";
import type { KubeObject } from "../../../../apis/meta/v1/types.ts";
import { isHibernated, seedNameOf } from "../../../../api/gardencore/shoot.ts";
import { validateShoot } from "../../../../api/gardencore/validation/shoot.ts";
import { ageCell, ageColumn, column } from "../../core/printers.ts";
import type { ResourceDefinition, Strategy, TableConvertor } from "../../types.ts";
import { shootSchema } from "./schema.ts";

export const SHOOTS = { group: GROUP, resource: "shoots" } as const;

const strategy: Strategy<Shoot> = {
  // Shoot names become parts of DNS names and namespaces: DNS-1123 labels.
  validate: (_ctx, shoot) => validateShoot(shoot),
  validateUpdate: (_ctx, shoot) => validateShoot(shoot),
  validateStatusUpdate: () => [],
};

export const shootTable: TableConvertor = {
  columns: [
    column("Seed", "string", "The seed running the shoot's control plane."),
    column("Hibernated", "boolean", "Whether the shoot is hibernated."),
    ageColumn(),
  ],
  cells: (o: KubeObject, now: Date) => [seedNameOf(o) || "<none>", isHibernated(o), ageCell(o, now)],
};

export const shootDefinition: ResourceDefinition = {
  group: GROUP,
  version: VERSION,
  kind: "Shoot",
  listKind: "ShootList",
  plural: "shoots",
  singular: "shoot",
  namespaced: true,
  schema: shootSchema,
  hasStatus: true,
  strategy,
  table: shootTable,
  fieldSelectors: { "spec.seedName": (o) => seedNameOf(o) },
  strategicMergePatch: true,
  // Names become parts of DNS names, namespaces and host names.
  nameValidator: nameIsDNSLabel,
};
