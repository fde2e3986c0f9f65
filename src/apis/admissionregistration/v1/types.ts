// admissionregistration.k8s.io/v1: MutatingWebhookConfiguration and ValidatingWebhookConfiguration
// (docs/admission-webhooks.md).
import type { KubeObject, LabelSelector } from "../../meta/v1/types.ts";

export const GROUP = "admissionregistration.k8s.io";
export const VERSION = "v1";
export const API_VERSION = "admissionregistration.k8s.io/v1";

export interface ServiceReference {
  namespace: string;
  name: string;
  path?: string;
  /** Default 443. */
  port?: number;
}

export interface WebhookClientConfig {
  url?: string;
  service?: ServiceReference;
  /** PEM bundle, base64 in JSON. */
  caBundle?: string;
}

export interface RuleWithOperations {
  operations?: string[];
  apiGroups?: string[];
  apiVersions?: string[];
  resources?: string[];
  /** "Cluster", "Namespaced" or "*" (default). */
  scope?: string;
}

export interface Webhook {
  name: string;
  clientConfig: WebhookClientConfig;
  rules?: RuleWithOperations[];
  failurePolicy?: "Fail" | "Ignore";
  matchPolicy?: "Exact" | "Equivalent";
  namespaceSelector?: LabelSelector;
  objectSelector?: LabelSelector;
  sideEffects?: string;
  timeoutSeconds?: number;
  admissionReviewVersions?: string[];
  matchConditions?: unknown[];
}

export interface MutatingWebhook extends Webhook {
  reinvocationPolicy?: "Never" | "IfNeeded";
}

export interface ValidatingWebhookConfiguration extends KubeObject {
  webhooks?: Webhook[];
}

export interface MutatingWebhookConfiguration extends KubeObject {
  webhooks?: MutatingWebhook[];
}
