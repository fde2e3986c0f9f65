// Descriptors (and the few fields the runtime itself reads) for built-in kinds the controller
// runtime uses directly: ConfigMaps and Secrets in tests and samples, Namespaces, and Leases for
// leader election; Nodes, Pods, Services, Endpoints and ServiceAccounts, which several components read and write.
import type { Pod } from "../apis/core/v1/pod.ts";
import type { Node } from "../apis/core/v1/types.ts";
import type { Endpoints as EndpointsObject, Service } from "../apis/core/v1/service.ts";
import type { KubeObject } from "../apis/meta/v1/types.ts";
import type { ClusterRole, ClusterRoleBinding, Role, RoleBinding } from "../apis/rbac/v1/types.ts";
import { resourceType } from "./resource.ts";

export interface ConfigMap extends KubeObject {
  data?: Record<string, string>;
  binaryData?: Record<string, string>;
}

export interface Secret extends KubeObject {
  type?: string;
  data?: Record<string, string>;
  stringData?: Record<string, string>;
}

export interface Namespace extends KubeObject {
  spec?: { finalizers?: string[] };
  status?: { phase?: string };
}

/** coordination.k8s.io/v1 LeaseSpec. Times are RFC 3339 with microseconds (MicroTime). */
export interface LeaseSpec {
  holderIdentity?: string;
  leaseDurationSeconds?: number;
  acquireTime?: string;
  renewTime?: string;
  leaseTransitions?: number;
}

export interface Lease extends KubeObject {
  spec?: LeaseSpec;
}

export const ConfigMaps = resourceType<ConfigMap>({ group: "", version: "v1", kind: "ConfigMap", plural: "configmaps", namespaced: true });
export const Secrets = resourceType<Secret>({ group: "", version: "v1", kind: "Secret", plural: "secrets", namespaced: true });
export const ServiceAccounts = resourceType<KubeObject>({ group: "", version: "v1", kind: "ServiceAccount", plural: "serviceaccounts", namespaced: true });
export const Namespaces = resourceType<Namespace>({ group: "", version: "v1", kind: "Namespace", plural: "namespaces", namespaced: false });
export const Leases = resourceType<Lease>({
  group: "coordination.k8s.io",
  version: "v1",
  kind: "Lease",
  plural: "leases",
  namespaced: true,
});
export const Roles = resourceType<Role>({ group: "rbac.authorization.k8s.io", version: "v1", kind: "Role", plural: "roles", namespaced: true });
export const RoleBindings = resourceType<RoleBinding>({ group: "rbac.authorization.k8s.io", version: "v1", kind: "RoleBinding", plural: "rolebindings", namespaced: true });
export const ClusterRoles = resourceType<ClusterRole>({ group: "rbac.authorization.k8s.io", version: "v1", kind: "ClusterRole", plural: "clusterroles", namespaced: false });
export const ClusterRoleBindings = resourceType<ClusterRoleBinding>({ group: "rbac.authorization.k8s.io", version: "v1", kind: "ClusterRoleBinding", plural: "clusterrolebindings", namespaced: false });

export const Nodes = resourceType<Node>({ group: "", version: "v1", kind: "Node", plural: "nodes", namespaced: false });
export const Pods = resourceType<Pod>({ group: "", version: "v1", kind: "Pod", plural: "pods", namespaced: true });
export const Services = resourceType<Service>({ group: "", version: "v1", kind: "Service", plural: "services", namespaced: true });
export const Endpoints = resourceType<EndpointsObject>({ group: "", version: "v1", kind: "Endpoints", plural: "endpoints", namespaced: true });
