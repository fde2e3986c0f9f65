import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ANNOTATION_HA_VPN, isHibernated, isSSHAccessEnabled, isVpnHighlyAvailable, providerTypeOf, seedNameOf, technicalIDOf } from "./shoot.ts";

const worker = { name: "w1", minimum: 1, maximum: 2, machine: { type: "local" } };
const shoot = (provider: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ spec: { provider: { type: "local", ...provider }, ...extra } });

describe("Shoot predicates (docs/bastion.md#vocabulary)", () => {
  it("enables SSH access only with workers and without sshAccess.enabled=false", () => {
    assert.equal(isSSHAccessEnabled(shoot({ workers: [worker] })), true);
    assert.equal(isSSHAccessEnabled(shoot({ workers: [worker], workersSettings: {} })), true);
    assert.equal(isSSHAccessEnabled(shoot({ workers: [worker], workersSettings: { sshAccess: {} } })), true);
    assert.equal(isSSHAccessEnabled(shoot({ workers: [worker], workersSettings: { sshAccess: { enabled: true } } })), true);
    assert.equal(isSSHAccessEnabled(shoot({ workers: [worker], workersSettings: { sshAccess: { enabled: false } } })), false);
    assert.equal(isSSHAccessEnabled(shoot({ workers: [] })), false, "workerless");
    assert.equal(isSSHAccessEnabled(shoot({})), false, "workerless");
    assert.equal(isSSHAccessEnabled({}), false);
  });

  it("reads hibernation, seed, provider type and technical ID with defaults", () => {
    assert.equal(isHibernated(shoot({}, { hibernation: { enabled: true } })), true);
    assert.equal(isHibernated(shoot({}, { hibernation: {} })), false);
    assert.equal(isHibernated(shoot({})), false);
    assert.equal(seedNameOf(shoot({}, { seedName: "local" })), "local");
    assert.equal(seedNameOf(shoot({})), "");
    assert.equal(providerTypeOf(shoot({})), "local");
    assert.equal(technicalIDOf({ status: { technicalID: "shoot--dev--a" } }), "shoot--dev--a");
    assert.equal(technicalIDOf({}), "");
  });
});

describe("the reversed VPN's high availability (docs/reversed-vpn.md#high-availability)", () => {
  const shoot = (annotation: string | undefined, type?: string) => ({
    metadata: { name: "s", ...(annotation !== undefined ? { annotations: { [ANNOTATION_HA_VPN]: annotation } } : {}) },
    spec: { ...(type ? { controlPlane: { highAvailability: { failureTolerance: { type } } } } : {}) },
  });
  it("follows the failure tolerance (node, zone), and the annotation's true or false overrides it", () => {
    assert.deepEqual([undefined, "node", "zone", "other"].map((t) => isVpnHighlyAvailable(shoot(undefined, t))), [false, true, true, false]);
    assert.equal(isVpnHighlyAvailable(shoot("true")), true);
    assert.equal(isVpnHighlyAvailable(shoot("false", "zone")), false);
    assert.equal(isVpnHighlyAvailable(shoot("yes", "zone")), true, "anything else is no override");
    assert.equal(isVpnHighlyAvailable({}), false);
  });
});
