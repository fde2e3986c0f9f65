// audit.k8s.io/v1 Policy: which requests are recorded, at which level and stages. The first rule
// that matches a request decides; no match means level None (as kube-apiserver's policy checker).
import { parse as parseYaml } from "yaml";
import type { UserInfo } from "../authentication/types.ts";

export const LEVELS = ["None", "Metadata", "Request", "RequestResponse"] as const;
export type Level = (typeof LEVELS)[number];
export const STAGES = ["RequestReceived", "ResponseStarted", "ResponseComplete", "Panic"] as const;
export type Stage = (typeof STAGES)[number];

export interface GroupResources {
  group?: string;
  /** "pods", "pods/log", "*", "* /status" (without the space), "pods/*". */
  resources?: string[];
  resourceNames?: string[];
}

export interface PolicyRule {
  level: Level;
  users?: string[];
  userGroups?: string[];
  verbs?: string[];
  resources?: GroupResources[];
  /** "" matches cluster-scoped resources. */
  namespaces?: string[];
  /** Exact paths, or prefixes ending in "*". */
  nonResourceURLs?: string[];
  omitStages?: Stage[];
  omitManagedFields?: boolean;
}

export interface Policy {
  rules: PolicyRule[];
  omitStages?: Stage[];
  omitManagedFields?: boolean;
}

/** What the policy is asked about: the authenticated user and the request's attributes. */
export interface AuditAttributes {
  user: UserInfo;
  verb: string;
  resourceRequest: boolean;
  path: string;
  apiGroup?: string;
  resource?: string;
  subresource?: string;
  namespace?: string;
  name?: string;
}

export interface Decision {
  level: Level;
  omitStages: Stage[];
  omitManagedFields: boolean;
}

export class PolicyError extends Error {}

/** Limits of a policy file: it is read once at start, but still not without bounds. */
const MAX_POLICY_BYTES = 1024 * 1024;
const MAX_RULES = 10_000;

const strings = (v: unknown, where: string): string[] | undefined => {
  if (v === undefined || v === null) return undefined;
  if (!Array.isArray(v) || v.some((s) => typeof s !== "string")) throw new PolicyError(`${where}: must be a list of strings`);
  return v as string[];
};

function stages(v: unknown, where: string): Stage[] | undefined {
  const list = strings(v, where);
  for (const s of list ?? []) if (!(STAGES as readonly string[]).includes(s)) throw new PolicyError(`${where}: unknown stage "${s}" (one of ${STAGES.join(", ")})`);
  return list as Stage[] | undefined;
}

function bool(v: unknown, where: string): boolean | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== "boolean") throw new PolicyError(`${where}: must be true or false`);
  return v;
}

function rule(v: unknown, i: number): PolicyRule {
  const where = `rules[${i}]`;
  if (!v || typeof v !== "object" || Array.isArray(v)) throw new PolicyError(`${where}: must be an object`);
  const r = v as Record<string, unknown>;
  if (!(LEVELS as readonly unknown[]).includes(r.level)) throw new PolicyError(`${where}.level: must be one of ${LEVELS.join(", ")}`);
  const resources = r.resources === undefined || r.resources === null ? undefined : r.resources;
  if (resources !== undefined && !Array.isArray(resources)) throw new PolicyError(`${where}.resources: must be a list`);
  const out: PolicyRule = {
    level: r.level as Level,
    users: strings(r.users, `${where}.users`),
    userGroups: strings(r.userGroups, `${where}.userGroups`),
    verbs: strings(r.verbs, `${where}.verbs`),
    namespaces: strings(r.namespaces, `${where}.namespaces`),
    nonResourceURLs: strings(r.nonResourceURLs, `${where}.nonResourceURLs`),
    omitStages: stages(r.omitStages, `${where}.omitStages`),
    omitManagedFields: bool(r.omitManagedFields, `${where}.omitManagedFields`),
    resources: (resources as unknown[] | undefined)?.map((g, j) => {
      if (!g || typeof g !== "object") throw new PolicyError(`${where}.resources[${j}]: must be an object`);
      const gr = g as Record<string, unknown>;
      if (gr.group !== undefined && typeof gr.group !== "string") throw new PolicyError(`${where}.resources[${j}].group: must be a string`);
      return {
        group: gr.group as string | undefined,
        resources: strings(gr.resources, `${where}.resources[${j}].resources`),
        resourceNames: strings(gr.resourceNames, `${where}.resources[${j}].resourceNames`),
      };
    }),
  };
  // As kube's validation: a rule is about resources or about non-resource URLs, not both.
  if (out.nonResourceURLs?.length && (out.resources?.length || out.namespaces?.length)) {
    throw new PolicyError(`${where}: rules cannot apply to both regular resources and non-resource URLs`);
  }
  return out;
}

/** Parses and validates a Policy (YAML or JSON text). */
export function parsePolicy(text: string): Policy {
  if (Buffer.byteLength(text) > MAX_POLICY_BYTES) throw new PolicyError(`policy is larger than ${MAX_POLICY_BYTES} bytes`);
  let doc: unknown;
  try {
    doc = parseYaml(text, { maxAliasCount: 100 });
  } catch (err) {
    throw new PolicyError(`policy is not valid YAML: ${(err as Error).message}`);
  }
  if (!doc || typeof doc !== "object" || Array.isArray(doc)) throw new PolicyError("policy must be an object");
  const d = doc as Record<string, unknown>;
  if (d.apiVersion !== "audit.k8s.io/v1" || d.kind !== "Policy") throw new PolicyError('policy must have apiVersion "audit.k8s.io/v1" and kind "Policy"');
  if (!Array.isArray(d.rules)) throw new PolicyError("policy.rules: must be a list");
  if (d.rules.length > MAX_RULES) throw new PolicyError(`policy.rules: more than ${MAX_RULES} rules`);
  return {
    rules: d.rules.map(rule),
    omitStages: stages(d.omitStages, "omitStages"),
    omitManagedFields: bool(d.omitManagedFields, "omitManagedFields"),
  };
}

function matchesResource(r: PolicyRule, a: AuditAttributes): boolean {
  if (!a.resourceRequest) return false;
  if (r.namespaces?.length && !r.namespaces.includes(a.namespace ?? "")) return false;
  if (!r.resources?.length) return true;
  const resource = a.resource ?? "";
  const sub = a.subresource ?? "";
  const combined = sub ? `${resource}/${sub}` : resource;
  return r.resources.some((gr) => {
    if ((gr.group ?? "") !== (a.apiGroup ?? "")) return false;
    if (gr.resources?.length) {
      const hit = gr.resources.some((res) => res === combined || res === "*" || (sub && (res === `*/${sub}` || res === `${resource}/*`)));
      if (!hit) return false;
    }
    return !gr.resourceNames?.length || gr.resourceNames.includes(a.name ?? "");
  });
}

function matchesPath(r: PolicyRule, a: AuditAttributes): boolean {
  if (a.resourceRequest) return false;
  return (r.nonResourceURLs ?? []).some((u) => u === "*" || u === a.path || (u.endsWith("*") && a.path.startsWith(u.slice(0, -1))));
}

function matches(r: PolicyRule, a: AuditAttributes): boolean {
  if (r.users?.length && !r.users.includes(a.user.username)) return false;
  if (r.userGroups?.length && !r.userGroups.some((g) => a.user.groups.includes(g))) return false;
  if (r.verbs?.length && !r.verbs.includes(a.verb)) return false;
  if (r.namespaces?.length || r.resources?.length) return matchesResource(r, a);
  if (r.nonResourceURLs?.length) return matchesPath(r, a);
  return true;
}

export function evaluate(policy: Policy, a: AuditAttributes): Decision {
  for (const r of policy.rules) {
    if (!matches(r, a)) continue;
    return {
      level: r.level,
      omitStages: [...new Set([...(policy.omitStages ?? []), ...(r.omitStages ?? [])])],
      omitManagedFields: r.omitManagedFields ?? policy.omitManagedFields ?? false,
    };
  }
  return { level: "None", omitStages: [], omitManagedFields: false };
}

export function atLeast(level: Level, min: Level): boolean {
  return LEVELS.indexOf(level) >= LEVELS.indexOf(min);
}
