// rbac.authorization.k8s.io/v1 RoleBinding.
import { validatePathSegmentName } from "../../../../apimachinery/validation/names.ts";
import type { ResourceDefinition } from "../../types.ts";
import { RBAC_GROUP, roleBindingSchema } from "../schemas.ts";
import { roleBindingStrategy } from "../strategy.ts";
import { bindingTable } from "../table.ts";

export const roleBindingDefinition: ResourceDefinition = {
  group: RBAC_GROUP,
  version: "v1",
  kind: "RoleBinding",
  listKind: "RoleBindingList",
  plural: "rolebindings",
  singular: "rolebinding",
  namespaced: true,
  schema: roleBindingSchema,
  hasStatus: false,
  strategy: roleBindingStrategy,
  table: bindingTable,
  strategicMergePatch: true,
  tracksGeneration: false,
  nameValidator: validatePathSegmentName,
};
