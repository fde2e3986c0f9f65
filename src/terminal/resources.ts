// The resource types the terminal-controller-manager reads and writes.
import type { Terminal } from "../apis/dashboard/v1alpha1/types.ts";
import { API_VERSION, GROUP, KIND_TERMINAL, RESOURCE_TERMINALS, VERSION } from "../apis/dashboard/v1alpha1/types.ts";
import type { KubeObject } from "../apis/meta/v1/types.ts";
import type { SubjectAccessReview } from "../apis/authorization/v1/types.ts";
import { resourceType } from "../client/resource.ts";

export { API_VERSION };
export const Terminals = resourceType<Terminal>({ group: GROUP, version: VERSION, kind: KIND_TERMINAL, plural: RESOURCE_TERMINALS, namespaced: true });
export const ServiceAccounts = resourceType<KubeObject>({ group: "", version: "v1", kind: "ServiceAccount", plural: "serviceaccounts", namespaced: true });
export { Pods, Services } from "../client/builtins.ts";
export const ClusterRoleBindings = resourceType<KubeObject>({ group: "rbac.authorization.k8s.io", version: "v1", kind: "ClusterRoleBinding", plural: "clusterrolebindings", namespaced: false });
export const SubjectAccessReviews = resourceType<SubjectAccessReview>({ group: "authorization.k8s.io", version: "v1", kind: "SubjectAccessReview", plural: "subjectaccessreviews", namespaced: false });
export const MutatingWebhookConfigurations = resourceType<KubeObject>({ group: "admissionregistration.k8s.io", version: "v1", kind: "MutatingWebhookConfiguration", plural: "mutatingwebhookconfigurations", namespaced: false });
export const ValidatingWebhookConfigurations = resourceType<KubeObject>({ group: "admissionregistration.k8s.io", version: "v1", kind: "ValidatingWebhookConfiguration", plural: "validatingwebhookconfigurations", namespaced: false });
