// A Shoot that goes away, moves to another seed, hibernates or loses SSH access takes its
// Bastions with it: the controller manager deletes the garden Bastions, the gardenlet and the
// provider remove what is in the seed. A Shoot's deletion completes only after its Bastions are gone.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { ANNOTATION_CONFIRMATION_FORCE_DELETION, type Shoot } from "../../../src/apis/gardencore/v1beta1/types.ts";
import { FINALIZER_BASTIONS, MESSAGE_STILL_BASTIONS } from "../../../src/controllermanager/controller/shoot/reconciler.ts";
import { reactedTo } from "../../support/controllers.ts";
import { eventually } from "../../support/http.ts";
import { isInvalid } from "../../../src/apimachinery/errors.ts";
import type { Client } from "../../../src/client/client.ts";
import { Bastions, Shoots } from "../../../src/client/garden.ts";
import { type Landscape, PROJECT_NS, bastionFor, createShoot, extensionOf, getOrUndefined, gone, ready, startLandscape, technicalID } from "./landscape.ts";

describe("bastions follow their shoot", () => {
  let ls: Landscape;
  let alice: Client;
  before(async () => {
    ls = await startLandscape();
    alice = await ls.clientFor("alice");
  });
  after(async () => {
    await ls?.stop();
  });

  async function twoReadyBastions(shoot: string, finalizers?: string[]): Promise<void> {
    await createShoot(ls, shoot, { finalizers });
    await alice.create(Bastions, bastionFor(shoot, `${shoot}-1`));
    await alice.create(Bastions, bastionFor(shoot, `${shoot}-2`));
    await ready(ls, `${shoot}-1`);
    await ready(ls, `${shoot}-2`);
  }

  async function bothGone(shoot: string): Promise<void> {
    await gone(ls, shoot, `${shoot}-1`);
    await gone(ls, shoot, `${shoot}-2`);
    for (const n of [`${shoot}-1`, `${shoot}-2`]) assert.equal(ls.actuator.count("delete", `${technicalID(shoot)}/${n}`), 1, `provider deleted ${n}`);
  }

  const patchShoot = (name: string, spec: Partial<Shoot["spec"]>) => ls.gardenAdmin.patch(Shoots, { namespace: PROJECT_NS, name }, { type: "merge", body: { spec } });
  // As on Gardener, a Shoot is only deleted once confirmed (DeletionConfirmation admission).
  const confirmDeletion = (name: string) =>
    ls.gardenAdmin.patch(Shoots, { namespace: PROJECT_NS, name }, { type: "merge", body: { metadata: { annotations: { "confirmation.gardener.cloud/deletion": "true" } } } });

  test("shoot deleted: its deletion waits for its Bastions (`shoot has still Bastions`), then completes", async () => {
    await twoReadyBastions("s-del");
    await eventually("the Shoot carries the bastions finalizer", async () => ((await getOrUndefined(ls.gardenAdmin, Shoots, "s-del"))?.metadata.finalizers?.includes(FINALIZER_BASTIONS) ? true : undefined));
    const release = ls.actuator.holdDeletion(`${technicalID("s-del")}/s-del-1`);
    try {
      await confirmDeletion("s-del");
      await ls.gardenAdmin.delete(Shoots, { namespace: PROJECT_NS, name: "s-del" });
      await gone(ls, "s-del", "s-del-2");
      const waiting = await eventually("the Shoot says why it waits", async () => {
        const shoot = await getOrUndefined(ls.gardenAdmin, Shoots, "s-del");
        return (shoot?.status?.lastErrors as { description: string }[] | undefined)?.some((e) => e.description === MESSAGE_STILL_BASTIONS) ? shoot : undefined;
      });
      assert.ok(waiting.metadata.deletionTimestamp, "in deletion, not gone: s-del-1 still exists");
      assert.ok(await getOrUndefined(ls.gardenAdmin, Bastions, "s-del-1"));
    } finally {
      release();
    }
    await gone(ls, "s-del", "s-del-1");
    await eventually("the Shoot gone once its last Bastion is", async () => ((await getOrUndefined(ls.gardenAdmin, Shoots, "s-del")) === undefined ? true : undefined));
  });

  test("shoot force-deleted: its Bastions get the force-deletion confirmation", async () => {
    await twoReadyBastions("s-force");
    const release = ls.actuator.holdDeletion(`${technicalID("s-force")}/s-force-1`);
    try {
      const annotations = { [ANNOTATION_CONFIRMATION_FORCE_DELETION]: "true", "confirmation.gardener.cloud/deletion": "true" };
      await ls.gardenAdmin.patch(Shoots, { namespace: PROJECT_NS, name: "s-force" }, { type: "merge", body: { metadata: { annotations } } });
      await ls.gardenAdmin.delete(Shoots, { namespace: PROJECT_NS, name: "s-force" });
      await eventually("the remaining Bastion confirmed for force deletion", async () => {
        const b = await getOrUndefined(ls.gardenAdmin, Bastions, "s-force-1");
        return b === undefined || b.metadata.annotations?.[ANNOTATION_CONFIRMATION_FORCE_DELETION] === "true" ? true : undefined;
      });
    } finally {
      release();
    }
    await gone(ls, "s-force", "s-force-1");
    await eventually("the Shoot gone", async () => ((await getOrUndefined(ls.gardenAdmin, Shoots, "s-force")) === undefined ? true : undefined));
  });

  test("shoot moved to another seed (bastions are never migrated)", async () => {
    await twoReadyBastions("s-move");
    await patchShoot("s-move", { seedName: "b" });
    await bothGone("s-move");
  });

  test("shoot hibernated; new bastions are refused", async () => {
    await twoReadyBastions("s-hib");
    await patchShoot("s-hib", { hibernation: { enabled: true } });
    await bothGone("s-hib");
    await assert.rejects(alice.create(Bastions, bastionFor("s-hib", "s-hib-3")), (err) => isInvalid(err) && /shoot is hibernated/.test(String(err)));
  });

  test("SSH access disabled; new bastions are refused", async () => {
    await twoReadyBastions("s-ssh");
    await patchShoot("s-ssh", { provider: { type: "local", workers: [{ name: "worker", minimum: 1, maximum: 2 }], workersSettings: { sshAccess: { enabled: false } } } });
    await bothGone("s-ssh");
    await assert.rejects(alice.create(Bastions, bastionFor("s-ssh", "s-ssh-3")), (err) => isInvalid(err) && /ssh access is disabled for worker nodes/.test(String(err)));
    assert.equal(await extensionOf(ls, "s-ssh", "s-ssh-3"), undefined);
  });

  test("other shoot changes leave bastions alone", async () => {
    await createShoot(ls, "s-calm");
    await alice.create(Bastions, bastionFor("s-calm", "calm"));
    await ready(ls, "calm");
    const changed = await patchShoot("s-calm", { maintenance: { timeWindow: { begin: "220000+0000", end: "230000+0000" } } });
    await reactedTo([ls.gcm.manager, ls.gardenlet.manager], Shoots, changed);
    const b = await getOrUndefined(ls.gardenAdmin, Bastions, "calm");
    assert.equal(b?.metadata.deletionTimestamp, undefined, "an unrelated shoot change leaves the garden Bastion alone");
    const e = await extensionOf(ls, "s-calm", "calm");
    assert.ok(e && !e.metadata.deletionTimestamp, "and its extension Bastion in the seed");
    assert.equal(ls.actuator.count("delete", `${technicalID("s-calm")}/calm`), 0);
    assert.ok(await ready(ls, "calm"));
  });
});
