import assert from "node:assert/strict";
import { test } from "node:test";
import { ANNOTATION_HA_VPN, caRotation, hasWorkers, isVpnHighAvailability, vpnShootRanges } from "./vpn.ts";

const shoot = (annotations: Record<string, string>, type?: string) => ({
  metadata: { annotations },
  spec: type ? { controlPlane: { highAvailability: { failureTolerance: { type } } } } : {},
});

test("HA follows the failure tolerance unless the annotation says otherwise", () => {
  assert.equal(isVpnHighAvailability(shoot({})), false);
  assert.equal(isVpnHighAvailability(shoot({}, "node")), true);
  assert.equal(isVpnHighAvailability(shoot({}, "zone")), true);
  assert.equal(isVpnHighAvailability(shoot({}, "region")), false);
  assert.equal(isVpnHighAvailability(shoot({ [ANNOTATION_HA_VPN]: "true" })), true);
  assert.equal(isVpnHighAvailability(shoot({ [ANNOTATION_HA_VPN]: "false" }, "zone")), false);
  assert.equal(isVpnHighAvailability(shoot({ [ANNOTATION_HA_VPN]: "yes" }, "zone")), true);
  assert.equal(isVpnHighAvailability({}), false);
});

test("the shoot ranges default to Gardener's and are de-duplicated", () => {
  assert.deepEqual(vpnShootRanges({ spec: {} }), ["10.250.0.0/16", "100.96.0.0/11", "100.64.0.0/13"]);
  assert.deepEqual(vpnShootRanges({ spec: { networking: { nodes: "10.1.0.0/16", pods: "10.2.0.0/16", services: "10.2.0.0/16" } } }), ["10.1.0.0/16", "10.2.0.0/16"]);
  assert.equal(hasWorkers({ spec: { provider: { workers: [] } } }), false);
  assert.equal(hasWorkers({ spec: { provider: { workers: [{ name: "w" }] } } }), true);
});

test("the CA rotation's phase and initiation", () => {
  const s = (phase: unknown, lastInitiationTime?: string) => ({ status: { credentials: { rotation: { certificateAuthorities: { phase, lastInitiationTime } } } } });
  assert.deepEqual(caRotation(s("Preparing", "2026-11-01T00:00:00Z")), { phase: "Preparing", initiation: "2026-11-01T00:00:00Z", prepared: true });
  assert.equal(caRotation(s("Prepared"))?.prepared, true);
  assert.equal(caRotation(s("Completing"))?.prepared, false);
  assert.equal(caRotation(s("Completed"))?.prepared, false);
  assert.equal(caRotation(s("Bogus")), undefined);
  assert.equal(caRotation({}), undefined);
});
