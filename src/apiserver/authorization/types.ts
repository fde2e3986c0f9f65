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
}
