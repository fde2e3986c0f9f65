// admissionregistration.k8s.io/v1 MutatingWebhookConfiguration and ValidatingWebhookConfiguration:
// cluster-scoped, served by every API server (docs/admission-webhooks.md).
import type { KubeObject } from "../../../apis/meta/v1/types.ts";
import { GROUP } from "../../../apis/admissionregistration/v1/types.ts";
import { arr, atomicList, enumStr, int32, mergeList, obj, str } from "../../schema/builders.ts";
import { kindSchema, labelSelectorSchema } from "../../schema/objectmeta.ts";
import { ageCell, ageColumn, column } from "../core/printers.ts";
import type { ResourceDefinition, Strategy, TableConvertor } from "../types.ts";
import { defaultWebhooks, validateWebhookConfiguration } from "./validation.ts";

const ruleSchema = obj(
  {
    operations: atomicList(str(), "Operations is the operations the admission hook cares about."),
    apiGroups: atomicList(str(), "APIGroups is the API groups the resources belong to."),
    apiVersions: atomicList(str(), "APIVersions is the API versions the resources belong to."),
    resources: atomicList(str(), "Resources is a list of resources this rule applies to."),
    scope: str("scope specifies the scope of this rule."),
  },
  "RuleWithOperations is a tuple of Operations and Resources.",
);

const clientConfigSchema = obj(
  {
    url: str("`url` gives the location of the webhook, in standard URL form (`scheme://host:port/path`)."),
    service: obj(
      {
        namespace: str("`namespace` is the namespace of the service."),
        name: str("`name` is the name of the service."),
        path: str("`path` is an optional URL path which will be sent in any request to this service."),
        port: int32("If specified, the port on the service that hosting webhook. Default to 443."),
      },
      "ServiceReference holds a reference to Service.legacy.k8s.io",
      ["namespace", "name"],
    ),
    caBundle: str("`caBundle` is a PEM encoded CA bundle which will be used to validate the webhook's server certificate.", { format: "byte" }),
  },
  "WebhookClientConfig contains the information to make a TLS connection with the webhook",
);

function webhookSchema(mutating: boolean) {
  return obj(
    {
      name: str("The name of the admission webhook."),
      clientConfig: clientConfigSchema,
      rules: atomicList(ruleSchema, "Rules describes what operations on what resources/subresources the webhook cares about."),
      failurePolicy: str("FailurePolicy defines how unrecognized errors from the admission endpoint are handled - allowed values are Ignore or Fail."),
      matchPolicy: str('matchPolicy defines how the "rules" list is used to match incoming requests.'),
      namespaceSelector: labelSelectorSchema,
      objectSelector: labelSelectorSchema,
      sideEffects: str("SideEffects states whether this webhook has side effects."),
      timeoutSeconds: int32("TimeoutSeconds specifies the timeout for this webhook."),
      admissionReviewVersions: atomicList(str(), "AdmissionReviewVersions is an ordered list of preferred `AdmissionReview` versions the Webhook expects."),
      matchConditions: arr(obj({ name: str(), expression: str() }, "MatchCondition represents a condition which must by fulfilled for a request to be sent to a webhook.")),
      ...(mutating ? { reinvocationPolicy: enumStr(["Never", "IfNeeded"], "reinvocationPolicy indicates whether this webhook should be called multiple times as part of a single admission evaluation.") } : {}),
    },
    `${mutating ? "MutatingWebhook" : "ValidatingWebhook"} describes an admission webhook and the resources and operations it applies to.`,
    ["name", "clientConfig"],
  );
}

function strategy(mutating: boolean): Strategy {
  return {
    prepareForCreate: (_ctx, o: KubeObject) => defaultWebhooks(o, mutating),
    prepareForUpdate: (_ctx, o: KubeObject) => defaultWebhooks(o, mutating),
    validate: (_ctx, o: KubeObject) => validateWebhookConfiguration(o, mutating),
    validateUpdate: (_ctx, o: KubeObject) => validateWebhookConfiguration(o, mutating),
  };
}

const table: TableConvertor = {
  columns: [column("Webhooks", "integer", "Webhooks indicates the number of webhooks in this configuration."), ageColumn()],
  cells: (o: KubeObject, now: Date) => [Array.isArray(o.webhooks) ? o.webhooks.length : 0, ageCell(o, now)],
};

function definition(mutating: boolean): ResourceDefinition {
  const kind = mutating ? "MutatingWebhookConfiguration" : "ValidatingWebhookConfiguration";
  return {
    group: GROUP,
    version: "v1",
    kind,
    listKind: `${kind}List`,
    plural: `${kind.toLowerCase()}s`,
    singular: kind.toLowerCase(),
    namespaced: false,
    categories: ["api-extensions"],
    schema: kindSchema({
      description: `${kind} describes the configuration of admission webhooks that accept or reject ${mutating ? "and may change objects" : "objects without changing them"}.`,
      properties: { webhooks: mergeList(webhookSchema(mutating), "name", "Webhooks is a list of webhooks and the affected resources and operations.") },
    }),
    hasStatus: false,
    strategy: strategy(mutating),
    table,
    strategicMergePatch: true,
    tracksGeneration: true,
  };
}

export const mutatingWebhookConfigurationDefinition = definition(true);
export const validatingWebhookConfigurationDefinition = definition(false);
