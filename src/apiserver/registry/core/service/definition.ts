// core/v1 Service: namespaced, with status; cluster IPs come from ServiceIPAllocation admission.
import type { ResourceDefinition, Strategy } from "../../types.ts";
import { serviceSchema } from "./schema.ts";
import { serviceStrategy } from "./strategy.ts";
import { serviceTable } from "./table.ts";

export const serviceDefinition: ResourceDefinition = {
  group: "",
  version: "v1",
  kind: "Service",
  listKind: "ServiceList",
  plural: "services",
  singular: "service",
  namespaced: true,
  shortNames: ["svc"],
  categories: ["all"],
  schema: serviceSchema,
  hasStatus: true,
  strategy: serviceStrategy as Strategy,
  table: serviceTable,
  strategicMergePatch: true,
  tracksGeneration: false,
};
