// authorization.k8s.io/v1: the access-review kinds, as plain JSON interfaces.
import type { KubeObject } from "../../meta/v1/types.ts";

export const GROUP = "authorization.k8s.io";
export const VERSION = "v1";
export const API_VERSION = `${GROUP}/${VERSION}`;

export interface ResourceAttributes {
  namespace?: string;
  verb?: string;
  group?: string;
  version?: string;
  resource?: string;
  subresource?: string;
  name?: string;
  /** Newer releases; accepted and echoed, not evaluated (RBAC ignores selectors). */
  fieldSelector?: { rawSelector?: string; requirements?: unknown[] };
  labelSelector?: { rawSelector?: string; requirements?: unknown[] };
}

export interface NonResourceAttributes {
  path?: string;
  verb?: string;
}

export interface SubjectAccessReviewSpec {
  resourceAttributes?: ResourceAttributes;
  nonResourceAttributes?: NonResourceAttributes;
  user?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
  uid?: string;
}

export interface SelfSubjectAccessReviewSpec {
  resourceAttributes?: ResourceAttributes;
  nonResourceAttributes?: NonResourceAttributes;
}

export interface SubjectAccessReviewStatus {
  allowed: boolean;
  denied?: boolean;
  reason?: string;
  evaluationError?: string;
}

export interface SubjectAccessReview extends KubeObject {
  spec: SubjectAccessReviewSpec;
  status?: SubjectAccessReviewStatus;
}

export type LocalSubjectAccessReview = SubjectAccessReview;

export interface SelfSubjectAccessReview extends KubeObject {
  spec: SelfSubjectAccessReviewSpec;
  status?: SubjectAccessReviewStatus;
}

export interface ResourceRule {
  verbs: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
}

export interface NonResourceRule {
  verbs: string[];
  nonResourceURLs?: string[];
}

export interface SubjectRulesReviewStatus {
  resourceRules: ResourceRule[];
  nonResourceRules: NonResourceRule[];
  incomplete: boolean;
  evaluationError?: string;
}

export interface SelfSubjectRulesReview extends KubeObject {
  spec: { namespace?: string };
  status?: SubjectRulesReviewStatus;
}
