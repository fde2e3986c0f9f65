import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { KubeObject } from "../../../apis/meta/v1/types.ts";
import { scaleOf, validateScale, withReplicas } from "./scale.ts";

const paths = { specReplicasPath: ".spec.replicas", statusReplicasPath: ".status.replicas", labelSelectorPath: ".status.selector" };
const cr = (spec: unknown, status: unknown): KubeObject => ({
  apiVersion: "example.com/v1",
  kind: "Widget",
  metadata: { name: "w", namespace: "ns", uid: "u", resourceVersion: "7", creationTimestamp: "2026-01-01T00:00:00Z", labels: { a: "b" } },
  spec,
  status,
});

describe("custom resource scale", () => {
  it("reads the Scale from the CRD's paths, missing values as 0 and empty", () => {
    assert.deepEqual(scaleOf(cr({ replicas: 3 }, { replicas: 2, selector: "app=x" }), paths), {
      apiVersion: "autoscaling/v1",
      kind: "Scale",
      metadata: { name: "w", namespace: "ns", uid: "u", resourceVersion: "7", creationTimestamp: "2026-01-01T00:00:00Z" },
      spec: { replicas: 3 },
      status: { replicas: 2, selector: "app=x" },
    });
    const empty = scaleOf(cr(undefined, { replicas: "two" }), { specReplicasPath: ".spec.replicas", statusReplicasPath: ".status.replicas" });
    assert.deepEqual([empty.spec, empty.status], [{ replicas: 0 }, { replicas: 0, selector: "" }]);
  });

  it("writes replicas at a nested path, creating what is missing, without touching the original", () => {
    const orig = cr({ other: 1 }, {});
    const out = withReplicas(orig, { ...paths, specReplicasPath: ".spec.scaling.count" }, 4);
    assert.deepEqual(out.spec, { other: 1, scaling: { count: 4 } });
    assert.deepEqual(orig.spec, { other: 1 });
  });

  it("refuses negative or non-integer replicas with 422 on Scale.autoscaling", () => {
    assert.throws(() => validateScale({ spec: { replicas: -1 } }, "w"), { code: 422, message: 'Scale.autoscaling "w" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0' });
    assert.throws(() => validateScale({ spec: { replicas: 1.5 } }, "w"), { code: 422 });
    assert.equal(validateScale({ spec: { replicas: 0 } }, "w").spec.replicas, 0);
  });
});
