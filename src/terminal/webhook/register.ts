// The terminal webhooks' registration in the garden (docs/terminals.md#admission-webhooks): one
// MutatingWebhookConfiguration and one ValidatingWebhookConfiguration labelled
// app.kubernetes.io/name=terminal, app.kubernetes.io/component=admission-controller, as upstream's
// chart installs them, kept as desired on every start (created once, so their creationTimestamp
// stays older than the Terminals they admitted: the controller's safety net relies on it).
import type { KubeObject } from "../../apis/meta/v1/types.ts";
import type { Client } from "../../client/client.ts";
import { createOrPatch } from "../../client/helpers.ts";
import type { ResourceType } from "../../client/resource.ts";
import { MutatingWebhookConfigurations, ValidatingWebhookConfigurations } from "../resources.ts";
import { MUTATE_PATH, VALIDATE_PATH } from "./server.ts";

export const WEBHOOK_LABELS = { "app.kubernetes.io/name": "terminal", "app.kubernetes.io/component": "admission-controller" };
export const MUTATING_CONFIGURATION = "terminal-mutating-webhook-configuration";
export const VALIDATING_CONFIGURATION = "terminal-validating-webhook-configuration";
export const MUTATING_WEBHOOK = "mutating-create-update-terminal.gardener.cloud";
export const VALIDATING_WEBHOOK = "validating-create-update-terminal.gardener.cloud";

export interface WebhookClientConfig {
  /** The webhook server's base URL, e.g. https://127.0.0.1:9443 (the paths are appended). */
  url?: string;
  /** Or a Service in the garden (port 443 unless set). */
  service?: { namespace: string; name: string; port?: number };
  /** base64 PEM of the CA that signed the webhook server's certificate. */
  caBundle: string;
}

function webhook(name: string, path: string, c: WebhookClientConfig): Record<string, unknown> {
  const clientConfig = c.service ? { service: { ...c.service, path }, caBundle: c.caBundle } : { url: `${c.url}${path}`, caBundle: c.caBundle };
  return {
    name,
    clientConfig,
    rules: [{ operations: ["CREATE", "UPDATE"], apiGroups: ["dashboard.gardener.cloud"], apiVersions: ["v1alpha1"], resources: ["terminals"] }],
    failurePolicy: "Fail",
    sideEffects: "None",
    admissionReviewVersions: ["v1", "v1beta1"],
  };
}

async function ensure(client: Client, type: ResourceType<KubeObject>, name: string, hook: Record<string, unknown>): Promise<void> {
  await createOrPatch(client, type, { name }, (o) => {
    o.metadata.labels = { ...(o.metadata.labels ?? {}), ...WEBHOOK_LABELS };
    o.webhooks = [hook];
  });
}

export async function registerWebhooks(client: Client, c: WebhookClientConfig): Promise<void> {
  if (!c.url === !c.service) throw new Error("the webhook client configuration needs exactly one of url or service");
  await ensure(client, MutatingWebhookConfigurations, MUTATING_CONFIGURATION, webhook(MUTATING_WEBHOOK, MUTATE_PATH, c));
  await ensure(client, ValidatingWebhookConfigurations, VALIDATING_CONFIGURATION, webhook(VALIDATING_WEBHOOK, VALIDATE_PATH, c));
}
