// The bastion control plane end to end with real garden and seed API servers: creation to
// Ready (ingress and host keys copied back), ingress changes, heartbeats and expiry on a fake
// clock, the maximum lifetime, deletion that waits for the provider, force deletion, and provider
// errors reported as BastionReady=False and recovered from.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import type { Bastion } from "../../../src/apis/operations/v1alpha1/types.ts";
import { bastionUserDataBase64 } from "../../../src/api/extensions/userdata.ts";
import { Bastions } from "../../../src/client/garden.ts";
import { eventually } from "../../support/http.ts";
import { HOST_KEY, ipFor } from "./actuator.ts";
import { type Landscape, PROJECT_NS, SSH_KEY, bastionFor, createShoot, extensionOf, getOrUndefined, gone, ready, startLandscape, technicalID } from "./landscape.ts";

const MIN = 60_000;
const H = 60 * MIN;

describe("bastion lifecycle", () => {
  let ls: Landscape;
  before(async () => {
    ls = await startLandscape({ maxLifetimeMs: 3 * H });
    await createShoot(ls, "s");
  });
  after(async () => {
    await ls?.stop();
  });

  test("create -> Ready with ingress and host keys copied back", async () => {
    const alice = await ls.clientFor("alice");
    const created = await alice.create(Bastions, bastionFor("s", "b1", ["203.0.113.0/24", "2001:db8::/32"]));
    assert.equal(created.spec.seedName, "a");
    assert.equal(created.spec.providerType, "local");
    const b = await ready(ls, "b1");
    assert.deepEqual(b.status?.ingress, { ip: ipFor("b1") });
    assert.deepEqual(b.status?.sshHostKeys, [HOST_KEY]);
    assert.deepEqual(b.metadata.finalizers, ["gardener"]);
    const c = b.status!.conditions![0]!;
    assert.deepEqual([c.type, c.status, c.reason, c.message], ["BastionReady", "True", "SuccessfullyReconciled", "The bastion has been reconciled successfully."]);

    const ext = (await extensionOf(ls, "s", "b1"))!;
    assert.equal(ext.metadata.namespace, technicalID("s"));
    assert.equal(ext.spec.type, "local");
    assert.equal(ext.spec.userData, bastionUserDataBase64(SSH_KEY));
    assert.deepEqual(ext.spec.ingress, [{ ipBlock: { cidr: "203.0.113.0/24" } }, { ipBlock: { cidr: "2001:db8::/32" } }]);
    assert.deepEqual(ext.metadata.finalizers, ["extensions.gardener.cloud/bastion"]);
    assert.equal(ext.metadata.annotations?.["gardener.cloud/operation"], undefined, "the extension consumed the reconcile request");
    assert.match(ext.metadata.annotations?.["gardener.cloud/timestamp"] ?? "", /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
    assert.equal(ext.status?.lastOperation?.state, "Succeeded");
    assert.equal(ext.status?.lastOperation?.type, "Create");
    assert.equal(ext.status?.lastOperation?.description, "Successfully reconciled Bastion");
  });

  test("the creator changes spec.ingress: the extension follows in place and the bastion is Ready again", async () => {
    const alice = await ls.clientFor("alice");
    await alice.create(Bastions, bastionFor("s", "b-ingress"));
    const first = await ready(ls, "b-ingress");
    const extBefore = (await extensionOf(ls, "s", "b-ingress"))!;
    const updated = await alice.patch(Bastions, { namespace: PROJECT_NS, name: "b-ingress" }, { type: "merge", body: { spec: { ingress: [{ ipBlock: { cidr: "198.51.100.7/32", except: [] } }, { ipBlock: { cidr: "10.0.0.0/8", except: ["10.1.0.0/16"] } }] } } });
    assert.equal(updated.metadata.generation, first.metadata.generation! + 1);
    const again = await ready(ls, "b-ingress");
    assert.equal(again.status?.observedGeneration, updated.metadata.generation);
    const ext = (await extensionOf(ls, "s", "b-ingress"))!;
    assert.equal(ext.metadata.uid, extBefore.metadata.uid, "patched, not recreated");
    assert.deepEqual(ext.spec.ingress, [{ ipBlock: { cidr: "198.51.100.7/32", except: [] } }, { ipBlock: { cidr: "10.0.0.0/8", except: ["10.1.0.0/16"] } }]);
    assert.deepEqual(ls.actuator.calls.filter((c) => c.key === `${technicalID("s")}/b-ingress`).map((c) => c.cidrs), [["203.0.113.0/24"], ["198.51.100.7/32", "10.0.0.0/8"]]);
    assert.equal(ext.status?.lastOperation?.type, "Reconcile");
  });

  test("a keepalive moves the expiration; without one the bastion is deleted once it expired", async () => {
    const alice = await ls.clientFor("alice");
    const start = ls.clock.nowMs();
    const kept = await alice.create(Bastions, bastionFor("s", "b-kept"));
    await alice.create(Bastions, bastionFor("s", "b-lapsed"));
    assert.equal(Date.parse(kept.status!.expirationTimestamp!), start + H);
    await ready(ls, "b-kept");
    await ready(ls, "b-lapsed");

    await step(ls, 50 * MIN);
    const beat = await alice.patch(Bastions, { namespace: PROJECT_NS, name: "b-kept" }, { type: "merge", body: { metadata: { annotations: { "gardener.cloud/operation": "keepalive" } } } });
    assert.equal(beat.metadata.annotations?.["gardener.cloud/operation"], undefined, "the server consumes the keepalive");
    assert.equal(Date.parse(beat.status!.lastHeartbeatTimestamp!), start + 50 * MIN);
    assert.equal(Date.parse(beat.status!.expirationTimestamp!), start + 110 * MIN);

    await step(ls, 10 * MIN); // exactly at b-lapsed's expiration: not yet expired
    assert.ok(await getOrUndefined(ls.gardenAdmin, Bastions, "b-lapsed"), "not deleted at the expiration instant");
    await step(ls, 1000);
    await gone(ls, "s", "b-lapsed");
    assert.ok(await getOrUndefined(ls.gardenAdmin, Bastions, "b-kept"), "the heartbeat kept b-kept alive");

    await step(ls, 50 * MIN);
    await gone(ls, "s", "b-kept");
    assert.equal(ls.actuator.count("delete", `${technicalID("s")}/b-kept`), 1, "the provider deleted its host");
  });

  test("the maximum lifetime ends a bastion however often it is kept alive", async () => {
    const alice = await ls.clientFor("alice");
    await alice.create(Bastions, bastionFor("s", "b-old"));
    await ready(ls, "b-old");
    for (let passed = 0; passed < 3 * H - 50 * MIN; passed += 50 * MIN) {
      await step(ls, 50 * MIN);
      await alice.patch(Bastions, { namespace: PROJECT_NS, name: "b-old" }, { type: "merge", body: { metadata: { annotations: { "gardener.cloud/operation": "keepalive" } } } });
    }
    // 150 min passed, heartbeat fresh (expires at 210 min); the lifetime ends at 180 min.
    await step(ls, 30 * MIN);
    assert.ok(await getOrUndefined(ls.gardenAdmin, Bastions, "b-old"), "alive exactly at its maximum lifetime");
    await step(ls, 1000);
    await gone(ls, "s", "b-old");
  });

  test("deletion waits for the provider; the garden bastion shows DeletionInProgress meanwhile", async () => {
    const alice = await ls.clientFor("alice");
    await alice.create(Bastions, bastionFor("s", "b-del"));
    await ready(ls, "b-del");
    const key = `${technicalID("s")}/b-del`;
    const release = ls.actuator.holdDeletion(key);
    await alice.delete(Bastions, { namespace: PROJECT_NS, name: "b-del" });
    const deleting = await eventually("DeletionInProgress", async () => {
      const b = await getOrUndefined<Bastion>(ls.gardenAdmin, Bastions, "b-del");
      return b?.status?.conditions?.[0]?.reason === "DeletionInProgress" && ls.actuator.count("delete", key) >= 2 ? b : undefined;
    });
    assert.deepEqual(deleting.metadata.finalizers, ["gardener"]);
    const c = deleting.status!.conditions![0]!;
    assert.deepEqual([c.status, c.message], ["False", "The bastion is being deleted."]);
    // Each retry writes Processing, then Error: wait for an attempt that has ended.
    const ext = await eventually("the extension's failed delete attempt", async () => {
      const e = await extensionOf(ls, "s", "b-del");
      return e?.status?.lastOperation?.state === "Error" ? e : undefined;
    });
    assert.ok(ext.metadata.deletionTimestamp);
    assert.equal(ext.status?.lastOperation?.type, "Delete");
    assert.equal(ext.status?.lastOperation?.description, "Error deleting Bastion: waiting for 1 bastion resources to be deleted");
    release();
    await gone(ls, "s", "b-del");
    assert.equal(ls.actuator.count("forceDelete", key), 0);
  });

  test("force deletion reaches the provider's ForceDelete", async () => {
    const alice = await ls.clientFor("alice");
    await alice.create(Bastions, bastionFor("s", "b-force"));
    await ready(ls, "b-force");
    const key = `${technicalID("s")}/b-force`;
    const release = ls.actuator.holdDeletion(key);
    try {
      await alice.delete(Bastions, { namespace: PROJECT_NS, name: "b-force" });
      await eventually("provider asked to delete", () => (ls.actuator.count("delete", key) > 0 ? true : undefined));
      await alice.patch(Bastions, { namespace: PROJECT_NS, name: "b-force" }, { type: "merge", body: { metadata: { annotations: { "confirmation.gardener.cloud/force-deletion": "true" } } } });
      await gone(ls, "s", "b-force");
      assert.equal(ls.actuator.count("forceDelete", key), 1);
    } finally {
      release();
    }
  });

  test("a provider error shows up as BastionReady=False with the provider's message, and recovers", async () => {
    const alice = await ls.clientFor("alice");
    const key = `${technicalID("s")}/b-err`;
    ls.actuator.fail(key, "quota exceeded for public IPs");
    await alice.create(Bastions, bastionFor("s", "b-err"));
    const failed = await eventually("BastionReady=False", async () => {
      const b = await getOrUndefined<Bastion>(ls.gardenAdmin, Bastions, "b-err");
      const c = b?.status?.conditions?.find((x) => x.type === "BastionReady");
      return c?.status === "False" ? c : undefined;
    });
    assert.equal(failed.reason, "FailedReconciling");
    assert.equal(
      failed.message,
      `Error while waiting for Bastion ${key} to become ready: error during reconciliation: Error reconciling Bastion: quota exceeded for public IPs`,
    );
    const ext = (await extensionOf(ls, "s", "b-err"))!;
    assert.equal(ext.status?.lastError?.description, "Error reconciling Bastion: quota exceeded for public IPs");
    ls.actuator.clearFailure(key);
    // The extension retries with backoff on its own; the success wakes the gardenlet.
    const b = await ready(ls, "b-err", 20_000);
    assert.deepEqual(b.status?.ingress, { ip: ipFor("b-err") });
    assert.equal(b.status?.conditions?.[0]?.reason, "SuccessfullyReconciled");
    assert.equal((await extensionOf(ls, "s", "b-err"))?.status?.lastError, undefined);
  });
});

/** Moves the fake clock (controller manager and garden timestamps) and waits until the controller manager is idle. */
async function step(ls: Landscape, ms: number): Promise<void> {
  ls.clock.step(ms);
  const q = ls.gcm.bastion.controller.queue;
  await eventually("controller manager idle", () => (q.len() === 0 && q.inFlight() === 0 ? true : undefined), 10_000, 10);
}
