// core/v1 Node: cluster-scoped, with a status subresource (the node agent reports status there).
import type { ResourceDefinition } from "../../types.ts";
import { asRecord } from "../keys.ts";
import { nodeSchema } from "./schema.ts";
import { nodeStrategy } from "./strategy.ts";
import { nodeTable } from "./table.ts";

export const nodeDefinition: ResourceDefinition = {
  group: "",
  version: "v1",
  kind: "Node",
  listKind: "NodeList",
  plural: "nodes",
  singular: "node",
  namespaced: false,
  shortNames: ["no"],
  schema: nodeSchema,
  hasStatus: true,
  strategy: nodeStrategy,
  table: nodeTable,
  fieldSelectors: { "spec.unschedulable": (o) => String(asRecord(o.spec)?.unschedulable === true) },
  strategicMergePatch: true,
  tracksGeneration: false,
};
