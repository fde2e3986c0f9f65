// Admission plugin `CustomVerbAuthorizer`, as Gardener's for Projects: a write that changes the human
// users or groups among a Project's members (anyone but ServiceAccounts: kind ServiceAccount, or a
// User named system:serviceaccount:<ns>:<name>), or that changes its owner, needs the custom verb
// `manage-members` on that Project, which the per-project ClusterRoles give the owner and `uam`
// members (src/controllermanager/controller/project/clusterroles.ts). So a member with role `admin`,
// who may patch the Project, may add and remove ServiceAccount members (a garden terminal's
// dashboard-webterminal and access ServiceAccounts) but not grant people access. The owner changes
// members and owner without the verb (who the owner is comes from the stored Project); a Project's first
// owner needs none; a member entry that names the owner is not counted. Validating; CREATE and UPDATE of projects.
import { memberRoles } from "../../api/gardencore/members.ts";
import { GROUP, VERB_PROJECT_MANAGE_MEMBERS, type Project, type ProjectMember, type ProjectSubject } from "../../apis/gardencore/v1beta1/types.ts";
import { newForbidden } from "../../apimachinery/errors.ts";
import type { AdmissionAttributes, AdmissionPlugin } from "../../apiserver/admission/types.ts";
import type { UserInfo } from "../../apiserver/authentication/types.ts";
import type { Authorizer } from "../../apiserver/authorization/types.ts";

export const PLUGIN_NAME = "CustomVerbAuthorizer";
const RBAC_GROUP = "rbac.authorization.k8s.io";
const SA_USER_PREFIX = "system:serviceaccount:";

/** A ServiceAccount subject; a group of ServiceAccounts is not one (Gardener's isServiceAccountSubject). */
export function isServiceAccountSubject(s: ProjectSubject): boolean {
  const apiGroup = s.apiGroup ?? "";
  if (s.kind === "ServiceAccount") return apiGroup === "";
  return s.kind === "User" && (apiGroup === RBAC_GROUP || apiGroup === "") && s.name.startsWith(SA_USER_PREFIX);
}

const subjectKey = (s: ProjectSubject): string => `${s.kind}/${s.name}`;

/** The human memberships as `<kind>/<name>` with each role (or none), without the owner's. */
function humanMemberships(members: ProjectMember[], owner: ProjectSubject | undefined): Set<string> {
  const ownerKey = owner && !isServiceAccountSubject(owner) ? subjectKey(owner) : undefined;
  const out = new Set<string>();
  for (const m of members) {
    if (isServiceAccountSubject(m) || subjectKey(m) === ownerKey) continue;
    const roles = memberRoles(m);
    for (const role of roles.length ? roles : [""]) out.add(JSON.stringify([subjectKey(m), role]));
  }
  return out;
}

/** Whether the user is the owner; a Project without owner gets its creator as owner, so anyone counts. */
export function userIsOwner(user: UserInfo, owner: ProjectSubject | undefined): boolean {
  if (!owner) return true;
  switch (owner.kind) {
    case "ServiceAccount":
      return user.username === `${SA_USER_PREFIX}${owner.namespace ?? ""}:${owner.name}`;
    case "User":
      return user.username === owner.name;
    case "Group":
      return (user.groups ?? []).includes(owner.name);
    default:
      return false;
  }
}

const sameSet = (a: Set<string>, b: Set<string>): boolean => a.size === b.size && [...a].every((x) => b.has(x));
const sameSubject = (a: ProjectSubject | undefined, b: ProjectSubject | undefined): boolean => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/**
 * Whether the user owns the Project. On an update that is decided from the stored Project, never from the
 * request (which may name a new owner, the user herself), and a stored Project without owner has none.
 */
function ownsProject(user: UserInfo, old: Project | undefined, now: Project): boolean {
  if (!old) return userIsOwner(user, now.spec?.owner);
  const owner = old.spec?.owner;
  return owner !== undefined && userIsOwner(user, owner);
}

export function mustCheckMembers(old: Project | undefined, now: Project, user: UserInfo): boolean {
  if (ownsProject(user, old, now)) return false;
  const owner = now.spec?.owner;
  return !sameSet(humanMemberships(old?.spec?.members ?? [], owner), humanMemberships(now.spec?.members ?? [], owner));
}

/** A new Project's first owner needs nothing (creating it is for RBAC to allow); any later change of owner does. */
export function mustCheckOwner(old: Project | undefined, now: Project, user: UserInfo): boolean {
  if (!old) return false;
  if (sameSubject(old.spec?.owner, now.spec?.owner)) return false;
  return !ownsProject(user, old, now);
}

export class CustomVerbAuthorizer implements AdmissionPlugin {
  readonly name = PLUGIN_NAME;
  private authorizer?: () => Authorizer;

  setAuthorizer(authorizer: () => Authorizer): void {
    this.authorizer = authorizer;
  }

  async validate(attrs: AdmissionAttributes): Promise<void> {
    if (attrs.resource.group !== GROUP || attrs.resource.plural !== "projects" || attrs.subresource !== "") return;
    if (attrs.operation !== "CREATE" && attrs.operation !== "UPDATE") return;
    const now = attrs.object as Project | undefined;
    if (!now) return;
    const old = attrs.operation === "UPDATE" ? (attrs.oldObject as Project | undefined) : undefined;
    if (mustCheckMembers(old, now, attrs.user)) return this.authorize(attrs, "manage human users or groups in .spec.members");
    if (mustCheckOwner(old, now, attrs.user)) return this.authorize(attrs, "manage owner in .spec.owner");
  }

  private async authorize(attrs: AdmissionAttributes, operation: string): Promise<void> {
    const gr = { group: GROUP, resource: "projects" };
    if (!this.authorizer) throw newForbidden(gr, attrs.name, "not yet ready to handle request");
    const r = await this.authorizer().authorize({ user: attrs.user, verb: VERB_PROJECT_MANAGE_MEMBERS, resourceRequest: true, apiGroup: GROUP, resource: "projects", name: attrs.name });
    if (r.decision !== "allow") throw newForbidden(gr, attrs.name, `user "${attrs.user.username}" is not allowed to ${operation} for "projects"`);
  }
}
