// The project's `dashboard-webterminal` ServiceAccount, the target credential of a member's garden
// terminal (docs/dashboard.md#host-and-target-selection): before such a Terminal is created, as the
// user, it exists and is a member of the project with roles `admin` and `serviceaccountmanager`, so
// the terminal-controller-manager may, with its token, create the access ServiceAccount in the project
// namespace and make it a project member. Gardener's dashboard asks the user to add that member in a
// dialog; this dashboard does it on the user's behalf, with the user's own rights: creating the
// ServiceAccount needs `serviceaccountmanager`, changing the Project's ServiceAccount members `admin`
// (the per-project ClusterRole's `patch`). What the user may not do is left undone: the Terminal's
// create then meets the garden's webhook, which refuses with its own message. The membership goes
// again with the last Terminal using the ServiceAccount (the ServiceAccount controller).
import { type ServiceAccountKey, isServiceAccountMember, memberRoles } from "../../api/gardencore/members.ts";
import { PROJECT_ROLE_ADMIN, PROJECT_ROLE_SERVICEACCOUNTMANAGER, type Project, type ProjectMember } from "../../apis/gardencore/v1beta1/types.ts";
import { StatusError, isForbidden, unlessNotFound } from "../../apimachinery/errors.ts";
import { ServiceAccounts } from "../../client/builtins.ts";
import type { Client } from "../../client/client.ts";
import { Projects } from "../../client/garden.ts";
import { retryOnConflict } from "../../client/helpers.ts";
import type { Clock } from "../../utils/clock.ts";
import { waitFor } from "./wait.ts";

/** The roles the ServiceAccount needs, as Gardener's dashboard checks them. */
export const WEBTERMINAL_ROLES = [PROJECT_ROLE_ADMIN, PROJECT_ROLE_SERVICEACCOUNTMANAGER];
/** How long a ServiceAccount still being deleted (the last Terminal just closed) is waited for. */
export const DELETION_WAIT_MS = 15_000;

/** The ServiceAccount exists and is not being deleted: one that is, is waited for, then created again. */
async function ensureServiceAccount(c: Client, sa: ServiceAccountKey, clock: Clock): Promise<void> {
  const current = await unlessNotFound(c.get(ServiceAccounts, sa));
  if (current?.metadata.deletionTimestamp) {
    await waitFor(c, ServiceAccounts, sa, (type, obj) => (type === "DELETED" || !obj.metadata.deletionTimestamp ? { done: true } : { reason: "" }), {
      atMs: clock.nowMs() + DELETION_WAIT_MS,
      clock,
      timeout: () => new StatusError(409, "Conflict", "Can't create terminal for ServiceAccount that is marked for deletion"),
    });
  } else if (current) return;
  await c.create(ServiceAccounts, { metadata: { ...sa } }).catch((err: unknown) => (err instanceof StatusError && err.code === 409 ? undefined : Promise.reject(err)));
}

/** The members with the ServiceAccount holding every role it needs, or undefined when it does already. */
export function withWebterminalMember(members: ProjectMember[], sa: ServiceAccountKey): ProjectMember[] | undefined {
  const current = members.find((m) => isServiceAccountMember(m, sa));
  const have = current ? memberRoles(current) : [];
  const missing = WEBTERMINAL_ROLES.filter((r) => !have.includes(r));
  if (missing.length === 0) return undefined;
  const [role, ...roles] = [...have, ...missing];
  const entry: ProjectMember = { apiGroup: "", kind: "ServiceAccount", name: sa.name, namespace: sa.namespace, role, ...(roles.length ? { roles } : {}) };
  return current ? members.map((m) => (m === current ? entry : m)) : [...members, entry];
}

async function ensureMember(c: Client, projectName: string, sa: ServiceAccountKey): Promise<void> {
  await retryOnConflict(async () => {
    const project: Project = await c.get(Projects, { name: projectName });
    const members = withWebterminalMember(project.spec?.members ?? [], sa);
    if (!members) return;
    await c.patch(Projects, { name: projectName }, { type: "merge", body: { metadata: { resourceVersion: project.metadata.resourceVersion }, spec: { members } } });
  });
}

/** As the user: the ServiceAccount exists and is a member with its roles; what the user may not do is left to the webhook's refusal. */
export async function ensureWebterminalMember(c: Client, projectName: string, sa: ServiceAccountKey, clock: Clock): Promise<void> {
  try {
    await ensureServiceAccount(c, sa, clock);
    await ensureMember(c, projectName, sa);
  } catch (err) {
    if (!isForbidden(err)) throw err;
  }
}
