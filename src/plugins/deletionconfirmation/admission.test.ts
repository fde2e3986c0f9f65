import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { KubeObject } from "../../apis/meta/v1/types.ts";
import type { AdmissionAttributes } from "../../apiserver/admission/types.ts";
import { projectDefinition } from "../../apiserver/registry/gardencore/project/definition.ts";
import { shootDefinition } from "../../apiserver/registry/gardencore/shoot/definition.ts";
import { seedDefinition } from "../../apiserver/registry/gardencore/seed/definition.ts";
import type { ResourceDefinition } from "../../apiserver/registry/types.ts";
import { DeletionConfirmation } from "./admission.ts";

function attrs(resource: ResourceDefinition, operation: AdmissionAttributes["operation"], annotations?: Record<string, string>, claimed?: Record<string, string>): AdmissionAttributes {
  const stored: KubeObject = { metadata: { name: "local", namespace: "garden-local", ...(annotations ? { annotations } : {}) } };
  const a: AdmissionAttributes = { operation, resource, subresource: "", namespace: "garden-local", name: "local", user: { username: "alice", groups: [] }, dryRun: false, oldObject: stored };
  if (claimed) a.object = { metadata: { name: "local", annotations: claimed } };
  return a;
}

describe("DeletionConfirmation", () => {
  const plugin = new DeletionConfirmation();

  it("refuses deleting a Shoot or Project without the annotation, with Gardener's message", async () => {
    await assert.rejects(plugin.validate(attrs(shootDefinition, "DELETE")), {
      code: 403,
      message: 'shoots.core.gardener.cloud "local" is forbidden: must have a "confirmation.gardener.cloud/deletion" annotation to delete',
    });
    await assert.rejects(plugin.validate(attrs(projectDefinition, "DELETE", { "confirmation.gardener.cloud/deletion": "yes" })), { code: 403 });
    await assert.rejects(plugin.validate(attrs(shootDefinition, "DELETE", { "confirmation.gardener.cloud/deletion": "false" })), { code: 403 });
  });

  it("lets the delete through when the stored object says so (ParseBool's true values); the request's claim does not count", async () => {
    for (const v of ["true", "True", "1", "t"]) await plugin.validate(attrs(shootDefinition, "DELETE", { "confirmation.gardener.cloud/deletion": v }));
    await assert.rejects(plugin.validate(attrs(shootDefinition, "DELETE", undefined, { "confirmation.gardener.cloud/deletion": "true" })), { code: 403 });
  });

  it("ignores other operations and kinds", async () => {
    await plugin.validate(attrs(shootDefinition, "UPDATE"));
    await plugin.validate(attrs(seedDefinition, "DELETE"));
  });
});
