// operations.gardener.cloud/v1alpha1 Bastion (docs/bastion.md#the-garden-bastion, docs/bastion.md#d1-gardeners-names): namespaced, status
// subresource, category `all`, no short names; field selectors spec.seedName (empty when unset)
// and spec.shootRef.name.
import { nameIsDNSLabel } from "../../../../apimachinery/validation/names.ts";
import { GROUP, KIND_BASTION, RESOURCE_BASTIONS, VERSION } from "../../../../apis/operations/v1alpha1/types.ts";
import type { KubeObject } from "../../../../apis/meta/v1/types.ts";
import { asRecord, asString } from "../../core/keys.ts";
import type { ResourceDefinition } from "../../types.ts";
import { bastionSchema } from "./schema.ts";
import { type BastionStrategyOptions, bastionStrategy } from "./strategy.ts";
import { bastionTable } from "./table.ts";

export const BASTIONS = { group: GROUP, resource: RESOURCE_BASTIONS } as const;

const specOf = (o: KubeObject) => asRecord(o.spec) ?? {};

export const bastionFieldSelectors: Record<string, (obj: KubeObject) => string> = {
  "spec.seedName": (o) => asString(specOf(o).seedName),
  "spec.shootRef.name": (o) => asString(asRecord(specOf(o).shootRef)?.name),
};

/** The largest Bastion stored (the default for other kinds is etcd's 1.5 MiB). */
export const BASTION_MAX_OBJECT_BYTES = 256 * 1024;

export function bastionDefinition(opts: BastionStrategyOptions): ResourceDefinition {
  return {
    group: GROUP,
    version: VERSION,
    kind: KIND_BASTION,
    listKind: "BastionList",
    plural: RESOURCE_BASTIONS,
    singular: "bastion",
    namespaced: true,
    categories: ["all"],
    schema: bastionSchema,
    hasStatus: true,
    strategy: bastionStrategy(opts),
    table: bastionTable,
    fieldSelectors: bastionFieldSelectors,
    strategicMergePatch: true,
    // Names become parts of DNS names, namespaces and host names.
    nameValidator: nameIsDNSLabel,
    // A key, some hundred ingress CIDRs and a status of host keys and conditions fit many times.
    maxObjectBytes: BASTION_MAX_OBJECT_BYTES,
  };
}
