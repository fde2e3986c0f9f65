// Project validation (a useful subset of Gardener's pkg/apis/core/validation/project.go): the
// project namespace, the owner and the members with their roles. Pure.
import {
  PROJECT_ROLE_EXTENSION_PREFIX,
  PROJECT_ROLES,
  type Project,
} from "../../../apis/gardencore/v1beta1/types.ts";
import { isDNS1123Label } from "../../../apimachinery/names/validation.ts";
import { type FieldError, Path, duplicate, invalid, notSupported, required } from "../../../apimachinery/field/errors.ts";
import { validateImmutableField } from "../../../apimachinery/validation/objectmeta.ts";
import { recordOrEmpty } from "../../../utils/guards.ts";

const SPEC = Path.root("spec");
const SUBJECT_KINDS = ["User", "Group", "ServiceAccount"];

const text = (v: unknown): string => (typeof v === "string" ? v : "");

function validateSubject(value: unknown, path: Path): FieldError[] {
  const s = recordOrEmpty(value);
  const errs: FieldError[] = [];
  const kind = text(s.kind);
  if (!SUBJECT_KINDS.includes(kind)) errs.push(notSupported(path.child("kind"), kind, SUBJECT_KINDS));
  if (text(s.name) === "") errs.push(required(path.child("name")));
  if (kind === "ServiceAccount" && text(s.namespace) === "") errs.push(required(path.child("namespace")));
  return errs;
}

/** The roles of a member: `role` and `roles` together. */
export function memberRoles(member: unknown): string[] {
  const m = recordOrEmpty(member);
  const roles = text(m.role) ? [text(m.role)] : [];
  if (Array.isArray(m.roles)) for (const r of m.roles) if (typeof r === "string") roles.push(r);
  return roles;
}

function validateRole(role: string, path: Path): FieldError[] {
  if (PROJECT_ROLES.includes(role)) return [];
  if (role.startsWith(PROJECT_ROLE_EXTENSION_PREFIX)) {
    const name = role.slice(PROJECT_ROLE_EXTENSION_PREFIX.length);
    return isDNS1123Label(name).map((msg) => invalid(path, role, `extension role name ${msg}`));
  }
  return [notSupported(path, role, [...PROJECT_ROLES, `${PROJECT_ROLE_EXTENSION_PREFIX}<name>`])];
}

export function validateProject(project: Pick<Project, "spec">): FieldError[] {
  const spec = recordOrEmpty(project.spec);
  const errs: FieldError[] = [];
  const ns = text(spec.namespace);
  if (ns) for (const msg of isDNS1123Label(ns)) errs.push(invalid(SPEC.child("namespace"), ns, msg));
  if (spec.owner !== undefined) errs.push(...validateSubject(spec.owner, SPEC.child("owner")));
  const seen = new Set<string>();
  const members = Array.isArray(spec.members) ? spec.members : [];
  members.forEach((member, i) => {
    const path = SPEC.child("members").index(i);
    errs.push(...validateSubject(member, path));
    const m = recordOrEmpty(member);
    const key = `${text(m.kind)}/${text(m.namespace)}/${text(m.name)}`;
    if (seen.has(key)) errs.push(duplicate(path, text(m.name)));
    seen.add(key);
    if (text(m.role)) errs.push(...validateRole(text(m.role), path.child("role")));
    const roles = Array.isArray(m.roles) ? m.roles : [];
    roles.forEach((r, j) => errs.push(...validateRole(text(r), path.child("roles").index(j))));
  });
  return errs;
}

/** The namespace may be set once (by the user or the project controller), then never changed. */
export function validateProjectUpdate(project: Pick<Project, "spec">, old: Pick<Project, "spec">): FieldError[] {
  const errs: FieldError[] = [];
  const oldNs = text(recordOrEmpty(old.spec).namespace);
  if (oldNs) errs.push(...validateImmutableField(text(recordOrEmpty(project.spec).namespace), oldNs, SPEC.child("namespace")));
  return [...errs, ...validateProject(project)];
}
