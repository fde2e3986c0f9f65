import { test } from "node:test";
import assert from "node:assert/strict";
import type { ExtensionBastion } from "../../../apis/extensions/v1alpha1/types.ts";
import type { Bastion } from "../../../apis/operations/v1alpha1/types.ts";
import { bastionUserDataBase64 } from "../../../api/extensions/userdata.ts";
import { desiredSpec, hostKeysOf, ingressPatch, observe } from "./extension.ts";
import { extensionBastionPredicate } from "./predicates.ts";

const KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGmBXj9jDWSGpeJtyBE4w5aC3Jx0m6wwpQpEPRpJdKQK me@host";

function garden(): Bastion {
  return {
    metadata: { name: "b", namespace: "garden-p", generation: 1 },
    spec: { shootRef: { name: "s" }, providerType: "local", sshPublicKey: KEY, ingress: [{ ipBlock: { cidr: "10.0.0.0/8", except: ["10.1.0.0/16"] } }, { ipBlock: { cidr: "::/0" } }] },
  };
}

function ext(mut: (e: ExtensionBastion) => void = () => undefined): ExtensionBastion {
  const d = desiredSpec(garden());
  const e: ExtensionBastion = {
    metadata: { name: "b", namespace: "shoot--p--s" },
    spec: { ...d },
    status: { lastOperation: { type: "Create", state: "Succeeded", progress: 100, description: "ok", lastUpdateTime: "2026-01-01T00:00:00Z" } },
  };
  mut(e);
  return e;
}

test("the desired spec: provider type, userData of the key, ingress blocks with except", () => {
  const d = desiredSpec(garden());
  assert.equal(d.type, "local");
  assert.equal(d.userData, bastionUserDataBase64(KEY));
  assert.deepEqual(d.ingress, [{ ipBlock: { cidr: "10.0.0.0/8", except: ["10.1.0.0/16"] } }, { ipBlock: { cidr: "::/0" } }]);
  const noType = garden();
  delete noType.spec.providerType;
  assert.throws(() => desiredSpec(noType), /has no spec.providerType/);
});

test("observing the extension: create, patch and the errors it reports", () => {
  const d = desiredSpec(garden());
  assert.deepEqual(observe(undefined, d), { mustCreate: true, mustPatch: false });
  assert.deepEqual(observe(ext(), d), { mustCreate: false, mustPatch: false });
  assert.deepEqual(observe(ext((e) => (e.spec.ingress = [{ ipBlock: { cidr: "1.2.3.4/32" } }])), d), { mustCreate: false, mustPatch: true });
  assert.deepEqual(observe(ext((e) => (e.spec.providerConfig = { a: 1 })), d).mustPatch, true);
  assert.deepEqual(observe(ext((e) => delete e.status), d), { mustCreate: false, mustPatch: false, observedError: "extension did not record a last operation yet" });
  const withError = ext((e) => {
    e.status!.lastOperation!.state = "Error";
    e.status!.lastError = { description: "Error reconciling Bastion: boom" };
  });
  assert.deepEqual(observe(withError, d), { mustCreate: false, mustPatch: false, observedError: "error during reconciliation: Error reconciling Bastion: boom" });
  const misconfigured = ext((e) => {
    e.status!.lastOperation!.state = "Error";
    e.status!.lastError = { description: "no free address", codes: ["ERR_CONFIGURATION_PROBLEM"] };
  });
  assert.deepEqual(observe(misconfigured, d), { mustCreate: false, mustPatch: false, observedError: "error during reconciliation: no free address", observedCodes: ["ERR_CONFIGURATION_PROBLEM"] });
  const failed = ext((e) => (e.status!.lastOperation!.state = "Failed"));
  assert.deepEqual(observe(failed, d), { mustCreate: false, mustPatch: true, observedError: "extension state is not Succeeded but Failed" });
  assert.deepEqual(observe(ext((e) => (e.status!.lastOperation!.state = "Processing")), d), { mustCreate: false, mustPatch: false });
});

test("status fields copied back: host keys only as a string list, ingress replaced wholly", () => {
  assert.deepEqual(hostKeysOf(ext((e) => (e.status!.providerStatus = { sshHostKeys: ["ssh-ed25519 AAAA"] }))), ["ssh-ed25519 AAAA"]);
  assert.equal(hostKeysOf(ext((e) => (e.status!.providerStatus = { sshHostKeys: [1] }))), undefined);
  assert.equal(hostKeysOf(ext((e) => (e.status!.providerStatus = { sshHostKeys: "x" }))), undefined);
  assert.equal(hostKeysOf(ext()), undefined);
  assert.deepEqual(ingressPatch({ ip: "1.2.3.4" }), { ip: "1.2.3.4", hostname: null, ipMode: null, ports: null });
  assert.equal(ingressPatch(undefined), null);
});

test("extension events that wake the gardenlet", () => {
  const p = extensionBastionPredicate();
  const succeeded = ext();
  const processing = ext((e) => (e.status!.lastOperation!.state = "Processing"));
  assert.equal(p.create!(succeeded), false);
  assert.equal(p.create!(ext((e) => (e.status!.lastOperation!.state = "Failed"))), true);
  const failedButAsked = ext((e) => {
    e.status!.lastOperation!.state = "Failed";
    e.metadata.annotations = { "gardener.cloud/operation": "reconcile" };
  });
  assert.equal(p.create!(failedButAsked), false);
  assert.equal(p.update!(processing, succeeded), true);
  assert.equal(p.update!(succeeded, structuredClone(succeeded)), false, "lastOperation unchanged");
  assert.equal(p.update!(succeeded, processing), false, "Processing is not interesting");
  const errored = ext((e) => (e.status!.lastOperation!.state = "Error"));
  assert.equal(p.update!(processing, errored), true);
  const stillAsked = ext((e) => (e.metadata.annotations = { "gardener.cloud/operation": "reconcile" }));
  assert.equal(p.update!(processing, stillAsked), false, "not picked up yet");
  assert.equal(p.delete!(succeeded), true);
});
