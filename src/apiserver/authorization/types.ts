// Authorization attributes and the authorizer contract (RBAC, and a slot for further
// authorizers such as the seed authorizer).
import type { UserInfo } from "../authentication/types.ts";

export interface AuthorizationAttributes {
  user: UserInfo;
  verb: string;
  resourceRequest: boolean;
  /** Resource requests */
  apiGroup?: string;
  apiVersion?: string;
  resource?: string;
  subresource?: string;
  namespace?: string;
  name?: string;
  /** The raw `fieldSelector` of a list or watch: some authorizers grant by selector (the seed authorizer). */
  fieldSelector?: string;
  /** Non-resource requests */
  path?: string;
}

export type Decision = "allow" | "deny" | "noOpinion";

export interface AuthorizationResult {
  decision: Decision;
  reason: string;
}

export interface Authorizer {
  authorize(attrs: AuthorizationAttributes): Promise<AuthorizationResult>;
}

/** What a user may do in a namespace (SelfSubjectRulesReview), as authorization.k8s.io/v1 lists it. */
export interface ResourceRuleInfo {
  verbs: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
}

export interface NonResourceRuleInfo {
  verbs: string[];
  nonResourceURLs?: string[];
}

export interface RulesResult {
  resourceRules: ResourceRuleInfo[];
  nonResourceRules: NonResourceRuleInfo[];
  /** True when an authorizer could not list its rules (the lists are then a subset). */
  incomplete: boolean;
  evaluationError?: string;
}

export interface RuleResolver {
  rulesFor(user: UserInfo, namespace: string): Promise<RulesResult>;
}

/** Asks each authorizer in order; the first allow or deny wins. */
export class UnionAuthorizer implements Authorizer {
  constructor(private readonly authorizers: Authorizer[]) {}
  async authorize(attrs: AuthorizationAttributes): Promise<AuthorizationResult> {
    const reasons: string[] = [];
    for (const a of this.authorizers) {
      const r = await a.authorize(attrs);
      if (r.decision !== "noOpinion") return r;
      if (r.reason) reasons.push(r.reason);
    }
    return { decision: "noOpinion", reason: reasons.join("; ") };
  }

  /** The concatenated rules of the authorizers that can list them (those without rulesFor are skipped). */
  async rulesFor(user: UserInfo, namespace: string): Promise<RulesResult> {
    const out: RulesResult = { resourceRules: [], nonResourceRules: [], incomplete: false };
    const errors: string[] = [];
    for (const a of this.authorizers) {
      const resolver = a as Partial<RuleResolver>;
      if (typeof resolver.rulesFor !== "function") continue;
      const r = await resolver.rulesFor(user, namespace);
      out.resourceRules.push(...r.resourceRules);
      out.nonResourceRules.push(...r.nonResourceRules);
      if (r.incomplete) out.incomplete = true;
      if (r.evaluationError) errors.push(r.evaluationError);
    }
    if (errors.length > 0) out.evaluationError = errors.join("; ");
    return out;
  }
}
