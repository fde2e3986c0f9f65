// The per-project ClusterRoles and ClusterRoleBindings of Gardener's project controller
// (docs/bastion.md#project), pure: each names the project and binds the ClusterRole of its own name.
// - `gardener.cloud:system:project:<project>`, the owner: `get` of the project namespace; `get`,
//   `patch`, `manage-members`, `update`, `delete` of the Project;
// - `gardener.cloud:system:project-member:<project>`, the owner and members holding `admin` or `owner`:
//   the namespace's `get`; `get`, `patch`, `update`, `delete` of the Project (no `manage-members`:
//   such members may change the Project's ServiceAccount members, not its human users and groups,
//   which the garden's CustomVerbAuthorizer admission enforces, src/plugins/customverbauthorizer/);
// - `gardener.cloud:system:project-uam:<project>`, members holding `uam`: `get`, `manage-members`,
//   `patch`, `update` of the Project;
// - `gardener.cloud:system:project-viewer:<project>`, members holding `viewer`: `get` of the namespace and the Project.
// All are controlled by the Project (blockOwnerDeletion false), so they go with it, and a binding
// stays while its list of subjects is empty.
import { type Project, VERB_PROJECT_MANAGE_MEMBERS } from "../../../apis/gardencore/v1beta1/types.ts";
import type { ClusterRole, ClusterRoleBinding, PolicyRule, Subject } from "../../../apis/rbac/v1/types.ts";
import { memberSubjects, ownerSubjects, projectOwnerReference, uamSubjects, viewerSubjects } from "./rolebindings.ts";

export const PREFIX_PROJECT = "gardener.cloud:system:project:";
export const PREFIX_PROJECT_MEMBER = "gardener.cloud:system:project-member:";
export const PREFIX_PROJECT_UAM = "gardener.cloud:system:project-uam:";
export const PREFIX_PROJECT_VIEWER = "gardener.cloud:system:project-viewer:";
const RBAC_GROUP = "rbac.authorization.k8s.io";
const CORE_GROUP = "core.gardener.cloud";

export interface ProjectClusterRole {
  role: ClusterRole;
  binding: ClusterRoleBinding;
}

/** The four ClusterRoles with their bindings, in Gardener's order; the Project must have spec.namespace. */
export function desiredClusterRoles(project: Project): ProjectClusterRole[] {
  const name = project.metadata.name ?? "";
  const namespace = project.spec?.namespace ?? "";
  const owner = projectOwnerReference(project, false);
  const getNamespace: PolicyRule = { apiGroups: [""], resources: ["namespaces"], resourceNames: [namespace], verbs: ["get"] };
  const onProject = (verbs: string[]): PolicyRule => ({ apiGroups: [CORE_GROUP], resources: ["projects"], resourceNames: [name], verbs });
  const pair = (roleName: string, subjects: Subject[], rules: PolicyRule[]): ProjectClusterRole => ({
    role: { apiVersion: `${RBAC_GROUP}/v1`, kind: "ClusterRole", metadata: { name: roleName, ownerReferences: [owner] }, rules },
    binding: {
      apiVersion: `${RBAC_GROUP}/v1`,
      kind: "ClusterRoleBinding",
      metadata: { name: roleName, ownerReferences: [owner] },
      roleRef: { apiGroup: RBAC_GROUP, kind: "ClusterRole", name: roleName },
      subjects,
    },
  });
  return [
    pair(PREFIX_PROJECT + name, ownerSubjects(project), [getNamespace, onProject(["get", "patch", VERB_PROJECT_MANAGE_MEMBERS, "update", "delete"])]),
    pair(PREFIX_PROJECT_UAM + name, uamSubjects(project), [onProject(["get", VERB_PROJECT_MANAGE_MEMBERS, "patch", "update"])]),
    pair(PREFIX_PROJECT_MEMBER + name, memberSubjects(project), [getNamespace, onProject(["get", "patch", "update", "delete"])]),
    pair(PREFIX_PROJECT_VIEWER + name, viewerSubjects(project), [getNamespace, onProject(["get"])]),
  ];
}
