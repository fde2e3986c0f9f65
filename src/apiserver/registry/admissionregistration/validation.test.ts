import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { KubeObject } from "../../../apis/meta/v1/types.ts";
import { formatFieldError } from "../../../apimachinery/field/errors.ts";
import { defaultWebhooks, validateWebhookConfiguration } from "./validation.ts";

const config = (webhooks: unknown[]): KubeObject => ({ apiVersion: "admissionregistration.k8s.io/v1", kind: "ValidatingWebhookConfiguration", metadata: { name: "c" }, webhooks });
const good = { name: "a.b.c", clientConfig: { url: "https://h/p" }, rules: [{ operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["pods"] }], sideEffects: "None", admissionReviewVersions: ["v1"] };
const errs = (webhooks: unknown[], mutating = false) => validateWebhookConfiguration(config(webhooks), mutating).map(formatFieldError);

describe("webhook configuration validation", () => {
  it("accepts a good webhook and defaults it as upstream", () => {
    const c = config([structuredClone(good), { ...structuredClone(good), name: "s.b.c", clientConfig: { service: { namespace: "n", name: "s" } } }]);
    defaultWebhooks(c, true);
    assert.deepEqual(validateWebhookConfiguration(c, true), []);
    const [h, s] = c.webhooks as Record<string, unknown>[];
    assert.equal(h!.failurePolicy, "Fail");
    assert.equal(h!.timeoutSeconds, 10);
    assert.equal(h!.matchPolicy, "Equivalent");
    assert.equal(h!.reinvocationPolicy, "Never");
    assert.deepEqual(h!.namespaceSelector, {});
    assert.equal((h!.rules as { scope: string }[])[0]!.scope, "*");
    assert.equal((s!.clientConfig as { service: { port: number } }).service.port, 443);
  });

  it("gives upstream's messages", () => {
    assert.deepEqual(errs([good, good]), ['webhooks[1].name: Duplicate value: "a.b.c"']);
    assert.deepEqual(errs([{ ...good, clientConfig: {} }]), ["webhooks[0].clientConfig: Required value: exactly one of url or service is required"]);
    assert.deepEqual(errs([{ ...good, clientConfig: { url: "https://u:p@h/p#f" } }]), [
      'webhooks[0].clientConfig.url: Invalid value: "https://u:p@h/p#f": user information is not permitted in the URL',
      'webhooks[0].clientConfig.url: Invalid value: "https://u:p@h/p#f": fragments are not permitted in the URL',
    ]);
    assert.deepEqual(errs([{ ...good, sideEffects: undefined, admissionReviewVersions: ["v2"], timeoutSeconds: 0 }]), [
      "webhooks[0].sideEffects: Required value: must specify one of None, NoneOnDryRun",
      "webhooks[0].timeoutSeconds: Invalid value: 0: the timeout value must be between 1 and 30 seconds",
      'webhooks[0].admissionReviewVersions: Invalid value: ["v2"]: must include at least one of v1, v1beta1',
    ]);
    assert.deepEqual(errs([{ ...good, rules: [{ operations: ["PATCH"], apiGroups: [], apiVersions: ["v1"], resources: ["a/b/c"], scope: "Any" }] }]), [
      'webhooks[0].rules[0].operations[0]: Unsupported value: "PATCH": supported values: "*", "CREATE", "UPDATE", "DELETE", "CONNECT"',
      "webhooks[0].rules[0].apiGroups: Required value",
      'webhooks[0].rules[0].resources[0]: Invalid value: "a/b/c": resource can not contain more than one \'/\'',
      'webhooks[0].rules[0].scope: Unsupported value: "Any": supported values: "Cluster", "Namespaced", "*"',
    ]);
    assert.equal(errs([{ ...good, namespaceSelector: { matchExpressions: [{ key: "a", operator: "Near" }] } }]).length, 1);
    assert.equal(errs(Array.from({ length: 65 }, (_, i) => ({ ...good, name: `h${i}.b.c` }))).length, 1);
  });
});
