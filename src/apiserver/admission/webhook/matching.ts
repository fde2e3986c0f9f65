// Which webhooks a request goes to (docs/admission-webhooks.md#matching): rules (operations,
// apiGroups, apiVersions, resources with `*`, `x/*`, `*/sub`, scope), then the object and namespace
// selectors. The webhook configurations themselves never go to webhooks (no lock-out).
import type { RuleWithOperations, Webhook } from "../../../apis/admissionregistration/v1/types.ts";
import type { KubeObject } from "../../../apis/meta/v1/types.ts";
import { matches, selectorFromLabelSelector } from "../../../apimachinery/labels/selector.ts";
import type { AdmissionAttributes } from "../types.ts";

const CONFIG_GROUP = "admissionregistration.k8s.io";

/** Webhook configurations are exempt, as upstream. */
export function isExempt(attrs: AdmissionAttributes): boolean {
  return attrs.resource.group === CONFIG_GROUP && /webhookconfigurations$/.test(attrs.resource.plural);
}

const has = (list: readonly string[] | undefined, v: string) => (list ?? []).some((x) => x === "*" || x === v);

function resourceMatches(patterns: readonly string[] | undefined, resource: string, sub: string): boolean {
  for (const p of patterns ?? []) {
    if (p === "*/*") return true;
    const [res, s] = p.split("/", 2) as [string, string | undefined];
    if (res !== "*" && res !== resource) continue;
    if (s === undefined ? sub === "" : s === "*" || s === sub) return true;
  }
  return false;
}

export function ruleMatches(rule: RuleWithOperations, attrs: AdmissionAttributes): boolean {
  const def = attrs.resource;
  if (!has(rule.operations, attrs.operation)) return false;
  if (!has(rule.apiGroups, def.group)) return false;
  if (!has(rule.apiVersions, def.version)) return false;
  if (!resourceMatches(rule.resources, def.plural, attrs.subresource)) return false;
  const scope = rule.scope ?? "*";
  if (scope === "*") return true;
  // A Namespace is cluster-scoped even though its request carries a namespace (its own name).
  const namespaced = def.namespaced && Boolean(attrs.namespace);
  return scope === "Namespaced" ? namespaced : !namespaced;
}

export function rulesMatch(hook: Webhook, attrs: AdmissionAttributes): boolean {
  return (hook.rules ?? []).some((r) => ruleMatches(r, attrs));
}

/** objectSelector: the new or the old object's labels. */
export function objectSelectorMatches(hook: Webhook, attrs: AdmissionAttributes): boolean {
  const sel = selectorFromLabelSelector(hook.objectSelector ?? {});
  const labelsOf = (o: KubeObject | undefined) => o?.metadata?.labels ?? {};
  return matches(sel, labelsOf(attrs.object)) || (attrs.oldObject !== undefined && matches(sel, labelsOf(attrs.oldObject)));
}

/** Whether the namespaceSelector needs the labels of a namespace (and of which one); undefined: no lookup, it matches or not by itself. */
export function namespaceToLookUp(hook: Webhook, attrs: AdmissionAttributes): string | undefined {
  const sel = hook.namespaceSelector ?? {};
  if (!sel.matchLabels && !sel.matchExpressions?.length) return undefined;
  if (isNamespace(attrs)) return undefined;
  if (!attrs.resource.namespaced || !attrs.namespace) return undefined;
  return attrs.namespace;
}

/** namespaceSelector: the labels of the object's namespace (given), of a Namespace itself, or always for other cluster-scoped objects. */
export function namespaceSelectorMatches(hook: Webhook, attrs: AdmissionAttributes, namespaceLabels: Record<string, string> | undefined): boolean {
  const sel = selectorFromLabelSelector(hook.namespaceSelector ?? {});
  if (isNamespace(attrs)) {
    const labels = (attrs.object ?? attrs.oldObject)?.metadata?.labels ?? {};
    return matches(sel, labels);
  }
  if (!attrs.resource.namespaced || !attrs.namespace) return true;
  return matches(sel, namespaceLabels ?? {});
}

function isNamespace(attrs: AdmissionAttributes): boolean {
  return attrs.resource.group === "" && attrs.resource.plural === "namespaces";
}
