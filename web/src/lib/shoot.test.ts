import assert from "node:assert/strict";
import { test } from "node:test";
import { readiness, statusKind, statusTitle } from "./shoot.ts";

test("the status title is Gardener's: hibernation first, then the last operation (none: Create Pending)", () => {
  assert.equal(statusTitle({}), "Create Pending");
  assert.equal(statusTitle({ lastOperation: { type: "Reconcile", state: "Succeeded", progress: 100 } }), "Reconcile Succeeded");
  assert.equal(statusTitle({ lastOperation: { type: "Create", state: "Processing", progress: 40 } }), "Create Processing (40%)");
  assert.equal(statusTitle({ hibernated: true, statusHibernated: true, lastOperation: { type: "Reconcile", state: "Succeeded" } }), "Hibernated, Reconcile Succeeded");
  assert.equal(statusTitle({ hibernated: true, statusHibernated: false, lastOperation: { type: "Reconcile", state: "Processing", progress: 10 } }), "Hibernating, Reconcile Processing (10%)");
  assert.equal(statusTitle({ hibernated: false, statusHibernated: true }), "Waking up, Create Pending");
  assert.equal(statusTitle({ reconciliationDeactivated: true, lastOperation: { type: "Reconcile", state: "Failed" } }), "Reconciliation Deactivated");
});

test("the status kind: failed or with errors, processing, pending, else ok", () => {
  assert.equal(statusKind({ lastOperation: { state: "Failed" } }), "error");
  assert.equal(statusKind({ lastOperation: { state: "Succeeded" }, lastErrors: 1 }), "error");
  assert.equal(statusKind({ lastOperation: { state: "Processing" } }), "progressing");
  assert.equal(statusKind({}), "pending");
  assert.equal(statusKind({ lastOperation: { state: "Succeeded" } }), "ok");
});

test("readiness: Gardener's short names in its order, others named from their type", () => {
  const chips = readiness([
    { type: "SystemComponentsHealthy", status: "True", reason: "SystemComponentsRunning", message: "All system components are healthy." },
    { type: "VPNTunnelReady", status: "Unknown" },
    { type: "APIServerAvailable", status: "False", reason: "HealthzRequestFailed" },
    { type: "EveryNodeReady", status: "Progressing" },
  ]);
  assert.deepEqual(chips.map((c) => [c.short, c.status]), [["API", "False"], ["N", "Progressing"], ["SC", "True"], ["VT", "Unknown"]]);
  assert.equal(chips[2]!.title, "System Components: True (SystemComponentsRunning: All system components are healthy.)");
  assert.equal(chips[3]!.name, "VPN Tunnel");
  assert.deepEqual(readiness(undefined), []);
});
