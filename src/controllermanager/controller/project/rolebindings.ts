// The RoleBindings a Project's membership implies (docs/bastion.md#project), pure: in the project
// namespace, `gardener.cloud:system:project-member` binds the owner and every member holding
// `admin` or `owner`; `gardener.cloud:system:project-viewer` binds every member holding `viewer`;
// `gardener.cloud:system:project-serviceaccountmanager` binds the owner and every member holding
// `serviceaccountmanager` or `owner`. Each binds the ClusterRole of its own name, is controlled by
// the Project and stays while its list of subjects is empty (as Gardener's).
import { API_VERSION, PROJECT_ROLE_ADMIN, PROJECT_ROLE_OWNER, PROJECT_ROLE_SERVICEACCOUNTMANAGER, PROJECT_ROLE_UAM, PROJECT_ROLE_VIEWER } from "../../../apis/gardencore/v1beta1/types.ts";
import type { Project, ProjectSubject } from "../../../apis/gardencore/v1beta1/types.ts";
import type { RoleBinding, Subject } from "../../../apis/rbac/v1/types.ts";
import { memberRoles } from "../../../api/gardencore/members.ts";

export const PROJECT_MEMBER = "gardener.cloud:system:project-member";
export const PROJECT_VIEWER = "gardener.cloud:system:project-viewer";
export const PROJECT_SERVICEACCOUNTMANAGER = "gardener.cloud:system:project-serviceaccountmanager";
const RBAC_GROUP = "rbac.authorization.k8s.io";

/** The RBAC subject of a project subject (User and Group in the RBAC group, ServiceAccounts in the core group). */
export function rbacSubject(s: ProjectSubject): Subject {
  if (s.kind === "ServiceAccount") return { kind: s.kind, apiGroup: "", name: s.name, namespace: s.namespace ?? "" };
  return { kind: s.kind, apiGroup: s.apiGroup || RBAC_GROUP, name: s.name };
}

function dedupe(subjects: Subject[]): Subject[] {
  const seen = new Set<string>();
  return subjects.filter((s) => {
    const id = `${s.kind}/${s.namespace ?? ""}/${s.name}`;
    if (seen.has(id)) return false;
    seen.add(id);
    return true;
  });
}

/** The owner and every member holding one of `roles`. */
function ownerAndMembersWith(project: Project, roles: string[]): Subject[] {
  const out: Subject[] = [];
  if (project.spec?.owner) out.push(rbacSubject(project.spec.owner));
  for (const m of project.spec?.members ?? []) if (memberRoles(m).some((r) => roles.includes(r))) out.push(rbacSubject(m));
  return dedupe(out);
}

export function memberSubjects(project: Project): Subject[] {
  return ownerAndMembersWith(project, [PROJECT_ROLE_ADMIN, PROJECT_ROLE_OWNER]);
}

export function serviceAccountManagerSubjects(project: Project): Subject[] {
  return ownerAndMembersWith(project, [PROJECT_ROLE_SERVICEACCOUNTMANAGER, PROJECT_ROLE_OWNER]);
}

/** The members holding `role` (not the owner unless it is such a member). */
function membersWith(project: Project, role: string): Subject[] {
  return dedupe((project.spec?.members ?? []).filter((m) => memberRoles(m).includes(role)).map(rbacSubject));
}

export function viewerSubjects(project: Project): Subject[] {
  return membersWith(project, PROJECT_ROLE_VIEWER);
}

export function uamSubjects(project: Project): Subject[] {
  return membersWith(project, PROJECT_ROLE_UAM);
}

/** The owner alone (none without one). */
export function ownerSubjects(project: Project): Subject[] {
  return project.spec?.owner ? [rbacSubject(project.spec.owner)] : [];
}

/** The Project as controller owner of what the project controller writes for it. */
export function projectOwnerReference(project: Project, blockOwnerDeletion = true) {
  return { apiVersion: API_VERSION, kind: "Project", name: project.metadata.name ?? "", uid: project.metadata.uid ?? "", controller: true, blockOwnerDeletion };
}

/** The three desired RoleBindings (namespace from spec.namespace, which must be set). */
export function desiredRoleBindings(project: Project): RoleBinding[] {
  const namespace = project.spec?.namespace ?? "";
  const owner = projectOwnerReference(project);
  const binding = (name: string, subjects: Subject[]): RoleBinding => ({
    apiVersion: `${RBAC_GROUP}/v1`,
    kind: "RoleBinding",
    metadata: { name, namespace, ownerReferences: [owner] },
    roleRef: { apiGroup: RBAC_GROUP, kind: "ClusterRole", name },
    subjects,
  });
  return [binding(PROJECT_MEMBER, memberSubjects(project)), binding(PROJECT_VIEWER, viewerSubjects(project)), binding(PROJECT_SERVICEACCOUNTMANAGER, serviceAccountManagerSubjects(project))];
}
