// The access ServiceAccount's project memberships (docs/terminals.md#project-memberships), as upstream's
// terminal-controller-manager keeps them: with honourProjectMemberships, each
// `target.authorization.projectMemberships[]` entry with a project name and roles makes the access
// ServiceAccount a member of that Project (first role in `role`, the others in `roles`; nothing when
// it is a member already), written with the target credential, so the target is the garden. Deletion
// removes the membership; a Project that is gone, or that the target credential may no longer read
// while the controller's own garden client finds it gone, has nothing to remove.
import { type ServiceAccountKey, isServiceAccountMember } from "../../../api/gardencore/members.ts";
import type { Terminal } from "../../../apis/dashboard/v1alpha1/types.ts";
import type { Project, ProjectMember } from "../../../apis/gardencore/v1beta1/types.ts";
import { isForbidden, unlessNotFound } from "../../../apimachinery/errors.ts";
import type { Client } from "../../../client/client.ts";
import { Projects } from "../../../client/garden.ts";
import { retryOnConflict } from "../../../client/helpers.ts";


/** The memberships a Terminal asks for that count: a project name and at least one role. */
export function membershipsOf(t: Terminal): { projectName: string; roles: string[] }[] {
  return (t.spec.target.authorization?.projectMemberships ?? []).filter((m) => m.projectName && Array.isArray(m.roles) && m.roles.length > 0);
}

/** Writes the Project's members guarded by the resourceVersion read; a concurrent change re-reads and tries again. */
async function changeMembers(client: Client, project: Project, change: (members: ProjectMember[]) => ProjectMember[] | undefined, signal?: AbortSignal): Promise<void> {
  let current = project;
  await retryOnConflict(async (attempt) => {
    if (attempt > 0) current = await client.get(Projects, { name: project.metadata.name ?? "" }, { signal });
    const members = change(current.spec?.members ?? []);
    if (!members) return;
    const body = { metadata: { resourceVersion: current.metadata.resourceVersion }, spec: { members } };
    await client.patch(Projects, { name: current.metadata.name ?? "" }, { type: "merge", body }, { signal });
  });
}

/** Adds the ServiceAccount to the Project with the roles, unless it is a member already. */
export async function addMember(target: Client, projectName: string, sa: ServiceAccountKey, roles: string[], signal?: AbortSignal): Promise<void> {
  const project = await target.get(Projects, { name: projectName }, { signal });
  const [role, ...more] = roles;
  const member: ProjectMember = { apiGroup: "", kind: "ServiceAccount", name: sa.name, namespace: sa.namespace, role, ...(more.length ? { roles: more } : {}) };
  await changeMembers(target, project, (members) => (members.some((m) => isServiceAccountMember(m, sa)) ? undefined : [...members, member]), signal);
}

/** Removes the ServiceAccount from the Project's members; a Project that is gone has nothing to remove. */
export async function removeMember(target: Client, garden: Client, projectName: string, sa: ServiceAccountKey, signal?: AbortSignal): Promise<void> {
  let project: Project | undefined;
  try {
    project = await unlessNotFound(target.get(Projects, { name: projectName }, { signal }));
  } catch (err) {
    if (!isForbidden(err)) throw err;
    // The target credential may have lost its access: a Project the controller's own client finds gone is done, else the refusal stands.
    const own = await unlessNotFound(garden.get(Projects, { name: projectName }, { signal })).catch(() => Promise.reject(err));
    if (own) throw err;
    return;
  }
  if (!project) return;
  await leaveProject(target, project, sa, signal);
}

/** Removes the ServiceAccount from the members of the Project as read (re-read and retried on a conflict); whether it was a member. */
export async function leaveProject(client: Client, project: Project, sa: ServiceAccountKey, signal?: AbortSignal): Promise<boolean> {
  let removed = false;
  await changeMembers(client, project, (members) => {
    removed = members.some((m) => isServiceAccountMember(m, sa));
    return removed ? members.filter((m) => !isServiceAccountMember(m, sa)) : undefined;
  }, signal);
  return removed;
}
