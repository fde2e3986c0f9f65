import assert from "node:assert/strict";
import { beforeEach, describe, it } from "node:test";
import { SEEDS_GROUP } from "../../apis/gardencore/v1beta1/types.ts";
import type { KubeObject } from "../../apis/meta/v1/types.ts";
import { seedUserName } from "../../api/gardencore/identity.ts";
import { StatusError } from "../../apimachinery/errors.ts";
import type { AdmissionAttributes, Operation } from "../../apiserver/admission/types.ts";
import { FakeClient } from "../../apiserver/authorization/testing/fake-client.ts";
import type { InternalClient } from "../../apiserver/registry/client.ts";
import { FakeClock } from "../../utils/clock.ts";
import { gardenDefinitions } from "../../apiserver/registry/garden.ts";
import { BastionAdmission, mergeOwnerReferences } from "./admission.ts";

const defs = gardenDefinitions({ clock: new FakeClock() });
const bastionDef = defs.find((d) => d.plural === "bastions")!;
const shootDef = defs.find((d) => d.plural === "shoots")!;
const SHOOTS = { group: "core.gardener.cloud", resource: "shoots" };
const NS = "garden-dev";
const alice = { username: "alice", groups: ["system:authenticated"] };
const gardenlet = (seed: string) => ({ username: seedUserName(seed), groups: [SEEDS_GROUP, "system:authenticated"] });

const shoot = (spec: Record<string, unknown> = {}, meta: Record<string, unknown> = {}): KubeObject => ({
  metadata: { name: "local", namespace: NS, uid: "shoot-uid", ...meta },
  spec: { seedName: "seed-1", provider: { type: "local", workers: [{ name: "w1" }] }, ...spec },
});

const bastion = (spec: Record<string, unknown> = {}, meta: Record<string, unknown> = {}): KubeObject => ({
  apiVersion: "operations.gardener.cloud/v1alpha1",
  kind: "Bastion",
  metadata: { name: "cli-1", namespace: NS, ...meta },
  spec: { shootRef: { name: "local" }, sshPublicKey: "k", ingress: [{ ipBlock: { cidr: "1.2.3.4/32" } }], ...spec },
});

function attrs(operation: Operation, object: KubeObject | undefined, extra: Partial<AdmissionAttributes> = {}): AdmissionAttributes {
  return { operation, resource: bastionDef, subresource: "", namespace: NS, name: "cli-1", user: alice, dryRun: false, ...(object ? { object } : {}), ...extra };
}

let client: FakeClient;
beforeEach(() => {
  client = new FakeClient();
});

async function rejection(plugin: BastionAdmission, a: AdmissionAttributes, c: InternalClient = client): Promise<StatusError> {
  try {
    await plugin.admit(a, c);
  } catch (err) {
    assert.ok(err instanceof StatusError, String(err));
    return err;
  }
  assert.fail("expected a rejection");
}

describe("admission plugin Bastion (docs/bastion.md#admission)", () => {
  it("binds a new Bastion to the shoot's seed and provider, records the creator and owns it by the shoot", async () => {
    await client.create(SHOOTS, shoot());
    const obj = bastion({ seedName: "evil", providerType: "x" }, {
      annotations: { "gardener.cloud/created-by": "mallory" },
      ownerReferences: [{ apiVersion: "v1", kind: "ConfigMap", name: "cm", uid: "cm-uid" }],
    });
    await new BastionAdmission().admit(attrs("CREATE", obj), client);
    const spec = obj.spec as Record<string, unknown>;
    assert.equal(spec.seedName, "seed-1");
    assert.equal(spec.providerType, "local");
    assert.equal(obj.metadata.annotations?.["gardener.cloud/created-by"], "alice");
    assert.deepEqual(obj.metadata.ownerReferences, [
      { apiVersion: "v1", kind: "ConfigMap", name: "cm", uid: "cm-uid" },
      { apiVersion: "core.gardener.cloud/v1beta1", kind: "Shoot", name: "local", uid: "shoot-uid", controller: true, blockOwnerDeletion: true },
    ]);
  });

  it("never moves a Bastion on update and keeps existing owner references", async () => {
    await client.create(SHOOTS, shoot({ seedName: "seed-2", provider: { type: "other", workers: [{ name: "w" }] } }));
    const old = bastion({ seedName: "seed-1", providerType: "local" }, { annotations: { "gardener.cloud/created-by": "alice" } });
    const ref = { apiVersion: "core.gardener.cloud/v1beta1", kind: "Shoot", name: "local", uid: "shoot-uid", controller: true, blockOwnerDeletion: true };
    const obj = bastion({ seedName: "seed-9" }, { ownerReferences: [ref] });
    await new BastionAdmission().admit(attrs("UPDATE", obj, { oldObject: old }), client);
    assert.equal((obj.spec as Record<string, unknown>).seedName, "seed-1");
    assert.equal((obj.spec as Record<string, unknown>).providerType, "local");
    assert.deepEqual(obj.metadata.ownerReferences, [ref]);
    assert.equal(obj.metadata.annotations, undefined, "the creator annotation is only set on create");
  });

  it("passes other kinds, subresources and operations untouched, even when not ready", async () => {
    const plugin = new BastionAdmission({ ready: () => false });
    const obj = bastion({ shootRef: { name: "" } });
    await plugin.admit(attrs("CREATE", obj, { subresource: "status" }), client);
    await plugin.admit(attrs("DELETE", undefined), client);
    await plugin.admit(attrs("CREATE", shoot(), { resource: shootDef }), client);
    assert.deepEqual(obj, bastion({ shootRef: { name: "" } }));
    assert.equal(client.calls.get, undefined);
  });

  it("answers in the guard order with the exact messages", async () => {
    const plugin = new BastionAdmission();
    // 1. not ready
    let err = await rejection(new BastionAdmission({ ready: () => false }), attrs("CREATE", bastion({ shootRef: { name: "" } })));
    assert.deepEqual([err.code, err.message], [403, 'bastions.operations.gardener.cloud "cli-1" is forbidden: not yet ready to handle request']);
    // 2. not a Bastion
    err = await rejection(plugin, attrs("CREATE", { kind: "Shoot", metadata: {} }));
    assert.deepEqual([err.code, err.message], [400, "could not convert object to Bastion"]);
    // 3. no shoot (wins over the ingress rule and a missing Shoot)
    err = await rejection(plugin, attrs("UPDATE", bastion({ shootRef: { name: "" }, ingress: [] }), { oldObject: bastion() }));
    assert.deepEqual([err.code, err.message], [422, 'Bastion.operations.gardener.cloud "cli-1" is invalid: spec.shootRef.name: Required value: shoot is required']);
    assert.deepEqual(err.details?.causes, [{ reason: "FieldValueRequired", message: "Required value: shoot is required", field: "spec.shootRef.name" }]);
    // 4. ingress changed by someone else than the creator (checked before reading the Shoot)
    const old = bastion({}, { annotations: { "gardener.cloud/created-by": "bob" } });
    err = await rejection(plugin, attrs("UPDATE", bastion({ ingress: [{ ipBlock: { cidr: "0.0.0.0/0" } }] }), { oldObject: old }));
    assert.deepEqual([err.code, err.message], [
      403,
      'bastions.operations.gardener.cloud "cli-1" is forbidden: only the creator of this bastion (bob) may change spec.ingress',
    ]);
    err = await rejection(plugin, attrs("UPDATE", bastion({ ingress: [{ ipBlock: { cidr: "0.0.0.0/0" } }] }), { oldObject: bastion() }));
    assert.match(err.message, /only the creator of this bastion \(\) may change spec\.ingress$/);
    // 5. shoot missing (CREATE and UPDATE) or unreadable
    err = await rejection(plugin, attrs("CREATE", bastion()));
    assert.deepEqual([err.code, err.message], [422, 'Bastion.operations.gardener.cloud "cli-1" is invalid: spec.shootRef.name: Invalid value: "local": shoot garden-dev/local not found']);
    err = await rejection(plugin, attrs("UPDATE", bastion(), { oldObject: bastion() }));
    assert.equal(err.code, 422);
    // ... but a Bastion being deleted may still drop its finalizers when its Shoot is gone.
    const deleting = bastion({}, { finalizers: [] });
    const storedDeleting = bastion({ seedName: "seed-1" }, { deletionTimestamp: "2026-01-01T00:00:00Z", finalizers: ["gardener"] });
    await plugin.admit(attrs("UPDATE", deleting, { oldObject: storedDeleting, user: gardenlet("seed-1") }), client);
    const broken = { ...client, get: () => Promise.reject(new Error("etcd is down")) } as unknown as InternalClient;
    err = await rejection(plugin, attrs("CREATE", bastion()), broken);
    assert.deepEqual([err.code, err.message], [500, "Internal error occurred: could not get shoot garden-dev/local: etcd is down"]);
  });

  it("refuses shoots in deletion, unscheduled, hibernated or without SSH access, in that order", async () => {
    const plugin = new BastionAdmission();
    const detail = async (s: KubeObject, op: Operation = "CREATE", b: KubeObject = bastion()) => {
      client = new FakeClient();
      await client.create(SHOOTS, s);
      const err = await rejection(plugin, attrs(op, b, op === "UPDATE" ? { oldObject: bastion() } : {}));
      assert.equal(err.code, 422);
      assert.deepEqual(err.details?.causes?.map((c) => [c.field, c.reason]), [["spec.shootRef.name", "FieldValueInvalid"]]);
      return err.message.replace(/^.*Invalid value: "local": /, "");
    };
    const noSSH = { provider: { type: "local", workers: [{ name: "w" }], workersSettings: { sshAccess: { enabled: false } } } };
    const deleting = { deletionTimestamp: "2026-01-01T00:00:00Z" };
    assert.equal(await detail(shoot({ seedName: "", hibernation: { enabled: true }, ...noSSH }, deleting)), "shoot is in deletion");
    assert.equal(await detail(shoot({ seedName: "", hibernation: { enabled: true }, ...noSSH })), "shoot is not yet assigned to a seed");
    assert.equal(await detail(shoot({ hibernation: { enabled: true }, ...noSSH })), "shoot is hibernated");
    assert.equal(await detail(shoot(noSSH)), "ssh access is disabled for worker nodes");
    assert.equal(await detail(shoot({ provider: { type: "local", workers: [] } })), "ssh access is disabled for worker nodes");
    // On UPDATE deletion and hibernation do not matter, seed and SSH access do.
    assert.equal(await detail(shoot({ hibernation: { enabled: true }, ...noSSH }, deleting), "UPDATE"), "ssh access is disabled for worker nodes");
    assert.equal(await detail(shoot({ seedName: "" }), "UPDATE"), "shoot is not yet assigned to a seed");
  });

  it("lets Bastions being deleted be updated when SSH access is off, so finalizers can go", async () => {
    await client.create(SHOOTS, shoot({ hibernation: { enabled: true }, provider: { type: "local", workers: [] } }, { deletionTimestamp: "2026-01-01T00:00:00Z" }));
    const old = bastion({ seedName: "seed-1", providerType: "local" }, { finalizers: ["gardener"], deletionTimestamp: "2026-01-01T00:00:00Z" });
    const obj = bastion({}, { deletionTimestamp: "2026-01-01T00:00:00Z" });
    await new BastionAdmission().admit(attrs("UPDATE", obj, { oldObject: old, user: gardenlet("seed-1") }), client);
    assert.equal((obj.spec as Record<string, unknown>).seedName, "seed-1");
  });

  it("lets the creator change the ingress", async () => {
    await client.create(SHOOTS, shoot());
    const old = bastion({}, { annotations: { "gardener.cloud/created-by": "alice" } });
    await new BastionAdmission().admit(attrs("UPDATE", bastion({ ingress: [{ ipBlock: { cidr: "5.6.7.8/32" } }] }), { oldObject: old }), client);
    // A semantically equal ingress is no change, whoever sends it.
    const bob = { username: "bob", groups: [] };
    await new BastionAdmission().admit(attrs("UPDATE", bastion({ ingress: [{ ipBlock: { cidr: "1.2.3.4/32", except: [] } }] }), { oldObject: old, user: bob }), client);
  });

  describe("decides UPDATEs from the stored object, never from the request's claims", () => {
    const noSSH = { provider: { type: "local", workers: [{ name: "w" }], workersSettings: { sshAccess: { enabled: false } } } };
    const claimsDeletion = { deletionTimestamp: "2026-01-01T00:00:00Z" };
    const stored = (spec: Record<string, unknown> = {}, meta: Record<string, unknown> = {}) =>
      bastion({ seedName: "seed-1", providerType: "local", ...spec }, { annotations: { "gardener.cloud/created-by": "alice" }, ...meta });

    it("a claimed deletionTimestamp lets no keepalive through when SSH access is off", async () => {
      await client.create(SHOOTS, shoot(noSSH));
      const keepalive = bastion({}, { ...claimsDeletion, annotations: { "gardener.cloud/operation": "keepalive" } });
      const err = await rejection(new BastionAdmission(), attrs("UPDATE", keepalive, { oldObject: stored() }));
      assert.equal(err.code, 422);
      assert.match(err.message, /ssh access is disabled for worker nodes$/);
    });

    it("a claimed deletionTimestamp does not make a Bastion of a deleted shoot updatable, nor movable", async () => {
      const moved = bastion({ seedName: "seed-2", providerType: "other" }, claimsDeletion);
      const err = await rejection(new BastionAdmission(), attrs("UPDATE", moved, { oldObject: stored() }));
      assert.match(err.message, /shoot garden-dev\/local not found$/);
    });

    it("a Bastion being deleted whose shoot is gone keeps its seed, provider and owners", async () => {
      const ref = { apiVersion: "core.gardener.cloud/v1beta1", kind: "Shoot", name: "local", uid: "shoot-uid", controller: true, blockOwnerDeletion: true };
      const obj = bastion({ seedName: "seed-2", providerType: "other" }, { finalizers: ["gardener"], ownerReferences: [{ apiVersion: "v1", kind: "ConfigMap", name: "x", uid: "x" }] });
      await new BastionAdmission().admit(attrs("UPDATE", obj, { oldObject: stored({}, { ...claimsDeletion, ownerReferences: [ref] }) }), client);
      assert.deepEqual([(obj.spec as Record<string, unknown>).seedName, (obj.spec as Record<string, unknown>).providerType], ["seed-1", "local"]);
      assert.deepEqual(obj.metadata.ownerReferences, [ref]);
    });

    it("a changed shootRef is not looked at: the stored shoot decides", async () => {
      await client.create(SHOOTS, shoot(noSSH));
      await client.create(SHOOTS, { ...shoot(), metadata: { name: "open", namespace: NS, uid: "open-uid" } });
      const err = await rejection(new BastionAdmission(), attrs("UPDATE", bastion({ shootRef: { name: "open" } }), { oldObject: stored() }));
      assert.match(err.message, /spec\.shootRef\.name: Invalid value: "local": ssh access is disabled for worker nodes$/);
    });

    it("a claimed creator annotation does not make someone the creator", async () => {
      await client.create(SHOOTS, shoot());
      const obj = bastion({ ingress: [{ ipBlock: { cidr: "0.0.0.0/0" } }] }, { annotations: { "gardener.cloud/created-by": "bob" } });
      const err = await rejection(new BastionAdmission(), attrs("UPDATE", obj, { oldObject: stored(), user: { username: "bob", groups: [] } }));
      assert.equal(err.code, 403);
    });

    it("only the gardenlet of the stored seed (or system:masters) may remove finalizer gardener", async () => {
      await client.create(SHOOTS, shoot());
      const plugin = new BastionAdmission();
      const release = (user: AdmissionAttributes["user"], spec: Record<string, unknown> = {}) =>
        plugin.admit(attrs("UPDATE", bastion(spec, { finalizers: ["other"] }), { oldObject: stored({}, { ...claimsDeletion, finalizers: ["gardener"] }), user }), client);
      let err = await release(alice).then(() => undefined, (e: StatusError) => e);
      assert.deepEqual([err?.code, err?.message], [403, 'bastions.operations.gardener.cloud "cli-1" is forbidden: only the gardenlet of seed seed-1 may remove finalizer gardener']);
      err = await release(gardenlet("seed-2"), { seedName: "seed-2" }).then(() => undefined, (e: StatusError) => e);
      assert.equal(err?.code, 403, "claiming the other seed in the request does not help");
      await release(gardenlet("seed-1"));
      await release({ username: "admin", groups: ["system:masters"] });
      // Other finalizers stay anyone's to change.
      await plugin.admit(attrs("UPDATE", bastion({}, { finalizers: ["gardener"] }), { oldObject: stored({}, { finalizers: ["gardener", "other"] }) }), client);
    });
  });

  it("merges owner references by uid", () => {
    const a = { apiVersion: "v1", kind: "A", name: "a", uid: "1" };
    const b = { apiVersion: "v1", kind: "B", name: "b", uid: "2" };
    assert.deepEqual(mergeOwnerReferences([a], { ...a, name: "changed" }, b), [a, b]);
    assert.deepEqual(mergeOwnerReferences(undefined, a), [a]);
  });
});
