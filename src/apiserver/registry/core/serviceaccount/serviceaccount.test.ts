import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { KubeObject } from "../../../../apis/meta/v1/types.ts";
import { simulateCreate } from "../testing.ts";
import { serviceAccountDefinition as def } from "./definition.ts";

const sa = (extra: Record<string, unknown> = {}): KubeObject => ({ apiVersion: "v1", kind: "ServiceAccount", metadata: { name: "sa", namespace: "default" }, ...extra });

describe("ServiceAccount", () => {
  it("keeps its fields, prunes unknown ones inside references and types them", () => {
    const out = simulateCreate(def, sa({ secrets: [{ name: "t", extra: 1 }], imagePullSecrets: [{ name: "pull" }], automountServiceAccountToken: false }));
    assert.deepEqual(out.errors, []);
    assert.deepEqual(out.removed, ["secrets[0].extra"]);
    assert.deepEqual(out.obj.secrets, [{ name: "t" }]);
    const bad = simulateCreate(def, sa({ automountServiceAccountToken: "yes" }));
    assert.deepEqual(bad.errors, [
      'automountServiceAccountToken: Invalid value: "string": automountServiceAccountToken in body must be of type boolean: "string"',
    ]);
  });

  it("merges secrets by name in strategic merge patches", () => {
    const secrets = def.schema.properties!.secrets!;
    assert.equal(secrets["x-kubernetes-patch-strategy"], "merge");
    assert.equal(secrets["x-kubernetes-patch-merge-key"], "name");
  });

  it("prints SECRETS and AGE", () => {
    const obj = sa({ secrets: [{ name: "a" }, { name: "b" }] });
    obj.metadata.creationTimestamp = "2024-01-01T00:00:00Z";
    assert.deepEqual(def.table!.columns.map((c) => c.name), ["Secrets", "Age"]);
    assert.deepEqual(def.table!.cells(obj, new Date("2024-01-01T02:00:00Z")), [2, "120m"]);
    assert.deepEqual(def.table!.cells(sa(), new Date()), [0, "<unknown>"]);
  });
});
