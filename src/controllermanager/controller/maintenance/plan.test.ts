import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Shoot } from "../../../apis/gardencore/v1beta1/types.ts";
import { DESCRIPTION_SSH_ROTATION, DESCRIPTION_SUCCESS, annotationPatch, maintenancePlan, mustMaintainNow, sshRotationDue } from "./plan.ts";

const H = 3_600_000;
const NOW = Date.parse("2026-03-10T17:00:00Z");
const OP = "gardener.cloud/operation";
const MOP = "maintenance.gardener.cloud/operation";

function shoot(o: { created?: number; period?: string; annotations?: Record<string, string>; rotation?: Record<string, string>; sshAccess?: boolean; failed?: boolean; window?: [string, string] } = {}): Shoot {
  return {
    metadata: { name: "s", namespace: "garden-p", creationTimestamp: new Date(o.created ?? NOW - 200 * H).toISOString(), ...(o.annotations ? { annotations: o.annotations } : {}) },
    spec: {
      provider: { type: "local", workers: [{ name: "w" }], ...(o.sshAccess === false ? { workersSettings: { sshAccess: { enabled: false } } } : {}) },
      maintenance: {
        ...(o.window ? { timeWindow: { begin: o.window[0], end: o.window[1] } } : {}),
        autoRotation: { credentials: { sshKeypair: { rotationPeriod: o.period ?? "168h" } } },
      },
    },
    status: { ...(o.rotation ? { credentials: { rotation: { sshKeypair: o.rotation } } } : {}), ...(o.failed ? { lastOperation: { state: "Failed" } } : {}) },
  } as Shoot;
}

describe("shoot maintenance plan", () => {
  it("maintains inside the effective window or on maintain, never elsewhere", () => {
    const w = (begin: string, end: string) => shoot({ window: [begin, end] });
    assert.ok(mustMaintainNow(w("160000+0000", "190000+0000"), NOW));
    assert.ok(mustMaintainNow(w("170000+0000", "180000+0000"), NOW), "the window's begin is inside");
    assert.ok(!mustMaintainNow(w("160000+0000", "171400+0000"), NOW), "the last 15 minutes are not");
    assert.ok(mustMaintainNow(w("160000+0000", "171500+0000"), NOW), "the effective end is inside");
    assert.ok(!mustMaintainNow(w("180000+0000", "190000+0000"), NOW));
    assert.ok(mustMaintainNow(shoot({ window: ["180000+0000", "190000+0000"], annotations: { [OP]: "maintain" } }), NOW));
    assert.ok(mustMaintainNow(shoot(), NOW), "no window: always");
  });

  it("requests a rotation once the period has passed since completion or creation, strictly", () => {
    assert.ok(sshRotationDue(shoot({ created: NOW - 168 * H - 1 }), NOW));
    assert.ok(!sshRotationDue(shoot({ created: NOW - 168 * H }), NOW), "exactly one period: not yet");
    assert.ok(!sshRotationDue(shoot({ period: "0" }), NOW), "0 disables");
    assert.ok(!sshRotationDue(shoot({ sshAccess: false }), NOW), "no SSH access");
    const done = (ago: number) => ({ lastInitiationTime: new Date(NOW - ago * H - 60_000).toISOString(), lastCompletionTime: new Date(NOW - ago * H).toISOString() });
    assert.ok(!sshRotationDue(shoot({ rotation: done(100) }), NOW), "completed 100h ago");
    assert.ok(sshRotationDue(shoot({ rotation: done(169) }), NOW), "completed 169h ago");
    assert.ok(!sshRotationDue(shoot({ rotation: { lastInitiationTime: new Date(NOW - 300 * H).toISOString() } }), NOW), "in progress");
    assert.ok(!sshRotationDue(shoot({ annotations: { [OP]: "rotate-ssh-keypair" } }), NOW), "pending");
    assert.ok(!sshRotationDue(shoot({ annotations: { [OP]: "rotate-credentials-start" } }), NOW), "pending as part of a credentials rotation");
  });

  it("sets reconcile, the deferred operations and the rotation, and records lastMaintenance", () => {
    const s = shoot({ annotations: { [OP]: "maintain;rotate-ca-start", [MOP]: "rotate-etcd-encryption-key-start" } });
    const plan = maintenancePlan(s, NOW);
    assert.equal(plan.operation, "reconcile;rotate-ca-start;rotate-etcd-encryption-key-start;rotate-ssh-keypair");
    assert.deepEqual(plan.lastMaintenance, { description: `${DESCRIPTION_SUCCESS} ${DESCRIPTION_SSH_ROTATION}`, triggeredTime: "2026-03-10T17:00:00Z", state: "Succeeded" });
    assert.match(plan.lastMaintenance!.description, /Credentials "rotate-ssh-keypair": SSH keypair rotation started\. Reason: Automatic rotation of SSH keypair configured/);
    assert.deepEqual(annotationPatch(s, plan), { [OP]: plan.operation, [MOP]: null });
    const fresh = maintenancePlan(shoot({ created: NOW - H, annotations: { [MOP]: "rotate-ssh-keypair" } }), NOW);
    assert.equal(fresh.operation, "reconcile;rotate-ssh-keypair", "a deferred rotation request goes through, once");
    assert.equal(fresh.rotation, false);
    assert.equal(fresh.lastMaintenance?.description, DESCRIPTION_SUCCESS);
  });

  it("only retries a failed shoot", () => {
    const s = shoot({ failed: true, annotations: { [OP]: "maintain", [MOP]: "rotate-ssh-keypair" } });
    const plan = maintenancePlan(s, NOW);
    assert.deepEqual(plan, { operation: "retry", lastMaintenance: undefined, rotation: false });
    assert.deepEqual(annotationPatch(s, plan), { [OP]: "retry" }, "the deferred operations wait");
  });
});
