// RBAC printers: roles print CREATED AT; bindings print ROLE and AGE, and with -o wide the
// USERS, GROUPS and SERVICEACCOUNTS they bind (pkg/printers/internalversion).
import type { KubeObject } from "../../../apis/meta/v1/types.ts";
import type { TableConvertor } from "../types.ts";
import { asArray, asRecord, asString } from "../core/keys.ts";
import { CREATION_TIMESTAMP_DESCRIPTION, ageCell, ageColumn, column, createdAtCell } from "../core/printers.ts";

export const roleTable: TableConvertor = {
  columns: [column("Created At", "string", CREATION_TIMESTAMP_DESCRIPTION)],
  cells: (obj: KubeObject) => [createdAtCell(obj)],
};

/** Users, groups and service accounts ("namespace/name") of a binding's subjects. */
export function subjectsStrings(subjects: unknown): { users: string[]; groups: string[]; serviceAccounts: string[] } {
  const out = { users: [] as string[], groups: [] as string[], serviceAccounts: [] as string[] };
  for (const s of asArray(subjects)) {
    const subject = asRecord(s);
    if (!subject) continue;
    const name = asString(subject.name);
    if (subject.kind === "User") out.users.push(name);
    else if (subject.kind === "Group") out.groups.push(name);
    else if (subject.kind === "ServiceAccount") out.serviceAccounts.push(`${asString(subject.namespace)}/${name}`);
  }
  return out;
}

export const bindingTable: TableConvertor = {
  columns: [
    column("Role", "string", "RoleRef references the Role or ClusterRole this binding grants."),
    ageColumn(),
    column("Users", "string", "Users in the binding", { priority: 1 }),
    column("Groups", "string", "Groups in the binding", { priority: 1 }),
    column("ServiceAccounts", "string", "ServiceAccounts in the binding", { priority: 1 }),
  ],
  cells(obj: KubeObject, now: Date): unknown[] {
    const ref = asRecord(obj.roleRef) ?? {};
    const { users, groups, serviceAccounts } = subjectsStrings(obj.subjects);
    return [`${asString(ref.kind)}/${asString(ref.name)}`, ageCell(obj, now), users.join(", "), groups.join(", "), serviceAccounts.join(", ")];
  },
};
