import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { KubeObject } from "../../../../apis/meta/v1/types.ts";
import { simulateCreate, simulateUpdate } from "../../core/testing.ts";
import { leaseDefinition as def } from "./definition.ts";

const lease = (spec: Record<string, unknown>): KubeObject => ({
  apiVersion: "coordination.k8s.io/v1",
  kind: "Lease",
  metadata: { name: "gardenlet-leader-election", namespace: "garden", creationTimestamp: "2024-01-01T00:00:00Z" },
  spec,
});

describe("Lease", () => {
  it("lives in coordination.k8s.io/v1", () => {
    assert.equal(def.group, "coordination.k8s.io");
    assert.equal(def.version, "v1");
    assert.equal(def.namespaced, true);
  });

  it("stores acquireTime and renewTime as MicroTime", () => {
    const out = simulateCreate(def, lease({ holderIdentity: "a", leaseDurationSeconds: 15, acquireTime: "2024-01-01T00:00:00Z", renewTime: "2024-01-01T02:00:01.1234567+02:00" }));
    assert.deepEqual(out.errors, []);
    assert.deepEqual(out.obj.spec, {
      holderIdentity: "a",
      leaseDurationSeconds: 15,
      acquireTime: "2024-01-01T00:00:00.000000Z",
      renewTime: "2024-01-01T00:00:01.123456Z",
    });
    const renewed = simulateUpdate(def, lease({ ...(out.obj.spec as object), renewTime: "2024-01-01T00:00:09.5Z" }), out.obj);
    assert.equal((renewed.obj.spec as { renewTime: string }).renewTime, "2024-01-01T00:00:09.500000Z");
  });

  it("validates durations, transitions and the preferred holder", () => {
    const out = simulateCreate(def, lease({ leaseDurationSeconds: 0, leaseTransitions: -1, preferredHolder: "b" }));
    assert.deepEqual(out.errors, [
      "spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0",
      "spec.leaseTransitions: Invalid value: -1: must be greater than or equal to 0",
      "spec.preferredHolder: Forbidden: may only be specified if `strategy` is defined",
    ]);
    assert.deepEqual(simulateCreate(def, lease({ leaseDurationSeconds: "15", renewTime: "soon" })).errors, [
      'spec.leaseDurationSeconds: Invalid value: "string": spec.leaseDurationSeconds in body must be of type integer: "string"',
      'spec.renewTime: Invalid value: "soon": spec.renewTime in body must be of type date-time: "soon"',
    ]);
  });

  it("prints HOLDER and AGE", () => {
    assert.deepEqual(def.table!.columns.map((c) => c.name), ["Holder", "Age"]);
    assert.deepEqual(def.table!.cells(lease({ holderIdentity: "gardenlet-1" }), new Date("2024-01-09T00:00:00Z")), ["gardenlet-1", "8d"]);
    assert.deepEqual(def.table!.cells(lease({}), new Date("2024-01-01T00:00:01Z")), ["", "1s"]);
  });
});
