// system:masters is the superuser group kube-apiserver always allows, before RBAC is consulted
// ([as] pkg/authorization/authorizerfactory privileged group authorizer).
import { GROUP_MASTERS, type UserInfo } from "../authentication/types.ts";
import type { AuthorizationAttributes, AuthorizationResult, Authorizer, RuleResolver, RulesResult } from "./types.ts";

export class MastersAuthorizer implements Authorizer, RuleResolver {
  authorize(attrs: AuthorizationAttributes): Promise<AuthorizationResult> {
    return Promise.resolve(attrs.user.groups.includes(GROUP_MASTERS) ? { decision: "allow", reason: "" } : { decision: "noOpinion", reason: "" });
  }

  rulesFor(user: UserInfo): Promise<RulesResult> {
    if (!user.groups.includes(GROUP_MASTERS)) return Promise.resolve({ resourceRules: [], nonResourceRules: [], incomplete: false });
    return Promise.resolve({
      resourceRules: [{ verbs: ["*"], apiGroups: ["*"], resources: ["*"] }],
      nonResourceRules: [{ verbs: ["*"], nonResourceURLs: ["*"] }],
      incomplete: false,
    });
  }
}
