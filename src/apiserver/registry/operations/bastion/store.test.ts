// The Bastion definition inside the real generic store (SQLite in memory): the strategy's
// generation and heartbeat rules survive the store's own bookkeeping.
import assert from "node:assert/strict";
import { afterEach, describe, it } from "node:test";
import type { KubeObject } from "../../../../apis/meta/v1/types.ts";
import { StatusError } from "../../../../apimachinery/errors.ts";
import { ed25519AuthorizedKey } from "../../../../api/operations/testing.ts";
import { FakeClock } from "../../../../utils/clock.ts";
import { AdmissionChain } from "../../../admission/chain.ts";
import { FakeClient } from "../../../authorization/testing/fake-client.ts";
import { BastionAdmission } from "../../../../plugins/bastion/admission.ts";
import { SeedRestriction } from "../../../../plugins/seedrestriction/admission.ts";
import { type TestStore, ctxFor, newTestStore } from "../../generic/testing/fixtures.ts";
import { bastionDefinition } from "./definition.ts";

const KEY = ed25519AuthorizedKey();
const NS = "garden-dev";
const body = (name: string, seedName?: string): KubeObject => ({
  apiVersion: "operations.gardener.cloud/v1alpha1",
  kind: "Bastion",
  metadata: { name, namespace: NS },
  spec: { shootRef: { name: "local" }, ...(seedName ? { seedName } : {}), sshPublicKey: KEY, ingress: [{ ipBlock: { cidr: "1.2.3.4/32" } }] },
});

let ts: TestStore | undefined;
afterEach(async () => {
  await ts?.storage.close();
  ts = undefined;
});

async function setup(admission?: { client: FakeClient }): Promise<TestStore & { clock: FakeClock }> {
  const clock = new FakeClock(Date.parse("2026-01-01T12:00:00Z"));
  const def = bastionDefinition({ ttlMs: 3_600_000, clock });
  ts = admission
    ? await newTestStore(def, { clock, admission: new AdmissionChain([new BastionAdmission(), new SeedRestriction()]), client: () => admission.client })
    : await newTestStore(def, { clock });
  return ts;
}

const status = (o: KubeObject) => o.status as { lastHeartbeatTimestamp?: string; expirationTimestamp?: string };

async function rejects(p: Promise<unknown>, code: number, message: RegExp): Promise<void> {
  await assert.rejects(p, (err: unknown) => err instanceof StatusError && err.code === code && message.test(err.message));
}

describe("Bastion in the generic store", () => {
  it("creates with generateName and the heartbeat, and keeps alive through merge patches", async () => {
    const { store, clock, ctx } = await setup();
    const created = (await store.create(ctx(NS), { ...body(""), metadata: { generateName: "cli-", namespace: NS } })).object;
    assert.match(created.metadata.name!, /^cli-[a-z0-9]{5}$/);
    assert.equal(created.metadata.generation, 1);
    assert.equal(status(created).expirationTimestamp, "2026-01-01T13:00:00Z");
    clock.step(30 * 60_000);
    const kept = (await store.patch(ctx(NS), created.metadata.name!, "merge", { metadata: { annotations: { "gardener.cloud/operation": "keepalive" } } })).object;
    assert.equal(kept.metadata.generation, 1);
    assert.equal(kept.metadata.annotations?.["gardener.cloud/operation"], undefined);
    assert.equal(status(kept).lastHeartbeatTimestamp, "2026-01-01T12:30:00Z");
    assert.equal(status(kept).expirationTimestamp, "2026-01-01T13:30:00Z");
  });

  it("bumps the generation for reconcile, ingress changes and deletion, not for keepalives", async () => {
    const { store, ctx } = await setup();
    await store.create(ctx(NS), { ...body("b1"), metadata: { name: "b1", namespace: NS, finalizers: ["gardener"] } });
    const patch = async (p: unknown) => (await store.patch(ctx(NS), "b1", "merge", p)).object;
    const reconciled = await patch({ metadata: { annotations: { "gardener.cloud/operation": "reconcile" } } });
    assert.equal(reconciled.metadata.generation, 2);
    assert.equal(reconciled.metadata.annotations?.["gardener.cloud/operation"], undefined);
    assert.equal((await patch({ spec: { ingress: [{ ipBlock: { cidr: "10.0.0.0/8" } }] } })).metadata.generation, 3);
    assert.equal((await patch({ metadata: { labels: { a: "b" } } })).metadata.generation, 3);
    const deleting = await store.delete(ctx(NS), "b1");
    assert.equal(deleting.object.metadata.generation, 4);
    assert.equal((await patch({ metadata: { annotations: { "confirmation.gardener.cloud/force-deletion": "true" } } })).metadata.generation, 5);
  });

  it("keeps the stored seed and provider, and the stored deletion state, whatever an update says", async () => {
    const { store, ctx } = await setup();
    await store.create(ctx(NS), { ...body("b1", "seed-1"), spec: { ...body("b1", "seed-1").spec as object, providerType: "local" } });
    const moved = (await store.patch(ctx(NS), "b1", "merge", { spec: { seedName: "seed-2", providerType: "other" } })).object;
    assert.deepEqual([(moved.spec as { seedName?: string }).seedName, (moved.spec as { providerType?: string }).providerType], ["seed-1", "local"]);
    const unset = (await store.patch(ctx(NS), "b1", "json", [{ op: "remove", path: "/spec/seedName" }])).object;
    assert.equal((unset.spec as { seedName?: string }).seedName, "seed-1");
    const claimed = (await store.patch(ctx(NS), "b1", "merge", { metadata: { deletionTimestamp: "2026-01-01T00:00:00Z", labels: { a: "b" } } })).object;
    assert.equal(claimed.metadata.deletionTimestamp, undefined);
    assert.equal(claimed.metadata.generation, 1);
  });

  it("requires a resourceVersion for PUT and answers 409 on a stale one", async () => {
    const { store, ctx } = await setup();
    const created = (await store.create(ctx(NS), body("b1"))).object;
    const { resourceVersion: _rv, ...meta } = created.metadata;
    await rejects(store.update(ctx(NS), "b1", { ...created, metadata: meta }), 422, /metadata\.resourceVersion: Invalid value: 0x0: must be specified for an update/);
    await store.update(ctx(NS), "b1", { ...created, metadata: { ...created.metadata, labels: { x: "1" } } });
    await rejects(store.update(ctx(NS), "b1", created), 409, /the object has been modified/);
  });

  it("guards /status writes: future heartbeats are refused, expiration always derived", async () => {
    const { store, ctx } = await setup();
    const created = (await store.create(ctx(NS), body("b1"))).object;
    await rejects(
      store.update(ctx(NS), "b1", { ...created, status: { lastHeartbeatTimestamp: "2026-01-01T12:00:05Z" } }, {}, "status"),
      422,
      /^Bastion\.operations\.gardener\.cloud "b1" is invalid: status\.lastHeartbeatTimestamp: Invalid value: "2026-01-01T12:00:05Z": last heartbeat must not be in the future$/,
    );
    const written = (await store.update(ctx(NS), "b1", { ...created, status: { lastHeartbeatTimestamp: "2026-01-01T11:00:00Z", expirationTimestamp: "2099-01-01T00:00:00Z" } }, {}, "status")).object;
    assert.equal(status(written).expirationTimestamp, "2026-01-01T12:00:00Z");
    assert.equal(written.metadata.generation, 1);
  });

  it("lists by spec.seedName (empty when unset) and spec.shootRef.name, and rejects other field labels", async () => {
    const { store, ctx } = await setup();
    await store.create(ctx(NS), body("a", "seed-1"));
    await store.create(ctx(NS), body("b", "seed-2"));
    await store.create(ctx(NS), body("c"));
    const names = async (fieldSelector: string) => (await store.list(ctx(), { fieldSelector })).items.map((o) => o.metadata.name);
    assert.deepEqual(await names("spec.seedName=seed-1"), ["a"]);
    assert.deepEqual(await names("spec.seedName="), ["c"]);
    assert.deepEqual(await names("spec.shootRef.name=local,spec.seedName!=seed-1"), ["b", "c"]);
    // docs/bastion.md#field-selectors: any other label fails with 400 `field label not supported: <label>`.
    await rejects(store.list(ctx(), { fieldSelector: "spec.providerType=local" }), 400, /^field label not supported: spec\.providerType$/);
  });

  it("reports a bad name once, under the stricter rule where it applies", async () => {
    const { store, ctx } = await setup();
    const message = async (name: string) => {
      try {
        await store.create(ctx(NS), body(name));
      } catch (err) {
        return (err as Error).message;
      }
      return "";
    };
    assert.equal((await message("A_b")).match(/metadata\.name/g)?.length, 1);
    assert.match(await message("a.b"), /^Bastion\.operations\.gardener\.cloud "a\.b" is invalid: metadata\.name: Invalid value: "a\.b": must not contain dots$/);
  });

  it("runs with the Bastion and SeedRestriction admission plugins", async () => {
    const client = new FakeClient();
    await client.create({ group: "core.gardener.cloud", resource: "shoots" }, {
      metadata: { name: "local", namespace: NS, uid: "shoot-uid" },
      spec: { seedName: "seed-1", provider: { type: "local", workers: [{ name: "w" }] } },
    });
    const { store, clock } = await setup({ client });
    const as = (username: string, groups: string[] = []) => ({ ...ctxFor(clock, NS), user: { username, groups } });
    const created = (await store.create(as("alice"), body("b1", "elsewhere"))).object;
    assert.equal((created.spec as { seedName: string }).seedName, "seed-1");
    assert.equal(created.metadata.annotations?.["gardener.cloud/created-by"], "alice");
    assert.equal(created.metadata.ownerReferences?.[0]?.uid, "shoot-uid");
    const ingress = { spec: { ingress: [{ ipBlock: { cidr: "0.0.0.0/0" } }] } };
    await rejects(store.patch(as("bob"), "b1", "merge", ingress), 403, /only the creator of this bastion \(alice\) may change spec\.ingress/);
    assert.equal((await store.patch(as("alice"), "b1", "merge", ingress)).object.metadata.generation, 2);
    const keepalive = { metadata: { annotations: { "gardener.cloud/operation": "keepalive" } } };
    assert.equal((await store.patch(as("bob"), "b1", "merge", keepalive)).object.metadata.generation, 2);
    const seed2 = as("gardener.cloud:system:seed:seed-2", ["gardener.cloud:system:seeds"]);
    await rejects(store.create(seed2, body("b2")), 403, /^object does not belong to seed seed-2$/);
  });
});
