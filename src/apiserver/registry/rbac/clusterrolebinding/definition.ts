// rbac.authorization.k8s.io/v1 ClusterRoleBinding.
import { validatePathSegmentName } from "../../../../apimachinery/validation/names.ts";
import type { ResourceDefinition } from "../../types.ts";
import { RBAC_GROUP, clusterRoleBindingSchema } from "../schemas.ts";
import { clusterRoleBindingStrategy } from "../strategy.ts";
import { bindingTable } from "../table.ts";

export const clusterRoleBindingDefinition: ResourceDefinition = {
  group: RBAC_GROUP,
  version: "v1",
  kind: "ClusterRoleBinding",
  listKind: "ClusterRoleBindingList",
  plural: "clusterrolebindings",
  singular: "clusterrolebinding",
  namespaced: false,
  schema: clusterRoleBindingSchema,
  hasStatus: false,
  strategy: clusterRoleBindingStrategy,
  table: bindingTable,
  strategicMergePatch: true,
  tracksGeneration: false,
  nameValidator: validatePathSegmentName,
};
