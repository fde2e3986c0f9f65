import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { isHibernated, isSSHAccessEnabled, providerTypeOf, seedNameOf, technicalIDOf } from "./shoot.ts";

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
