// RBAC rule and subject matching, exactly as [k8s] pkg/apis/rbac/v1/evaluation_helpers.go and
// plugin/pkg/auth/authorizer/rbac/rbac.go (RuleAllows) and pkg/registry/rbac/validation/rule.go
// (appliesToUser).
import type { LabelSelector } from "../../apis/meta/v1/types.ts";
import type { PolicyRule, Subject } from "../../apis/rbac/v1/types.ts";
import type { UserInfo } from "../authentication/types.ts";
import { makeUsername } from "../serviceaccount/util.ts";
import type { AuthorizationAttributes } from "./types.ts";

export function verbMatches(rule: PolicyRule, verb: string): boolean {
  return rule.verbs.some((v) => v === "*" || v === verb);
}

export function apiGroupMatches(rule: PolicyRule, group: string): boolean {
  return (rule.apiGroups ?? []).some((g) => g === "*" || g === group);
}

/** `*`, the exact `resource[/subresource]`, or `*\/<subresource>` for a request with that subresource. */
export function resourceMatches(rule: PolicyRule, combinedResource: string, subresource: string): boolean {
  for (const r of rule.resources ?? []) {
    if (r === "*" || r === combinedResource) return true;
    if (subresource && r === `*/${subresource}`) return true;
  }
  return false;
}

/** Empty resourceNames allow any name; otherwise the request must name one of them. */
export function resourceNameMatches(rule: PolicyRule, name: string): boolean {
  const names = rule.resourceNames ?? [];
  return names.length === 0 || names.includes(name);
}

/** `*`, the exact path, or a prefix ending in `*`. */
export function nonResourceURLMatches(rule: PolicyRule, path: string): boolean {
  for (const u of rule.nonResourceURLs ?? []) {
    if (u === "*" || u === path) return true;
    if (u.endsWith("*") && path.startsWith(u.replace(/\*+$/, ""))) return true;
  }
  return false;
}

export function ruleAllows(attrs: AuthorizationAttributes, rule: PolicyRule): boolean {
  if (!verbMatches(rule, attrs.verb)) return false;
  if (!attrs.resourceRequest) return nonResourceURLMatches(rule, attrs.path ?? "");
  const sub = attrs.subresource ?? "";
  const combined = sub ? `${attrs.resource ?? ""}/${sub}` : (attrs.resource ?? "");
  return apiGroupMatches(rule, attrs.apiGroup ?? "") && resourceMatches(rule, combined, sub) && resourceNameMatches(rule, attrs.name ?? "");
}

/**
 * Whether a binding subject covers the user. For ServiceAccount subjects without a namespace,
 * `bindingNamespace` (a RoleBinding's namespace) is used; cluster bindings have none.
 */
export function appliesToUser(user: UserInfo, subject: Subject, bindingNamespace: string): boolean {
  switch (subject.kind) {
    case "User":
      return user.username === subject.name;
    case "Group":
      return user.groups.includes(subject.name);
    case "ServiceAccount": {
      const ns = subject.namespace || bindingNamespace;
      return ns !== "" && user.username === makeUsername(ns, subject.name);
    }
    default:
      return false;
  }
}

/** `ServiceAccount "name/ns"` or `User "name"`, as kube's reason strings describe subjects. */
export function describeSubject(subject: Subject, bindingNamespace: string): string {
  if (subject.kind === "ServiceAccount") return `${subject.kind} "${subject.name}/${subject.namespace || bindingNamespace}"`;
  return `${subject.kind} "${subject.name}"`;
}

/** metav1.LabelSelector semantics: empty selects everything; malformed expressions select nothing. */
export function labelSelectorMatches(sel: LabelSelector, labels: Record<string, string> | undefined): boolean {
  const l = labels ?? {};
  for (const [k, v] of Object.entries(sel.matchLabels ?? {})) if (l[k] !== v) return false;
  for (const e of sel.matchExpressions ?? []) {
    const has = Object.prototype.hasOwnProperty.call(l, e.key);
    const values = e.values ?? [];
    switch (e.operator) {
      case "In":
        if (values.length === 0 || !has || !values.includes(l[e.key]!)) return false;
        break;
      case "NotIn":
        if (values.length === 0) return false;
        if (has && values.includes(l[e.key]!)) return false;
        break;
      case "Exists":
        if (values.length > 0 || !has) return false;
        break;
      case "DoesNotExist":
        if (values.length > 0 || has) return false;
        break;
      default:
        return false;
    }
  }
  return true;
}
