// core.gardener.cloud/v1beta1 Seed (cluster-scoped). Bastion code uses only its name; the spec
// keeps Gardener's fields it does not model (provider, networks, settings...). Printed as
// Gardener's columns: NAME STATUS LAST OPERATION PROVIDER REGION AGE VERSION K8S VERSION, STATUS
// from the gardenlet's conditions (GardenletReady, ExtensionsReady, ...).
import {
  GROUP,
  SEED_CONDITION_BACKUP_BUCKETS_READY,
  SEED_CONDITION_EXTENSIONS_READY,
  SEED_CONDITION_GARDENLET_READY,
  SEED_CONDITION_SYSTEM_COMPONENTS_HEALTHY,
  VERSION,
} from "../../../../apis/gardencore/v1beta1/types.ts";
import type { KubeObject } from "../../../../apis/meta/v1/types.ts";
import { DEFAULT_VPN_RANGE, validateSeedVpn } from "../../../../api/gardencore/validation/networks.ts";
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

type Cond = { status?: unknown } | undefined;

/**
 * Gardener's STATUS column: Unknown while GardenletReady is Unknown; NotReady unless GardenletReady
 * is True, ExtensionsReady is True (or Progressing), and BackupBucketsReady and
 * SeedSystemComponentsHealthy, where present, are True; Ready otherwise.
 */
export function seedStatus(seed: KubeObject): string {
  const conds = asArray(asRecord(seed.status)?.conditions).map((c) => asRecord(c) ?? {});
  const get = (type: string): Cond => conds.find((c) => c.type === type);
  const gardenlet = get(SEED_CONDITION_GARDENLET_READY);
  const backup = get(SEED_CONDITION_BACKUP_BUCKETS_READY);
  const extensions = get(SEED_CONDITION_EXTENSIONS_READY);
  const system = get(SEED_CONDITION_SYSTEM_COMPONENTS_HEALTHY);
  if (gardenlet?.status === "Unknown") return "Unknown";
  const notReady =
    gardenlet?.status !== "True" ||
    (backup !== undefined && backup.status !== "True") ||
    extensions === undefined ||
    extensions.status === "False" ||
    extensions.status === "Unknown" ||
    (system !== undefined && (system.status === "False" || system.status === "Unknown"));
  return notReady ? "NotReady" : "Ready";
}

/** Seeds that declare networks get the default transfer network when they name none. */
function defaultSeedVpn(seed: KubeObject): void {
  const networks = asRecord(asRecord(seed.spec)?.networks);
  if (networks && networks.vpn === undefined) networks.vpn = DEFAULT_VPN_RANGE;
}

function text(v: unknown): string | undefined {
  return typeof v === "string" && v !== "" ? v : undefined;
}

export const seedTable: TableConvertor = {
  columns: [
    column("Status", "string", "Status of the seed, from its conditions."),
    column("Last Operation", "string", "The last operation on the seed."),
    column("Provider", "string", "The provider type of the seed."),
    column("Region", "string", "The region of the seed."),
    ageColumn(),
    column("Version", "string", "The Gardener version of the seed's gardenlet."),
    column("K8S Version", "string", "The Kubernetes version of the seed cluster."),
  ],
  cells: (o: KubeObject, now: Date) => {
    const status = asRecord(o.status);
    const provider = asRecord(asRecord(o.spec)?.provider);
    const op = asRecord(status?.lastOperation);
    return [
      seedStatus(o),
      op ? `${String(op.type ?? "")} ${String(op.state ?? "")} (${Number(op.progress ?? 0)}%)` : "<pending>",
      text(provider?.type) ?? "",
      text(provider?.region) ?? "",
      ageCell(o, now),
      text(asRecord(status?.gardener)?.version) ?? "<unknown>",
      text(status?.kubernetesVersion) ?? "<unknown>",
    ];
  },
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
  strategy: {
    // spec.networks.vpn, the reversed VPN's transfer network (docs/reversed-vpn.md#network-validation).
    prepareForCreate: (_ctx, seed) => defaultSeedVpn(seed),
    prepareForUpdate: (_ctx, seed) => defaultSeedVpn(seed),
    validate: (_ctx, seed) => validateSeedVpn(asRecord(seed.spec)?.networks),
    validateUpdate: (_ctx, seed, old) => validateSeedVpn(asRecord(seed.spec)?.networks, asRecord(asRecord(old.spec)?.networks) ?? {}),
    validateStatusUpdate: () => [],
  },
  table: seedTable,
  strategicMergePatch: true,
};
