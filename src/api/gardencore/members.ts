// Project members, pure: which entry is a given ServiceAccount (upstream terminal-controller-manager's
// IsMember), and a member's roles (`role` first, then `roles`).
import type { ProjectMember } from "../../apis/gardencore/v1beta1/types.ts";

export interface ServiceAccountKey {
  namespace: string;
  name: string;
}

/** Whether the project member is this ServiceAccount: kind ServiceAccount of the core group, or the user `system:serviceaccount:<ns>:<name>`. */
export function isServiceAccountMember(m: { apiGroup?: string; kind?: string; name?: string; namespace?: string }, sa: ServiceAccountKey): boolean {
  if (m.kind === "ServiceAccount") return !m.apiGroup && m.name === sa.name && (m.namespace ?? "") === sa.namespace;
  return m.kind === "User" && m.name === `system:serviceaccount:${sa.namespace}:${sa.name}`;
}

export function memberRoles(m: ProjectMember): string[] {
  return [...(m.role ? [m.role] : []), ...(m.roles ?? [])];
}
