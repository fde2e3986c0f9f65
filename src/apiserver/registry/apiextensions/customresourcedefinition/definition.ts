// apiextensions.k8s.io/v1 CustomResourceDefinition: cluster-scoped, with a status subresource.
import type { ResourceDefinition } from "../../types.ts";
import { crdSchema } from "./schema.ts";
import { crdStrategy } from "./strategy.ts";
import { crdTable } from "./table.ts";

export const crdDefinition: ResourceDefinition = {
  group: "apiextensions.k8s.io",
  version: "v1",
  kind: "CustomResourceDefinition",
  listKind: "CustomResourceDefinitionList",
  plural: "customresourcedefinitions",
  singular: "customresourcedefinition",
  namespaced: false,
  shortNames: ["crd", "crds"],
  categories: ["api-extensions"],
  schema: crdSchema,
  hasStatus: true,
  strategy: crdStrategy,
  table: crdTable,
  strategicMergePatch: true,
};
