// rbac.authorization.k8s.io/v1
import type { KubeObject, LabelSelector } from "../../meta/v1/types.ts";

export interface PolicyRule {
  verbs: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
}

export interface AggregationRule {
  clusterRoleSelectors?: LabelSelector[];
}

export interface Role extends KubeObject {
  rules?: PolicyRule[];
}

export interface ClusterRole extends KubeObject {
  rules?: PolicyRule[];
  aggregationRule?: AggregationRule;
}

export interface Subject {
  kind: "User" | "Group" | "ServiceAccount";
  apiGroup?: string;
  name: string;
  namespace?: string;
}

export interface RoleRef {
  apiGroup: string;
  kind: "Role" | "ClusterRole";
  name: string;
}

export interface RoleBinding extends KubeObject {
  subjects?: Subject[];
  roleRef: RoleRef;
}

export interface ClusterRoleBinding extends KubeObject {
  subjects?: Subject[];
  roleRef: RoleRef;
}
