// rbac.authorization.k8s.io/v1 Role.
import { validatePathSegmentName } from "../../../../apimachinery/validation/names.ts";
import type { ResourceDefinition } from "../../types.ts";
import { RBAC_GROUP, roleSchema } from "../schemas.ts";
import { roleStrategy } from "../strategy.ts";
import { roleTable } from "../table.ts";

export const roleDefinition: ResourceDefinition = {
  group: RBAC_GROUP,
  version: "v1",
  kind: "Role",
  listKind: "RoleList",
  plural: "roles",
  singular: "role",
  namespaced: true,
  schema: roleSchema,
  hasStatus: false,
  strategy: roleStrategy,
  table: roleTable,
  strategicMergePatch: true,
  tracksGeneration: false,
  nameValidator: validatePathSegmentName,
};
