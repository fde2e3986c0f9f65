// Descriptors of the garden kinds the gardenlet reads and writes (seed-side kinds: src/extensions/resources.ts).
import { GROUP as CORE_GROUP, VERSION as CORE_VERSION, type Shoot } from "../apis/gardencore/v1beta1/types.ts";
import { GROUP as OPERATIONS_GROUP, VERSION as OPERATIONS_VERSION, type Bastion } from "../apis/operations/v1alpha1/types.ts";
import { resourceType } from "../client/resource.ts";

export const Bastions = resourceType<Bastion>({ group: OPERATIONS_GROUP, version: OPERATIONS_VERSION, kind: "Bastion", plural: "bastions", namespaced: true });
export const Shoots = resourceType<Shoot>({ group: CORE_GROUP, version: CORE_VERSION, kind: "Shoot", plural: "shoots", namespaced: true });
