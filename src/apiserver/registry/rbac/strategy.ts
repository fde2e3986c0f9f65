// Strategies of the four RBAC kinds. Bindings get the v1 defaults on every write: roleRef.apiGroup
// and the apiGroup of User and Group subjects default to rbac.authorization.k8s.io.
import type { ClusterRole, ClusterRoleBinding, Role, RoleBinding } from "../../../apis/rbac/v1/types.ts";
import type { Strategy } from "../types.ts";
import { asArray, asRecord } from "../core/keys.ts";
import { RBAC_GROUP } from "./schemas.ts";
import {
  validateClusterRole,
  validateClusterRoleBinding,
  validateRole,
  validateRoleBinding,
  validateRoleRefUnchanged,
} from "./validation.ts";

export function defaultBinding(binding: RoleBinding | ClusterRoleBinding): void {
  const ref = asRecord(binding.roleRef);
  if (ref && !ref.apiGroup) ref.apiGroup = RBAC_GROUP;
  for (const s of asArray(binding.subjects)) {
    const subject = asRecord(s);
    if (subject && !subject.apiGroup && (subject.kind === "User" || subject.kind === "Group")) subject.apiGroup = RBAC_GROUP;
  }
}

export const roleStrategy: Strategy<Role> = {
  validate: (_ctx, role) => validateRole(role),
  validateUpdate: (_ctx, role) => validateRole(role),
};

export const clusterRoleStrategy: Strategy<ClusterRole> = {
  validate: (_ctx, role) => validateClusterRole(role),
  validateUpdate: (_ctx, role) => validateClusterRole(role),
};

export const roleBindingStrategy: Strategy<RoleBinding> = {
  prepareForCreate: (_ctx, b) => defaultBinding(b),
  prepareForUpdate: (_ctx, b) => defaultBinding(b),
  validate: (_ctx, b) => validateRoleBinding(b),
  validateUpdate: (_ctx, b, old) => [...validateRoleBinding(b), ...validateRoleRefUnchanged(b, old)],
};

export const clusterRoleBindingStrategy: Strategy<ClusterRoleBinding> = {
  prepareForCreate: (_ctx, b) => defaultBinding(b),
  prepareForUpdate: (_ctx, b) => defaultBinding(b),
  validate: (_ctx, b) => validateClusterRoleBinding(b),
  validateUpdate: (_ctx, b, old) => [...validateClusterRoleBinding(b), ...validateRoleRefUnchanged(b, old)],
};
