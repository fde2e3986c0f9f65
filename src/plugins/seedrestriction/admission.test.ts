import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { KubeObject } from "../../apis/meta/v1/types.ts";
import { StatusError } from "../../apimachinery/errors.ts";
import type { AdmissionAttributes } from "../../apiserver/admission/types.ts";
import { FakeClient } from "../../apiserver/authorization/testing/fake-client.ts";
import { gardenDefinitions } from "../../apiserver/registry/garden.ts";
import { FakeClock } from "../../utils/clock.ts";
import { seedNameOfUser } from "../../api/gardencore/identity.ts";
import { SeedRestriction, admitBastion } from "./admission.ts";

const defs = gardenDefinitions({ clock: new FakeClock() });
const bastionDef = defs.find((d) => d.plural === "bastions")!;
const shootDef = defs.find((d) => d.plural === "shoots")!;
const gardenlet = (seed: string) => ({ username: `gardener.cloud:system:seed:${seed}`, groups: ["gardener.cloud:system:seeds", "system:authenticated"] });
const bastion = (seedName?: string): KubeObject => ({ metadata: { name: "b", namespace: "garden-dev" }, spec: seedName ? { seedName } : {} });
const attrs = (extra: Partial<AdmissionAttributes>): AdmissionAttributes => ({
  operation: "CREATE",
  resource: bastionDef,
  subresource: "",
  namespace: "garden-dev",
  name: "b",
  user: gardenlet("seed-1"),
  dryRun: false,
  ...extra,
});

async function status(p: Promise<void>): Promise<[number, string] | undefined> {
  try {
    await p;
    return undefined;
  } catch (err) {
    assert.ok(err instanceof StatusError);
    return [err.code, err.message];
  }
}

describe("SeedRestriction (docs/bastion.md#admission)", () => {
  const plugin = new SeedRestriction();
  const client = new FakeClient();

  it("lets a gardenlet create Bastions of its own seed only", async () => {
    assert.equal(await status(plugin.validate(attrs({ object: bastion("seed-1") }), client)), undefined);
    assert.deepEqual(await status(plugin.validate(attrs({ object: bastion("seed-2") }), client)), [403, "object does not belong to seed seed-1"]);
    assert.deepEqual(await status(plugin.validate(attrs({ object: bastion() }), client)), [403, "object does not belong to seed seed-1"]);
    assert.equal(client.calls.get, undefined);
  });

  it("ignores other users, kinds, operations and subresources", async () => {
    const user = { username: "alice", groups: ["system:authenticated"] };
    assert.equal(await status(plugin.validate(attrs({ user, object: bastion("x") }), client)), undefined);
    // The user name alone is not a gardenlet identity.
    assert.equal(await status(plugin.validate(attrs({ user: { username: "gardener.cloud:system:seed:seed-1", groups: [] }, object: bastion("x") }), client)), undefined);
    assert.equal(await status(plugin.validate(attrs({ resource: shootDef, object: bastion("x") }), client)), undefined);
    assert.equal(await status(plugin.validate(attrs({ operation: "UPDATE", object: bastion("x") }), client)), undefined);
    assert.equal(await status(plugin.validate(attrs({ subresource: "status", object: bastion("x") }), client)), undefined);
  });

  it("lets a gardenlet create only the key pair copies of its own seed's shoots", async () => {
    const secretDef = { ...bastionDef, group: "", version: "v1", kind: "Secret", plural: "secrets" };
    const shoots = new FakeClient();
    await shoots.create({ group: "core.gardener.cloud", resource: "shoots" }, { apiVersion: "core.gardener.cloud/v1beta1", kind: "Shoot", metadata: { name: "local", namespace: "garden-dev" }, spec: { seedName: "seed-1" } });
    const secret = (name: string) => attrs({ resource: secretDef, name, object: { metadata: { name, namespace: "garden-dev" } } });
    assert.equal(await status(plugin.validate(secret("local.ssh-keypair"), shoots)), undefined);
    assert.equal(await status(plugin.validate(secret("local.ssh-keypair.old"), shoots)), undefined);
    for (const name of ["other.ssh-keypair", "local.kubeconfig", "local"]) {
      assert.deepEqual(await status(plugin.validate(secret(name), shoots)), [403, "object does not belong to seed seed-1"], name);
    }
    assert.deepEqual(await status(plugin.validate({ ...secret("local.ssh-keypair"), user: gardenlet("seed-2") }, shoots)), [403, "object does not belong to seed seed-2"]);
  });

  it("refuses any other operation that reaches the Bastion rule", () => {
    assert.throws(() => admitBastion("seed-1", "UPDATE", bastion("seed-1")), (err: StatusError) => err.code === 400 && err.message === 'unexpected operation: "UPDATE"');
    assert.throws(() => admitBastion("seed-1", "DELETE", undefined), /unexpected operation: "DELETE"/);
  });

  it("recognises gardenlet identities by name and group", () => {
    assert.equal(seedNameOfUser(gardenlet("local")), "local");
    assert.equal(seedNameOfUser({ username: "gardener.cloud:system:seed:", groups: ["gardener.cloud:system:seeds"] }), undefined);
    assert.equal(seedNameOfUser({ username: "system:admin", groups: ["gardener.cloud:system:seeds"] }), undefined);
  });
});
