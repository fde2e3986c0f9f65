// rbac.authorization.k8s.io/v1 ClusterRole.
import { validatePathSegmentName } from "../../../../apimachinery/validation/names.ts";
import type { ResourceDefinition } from "../../types.ts";
import { RBAC_GROUP, clusterRoleSchema } from "../schemas.ts";
import { clusterRoleStrategy } from "../strategy.ts";
import { roleTable } from "../table.ts";

export const clusterRoleDefinition: ResourceDefinition = {
  group: RBAC_GROUP,
  version: "v1",
  kind: "ClusterRole",
  listKind: "ClusterRoleList",
  plural: "clusterroles",
  singular: "clusterrole",
  namespaced: false,
  schema: clusterRoleSchema,
  hasStatus: false,
  strategy: clusterRoleStrategy,
  table: roleTable,
  strategicMergePatch: true,
  tracksGeneration: false,
  nameValidator: validatePathSegmentName,
};
