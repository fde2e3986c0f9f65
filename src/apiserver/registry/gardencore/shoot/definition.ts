// core.gardener.cloud/v1beta1 Shoot (namespaced, docs/bastion.md#shoot). Field selector
// spec.seedName ("" when unscheduled); printed as NAME SEED HIBERNATED AGE.
import { nameIsDNSLabel } from "../../../../apimachinery/validation/names.ts";
import { GROUP, VERSION, type Shoot } from "../../../../apis/gardencore/v1beta1/types.ts";
import type { KubeObject } from "../../../../apis/meta/v1/types.ts";
import { isHibernated, seedNameOf } from "../../../../api/gardencore/shoot.ts";
import { validateShoot, validateShootOperations } from "../../../../api/gardencore/validation/shoot.ts";
import { DEFAULT_CREDENTIALS_ROTATION_INTERVAL_MS } from "../../../../api/gardencore/rotation.ts";
import { ageCell, ageColumn, column } from "../../core/printers.ts";
import type { ResourceDefinition, Strategy, TableConvertor } from "../../types.ts";
import { shootSchema } from "./schema.ts";
import { applyShootDefaults, normaliseOperation, rotationWarnings } from "./strategy.ts";

export const SHOOTS = { group: GROUP, resource: "shoots" } as const;

export interface ShootStrategyOptions {
  /** `--shoot-credentials-rotation-interval` (default 90d): older unrotated key pairs get a warning. */
  credentialsRotationIntervalMs?: number;
  /** Default Math.random (the default maintenance window's hour). */
  random?: () => number;
}

function shootStrategy(o: ShootStrategyOptions): Strategy<Shoot> {
  const interval = o.credentialsRotationIntervalMs ?? DEFAULT_CREDENTIALS_ROTATION_INTERVAL_MS;
  return {
    prepareForCreate: (_ctx, shoot) => {
      applyShootDefaults(shoot, undefined, o.random);
      normaliseOperation(shoot);
    },
    prepareForUpdate: (_ctx, shoot, old) => {
      applyShootDefaults(shoot, old, o.random);
      if (normaliseOperation(shoot, old)) shoot.metadata.generation = (old.metadata.generation ?? 0) + 1;
    },
    // Shoot names become parts of DNS names and namespaces: DNS-1123 labels.
    validate: (_ctx, shoot) => [...validateShoot(shoot), ...validateShootOperations(shoot.metadata)],
    validateUpdate: (_ctx, shoot) => [...validateShoot(shoot), ...validateShootOperations(shoot.metadata)],
    validateStatusUpdate: () => [],
    warningsOnCreate: (ctx, shoot) => rotationWarnings(shoot, ctx.clock.nowMs(), interval),
    warningsOnUpdate: (ctx, shoot) => rotationWarnings(shoot, ctx.clock.nowMs(), interval),
  };
}

export const shootTable: TableConvertor = {
  columns: [
    column("Seed", "string", "The seed running the shoot's control plane."),
    column("Hibernated", "boolean", "Whether the shoot is hibernated."),
    ageColumn(),
  ],
  cells: (o: KubeObject, now: Date) => [seedNameOf(o) || "<none>", isHibernated(o), ageCell(o, now)],
};

/** The Shoot kind with the garden API server's options. */
export function shootDefinitionWith(o: ShootStrategyOptions = {}): ResourceDefinition {
  return { ...shootDefinition, strategy: shootStrategy(o) };
}

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
  strategy: shootStrategy({}),
  table: shootTable,
  fieldSelectors: { "spec.seedName": (o) => seedNameOf(o) },
  strategicMergePatch: true,
  // Names become parts of DNS names, namespaces and host names.
  nameValidator: nameIsDNSLabel,
};
