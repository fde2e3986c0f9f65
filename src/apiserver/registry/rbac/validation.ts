// RBAC validation (pkg/apis/rbac/validation): names are path segments (so "system:masters" is
// fine), rules need verbs and either resources or non-resource URLs, bindings reference a Role
// or ClusterRole of this group, and roleRef never changes. Presence and types of required
// fields are the schema's job; these checks cover what a schema cannot say.
import type { ClusterRole, ClusterRoleBinding, PolicyRule, Role, RoleBinding, Subject } from "../../../apis/rbac/v1/types.ts";
import { type FieldError, invalid, notSupported, required } from "../../../apimachinery/field/errors.ts";
import { isDNS1123Subdomain, isQualifiedName, isValidLabelValue, isValidPathSegmentName } from "../../../apimachinery/names/validation.ts";
import { asArray, asRecord, asString } from "../core/keys.ts";
import { RBAC_GROUP } from "./schemas.ts";

export function validateRBACName(name: string | undefined, path = "metadata.name"): FieldError[] {
  return name ? isValidPathSegmentName(name).map((msg) => invalid(path, name, msg)) : [];
}

export function validatePolicyRule(rule: Partial<PolicyRule>, namespaced: boolean, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const len = (v: unknown) => asArray(v).length;
  if (Array.isArray(rule.verbs) && rule.verbs.length === 0) errs.push(required(`${path}.verbs`, "verbs must contain at least one value"));
  if (len(rule.nonResourceURLs) > 0) {
    if (namespaced) errs.push(invalid(`${path}.nonResourceURLs`, rule.nonResourceURLs, "namespaced rules cannot apply to non-resource URLs"));
    if (len(rule.apiGroups) > 0 || len(rule.resources) > 0 || len(rule.resourceNames) > 0) {
      errs.push(invalid(`${path}.nonResourceURLs`, rule.nonResourceURLs, "rules cannot apply to both regular resources and non-resource URLs"));
    }
    return errs;
  }
  if (len(rule.apiGroups) === 0) errs.push(required(`${path}.apiGroups`, "resource rules must supply at least one api group"));
  if (len(rule.resources) === 0) errs.push(required(`${path}.resources`, "resource rules must supply at least one resource"));
  return errs;
}

function validateRules(rules: unknown, namespaced: boolean): FieldError[] {
  return asArray(rules).flatMap((r, i) => {
    const rule = asRecord(r);
    return rule ? validatePolicyRule(rule as Partial<PolicyRule>, namespaced, `rules[${i}]`) : [];
  });
}

export function validateRole(role: Role): FieldError[] {
  return [...validateRBACName(role.metadata.name), ...validateRules(role.rules, true)];
}

function validateLabelSelector(sel: Record<string, unknown>, path: string): FieldError[] {
  const errs: FieldError[] = [];
  for (const [k, v] of Object.entries(asRecord(sel.matchLabels) ?? {})) {
    for (const msg of isQualifiedName(k)) errs.push(invalid(`${path}.matchLabels`, k, msg));
    if (typeof v === "string") for (const msg of isValidLabelValue(v)) errs.push(invalid(`${path}.matchLabels`, v, msg));
  }
  asArray(sel.matchExpressions).forEach((e, i) => {
    const expr = asRecord(e);
    if (!expr) return;
    const p = `${path}.matchExpressions[${i}]`;
    const op = asString(expr.operator);
    const values = asArray(expr.values);
    if (op === "In" || op === "NotIn") {
      if (values.length === 0) errs.push(required(`${p}.values`, "must be specified when `operator` is 'In' or 'NotIn'"));
    } else if (op === "Exists" || op === "DoesNotExist") {
      if (values.length > 0) errs.push(invalid(`${p}.values`, values, "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
    } else if (typeof expr.operator === "string") {
      errs.push(invalid(`${p}.operator`, expr.operator, "not a valid selector operator"));
    }
    for (const msg of isQualifiedName(asString(expr.key))) errs.push(invalid(`${p}.key`, expr.key, msg));
  });
  return errs;
}

export function validateClusterRole(role: ClusterRole): FieldError[] {
  const errs = [...validateRBACName(role.metadata.name), ...validateRules(role.rules, false)];
  const agg = asRecord(role.aggregationRule);
  if (agg) {
    const selectors = asArray(agg.clusterRoleSelectors);
    if (selectors.length === 0) {
      errs.push(required("aggregationRule.clusterRoleSelectors", "at least one clusterRoleSelector required if aggregationRule is non-nil"));
    }
    selectors.forEach((s, i) => {
      const sel = asRecord(s);
      if (sel) errs.push(...validateLabelSelector(sel, `aggregationRule.clusterRoleSelectors[${i}]`));
    });
  }
  return errs;
}

export function validateSubject(subject: Partial<Subject>, namespaced: boolean, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const name = asString(subject.name);
  if (typeof subject.name === "string" && !name) errs.push(required(`${path}.name`));
  const apiGroup = asString(subject.apiGroup);
  switch (subject.kind) {
    case "ServiceAccount":
      if (name) for (const msg of isDNS1123Subdomain(name)) errs.push(invalid(`${path}.name`, name, msg));
      if (apiGroup) errs.push(notSupported(`${path}.apiGroup`, apiGroup, [""]));
      if (!namespaced && !asString(subject.namespace)) errs.push(required(`${path}.namespace`));
      break;
    case "User":
    case "Group":
      if (apiGroup !== RBAC_GROUP) errs.push(notSupported(`${path}.apiGroup`, apiGroup, [RBAC_GROUP]));
      break;
    default:
      if (typeof subject.kind === "string") errs.push(notSupported(`${path}.kind`, subject.kind, ["ServiceAccount", "User", "Group"]));
  }
  return errs;
}

function validateBinding(binding: RoleBinding | ClusterRoleBinding, namespaced: boolean): FieldError[] {
  const errs = validateRBACName(binding.metadata.name);
  const ref = asRecord(binding.roleRef);
  if (ref) {
    if (typeof ref.apiGroup === "string" && ref.apiGroup !== RBAC_GROUP) errs.push(notSupported("roleRef.apiGroup", ref.apiGroup, [RBAC_GROUP]));
    const kinds = namespaced ? ["Role", "ClusterRole"] : ["ClusterRole"];
    if (typeof ref.kind === "string" && !kinds.includes(ref.kind)) errs.push(notSupported("roleRef.kind", ref.kind, kinds));
    if (typeof ref.name === "string") {
      if (!ref.name) errs.push(required("roleRef.name"));
      else errs.push(...validateRBACName(ref.name, "roleRef.name"));
    }
  }
  asArray(binding.subjects).forEach((s, i) => {
    const subject = asRecord(s);
    if (subject) errs.push(...validateSubject(subject as Partial<Subject>, namespaced, `subjects[${i}]`));
  });
  return errs;
}

export const validateRoleBinding = (b: RoleBinding): FieldError[] => validateBinding(b, true);
export const validateClusterRoleBinding = (b: ClusterRoleBinding): FieldError[] => validateBinding(b, false);

/** roleRef is immutable: a binding is deleted and recreated to point elsewhere. */
export function validateRoleRefUnchanged(binding: RoleBinding | ClusterRoleBinding, old: RoleBinding | ClusterRoleBinding): FieldError[] {
  const a = asRecord(binding.roleRef) ?? {};
  const b = asRecord(old.roleRef) ?? {};
  const same = ["apiGroup", "kind", "name"].every((k) => a[k] === b[k]);
  return same ? [] : [invalid("roleRef", binding.roleRef, "cannot change roleRef")];
}
