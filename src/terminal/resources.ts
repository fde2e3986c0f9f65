// The resource types the terminal-controller-manager reads and writes.
import { API_VERSION } from "../apis/dashboard/v1alpha1/types.ts";
import type { KubeObject } from "../apis/meta/v1/types.ts";
import type { SubjectAccessReview } from "../apis/authorization/v1/types.ts";
import { resourceType } from "../client/resource.ts";

export { API_VERSION };
export { Pods, ServiceAccounts, Services } from "../client/builtins.ts";
export { Terminals } from "../client/garden.ts";
export const ClusterRoleBindings = resourceType<KubeObject>({ group: "rbac.authorization.k8s.io", version: "v1", kind: "ClusterRoleBinding", plural: "clusterrolebindings", namespaced: false });
export const SubjectAccessReviews = resourceType<SubjectAccessReview>({ group: "authorization.k8s.io", version: "v1", kind: "SubjectAccessReview", plural: "subjectaccessreviews", namespaced: false });
export const MutatingWebhookConfigurations = resourceType<KubeObject>({ group: "admissionregistration.k8s.io", version: "v1", kind: "MutatingWebhookConfiguration", plural: "mutatingwebhookconfigurations", namespaced: false });
export const ValidatingWebhookConfigurations = resourceType<KubeObject>({ group: "admissionregistration.k8s.io", version: "v1", kind: "ValidatingWebhookConfiguration", plural: "validatingwebhookconfigurations", namespaced: false });
