// The RBAC authorizer ([k8s] plugin/pkg/auth/authorizer/rbac/rbac.go, pkg/registry/rbac/
// validation/rule.go). start() lists and watches the four RBAC kinds into memory; authorize()
// is then a few map lookups: ClusterRoleBindings of the user's subjects first, then (for
// namespaced requests) RoleBindings in that namespace; the first rule that allows wins.
import type { ClusterRoleBinding, PolicyRule, RoleBinding, RoleRef } from "../../apis/rbac/v1/types.ts";
import type { Clock } from "../../utils/clock.ts";
import type { UserInfo } from "../authentication/types.ts";
import type { InternalClient } from "../registry/client.ts";
import { RbacCache, userKeys } from "./rbac-cache.ts";
import { Reflector } from "./reflector.ts";
import { appliesToUser, describeSubject, ruleAllows } from "./rules.ts";
import type { AuthorizationAttributes, AuthorizationResult, Authorizer, RuleResolver, RulesResult } from "./types.ts";

const RBAC_GROUP = "rbac.authorization.k8s.io";

export interface RBACAuthorizerOptions {
  clock?: Clock;
  /** Watch failures that lead to a relist (for logging). */
  onError?: (err: unknown) => void;
}

/** Visits the rules of each binding that applies, until visit returns false. */
type Visitor = (source: () => string, rule: PolicyRule | undefined, err: string | undefined) => boolean;

export class RBACAuthorizer implements Authorizer, RuleResolver {
  readonly cache = new RbacCache();
  private readonly reflectors: { start(): Promise<void>; stop(): void }[];

  constructor(client: InternalClient, opts: RBACAuthorizerOptions = {}) {
    const gr = (resource: string) => ({ group: RBAC_GROUP, resource });
    const o = { clock: opts.clock, onError: opts.onError };
    this.reflectors = [
      new Reflector(client, gr("clusterroles"), this.cache.clusterRoleHandler, o),
      new Reflector(client, gr("roles"), this.cache.roleHandler, o),
      new Reflector(client, gr("clusterrolebindings"), this.cache.clusterRoleBindingHandler, o),
      new Reflector(client, gr("rolebindings"), this.cache.roleBindingHandler, o),
    ];
  }

  /** Resolves once all four kinds are listed and watched. */
  async start(): Promise<void> {
    await Promise.all(this.reflectors.map((r) => r.start()));
  }

  stop(): void {
    for (const r of this.reflectors) r.stop();
  }

  authorize(attrs: AuthorizationAttributes): Promise<AuthorizationResult> {
    let reason = "";
    const errors: string[] = [];
    this.visitRulesFor(attrs.user, attrs.namespace ?? "", (source, rule, err) => {
      if (rule && ruleAllows(attrs, rule)) {
        reason = `RBAC: allowed by ${source()}`;
        return false;
      }
      if (err) errors.push(err);
      return true;
    });
    if (reason) return Promise.resolve({ decision: "allow", reason });
    const why = errors.length === 0 ? "" : `RBAC: ${errors.length === 1 ? errors[0] : `[${errors.join(", ")}]`}`;
    return Promise.resolve({ decision: "noOpinion", reason: why });
  }

  /** All rules that apply to the user in the namespace (cluster-wide ones included). */
  rulesFor(user: UserInfo, namespace: string): Promise<RulesResult> {
    const out: RulesResult = { resourceRules: [], nonResourceRules: [], incomplete: false };
    const errors: string[] = [];
    this.visitRulesFor(user, namespace, (_source, rule, err) => {
      if (err) errors.push(err);
      if (!rule) return true;
      if (rule.resources && rule.resources.length > 0) {
        const r: RulesResult["resourceRules"][number] = { verbs: [...rule.verbs] };
        if (rule.apiGroups?.length) r.apiGroups = [...rule.apiGroups];
        r.resources = [...rule.resources];
        if (rule.resourceNames?.length) r.resourceNames = [...rule.resourceNames];
        out.resourceRules.push(r);
      }
      if (rule.nonResourceURLs && rule.nonResourceURLs.length > 0) {
        out.nonResourceRules.push({ verbs: [...rule.verbs], nonResourceURLs: [...rule.nonResourceURLs] });
      }
      return true;
    });
    if (errors.length > 0) out.evaluationError = errors.length === 1 ? errors[0] : `[${errors.join(", ")}]`;
    return Promise.resolve(out);
  }

  private visitRulesFor(user: UserInfo, namespace: string, visit: Visitor): void {
    const keys = userKeys(user);
    for (const b of this.cache.clusterRoleBindings.candidates(keys)) {
      const subject = (b.subjects ?? []).find((s) => appliesToUser(user, s, ""));
      if (!subject) continue;
      const source = () => `ClusterRoleBinding "${b.metadata.name}" of ${b.roleRef.kind} "${b.roleRef.name}" to ${describeSubject(subject, "")}`;
      if (!this.visitBinding(b, "", source, visit)) return;
    }
    if (!namespace) return;
    const set = this.cache.roleBindingsIn(namespace);
    if (!set) return;
    for (const b of set.candidates(keys)) {
      const subject = (b.subjects ?? []).find((s) => appliesToUser(user, s, namespace));
      if (!subject) continue;
      const source = () =>
        `RoleBinding "${b.metadata.name}/${namespace}" of ${b.roleRef.kind} "${b.roleRef.name}" to ${describeSubject(subject, namespace)}`;
      if (!this.visitBinding(b, namespace, source, visit)) return;
    }
  }

  /** false when the visitor asked to stop. */
  private visitBinding(b: ClusterRoleBinding | RoleBinding, namespace: string, source: () => string, visit: Visitor): boolean {
    const rules = this.rulesOf(b.roleRef, namespace);
    if (typeof rules === "string") return visit(source, undefined, rules);
    for (const rule of rules) if (!visit(source, rule, undefined)) return false;
    return true;
  }

  /** The role's rules, or an error text for a missing role or an unknown kind. */
  private rulesOf(ref: RoleRef, namespace: string): PolicyRule[] | string {
    if (ref.kind === "ClusterRole") {
      const cr = this.cache.clusterRoles.get(ref.name);
      return cr ? (cr.rules ?? []) : `clusterrole.${RBAC_GROUP} "${ref.name}" not found`;
    }
    if (ref.kind === "Role") {
      const r = namespace ? this.cache.getRole(namespace, ref.name) : undefined;
      return r ? (r.rules ?? []) : `role.${RBAC_GROUP} "${ref.name}" not found`;
    }
    return `unsupported role reference kind: "${String((ref as { kind: unknown }).kind)}"`;
  }
}
