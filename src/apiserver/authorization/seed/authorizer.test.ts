import assert from "node:assert/strict";
import { afterEach, beforeEach, describe, it } from "node:test";
import type { KubeObject } from "../../../apis/meta/v1/types.ts";
import { FakeClock } from "../../../utils/clock.ts";
import { FakeClient } from "../testing/fake-client.ts";
import type { AuthorizationAttributes } from "../types.ts";
import { SeedAuthorizer, selectsSeed } from "./authorizer.ts";
import { Graph, vertex } from "./graph.ts";

const BASTIONS = { group: "operations.gardener.cloud", resource: "bastions" };
const SHOOTS = { group: "core.gardener.cloud", resource: "shoots" };
const gardenlet = (seed: string) => ({ username: `gardener.cloud:system:seed:${seed}`, groups: ["gardener.cloud:system:seeds", "system:authenticated"] });
const obj = (name: string, seedName?: string, namespace = "garden-dev"): KubeObject => ({ metadata: { name, namespace }, spec: seedName ? { seedName } : {} });

function req(verb: string, extra: Partial<AuthorizationAttributes> = {}): AuthorizationAttributes {
  return {
    user: gardenlet("seed-1"),
    verb,
    resourceRequest: true,
    apiGroup: "operations.gardener.cloud",
    apiVersion: "v1alpha1",
    resource: "bastions",
    namespace: "garden-dev",
    ...extra,
  };
}

let client: FakeClient;
let authz: SeedAuthorizer;

beforeEach(async () => {
  client = new FakeClient();
  await client.create(BASTIONS, obj("mine", "seed-1"));
  await client.create(BASTIONS, obj("theirs", "seed-2"));
  await client.create(BASTIONS, obj("unscheduled"));
  await client.create(SHOOTS, obj("shoot-a", "seed-1"));
  authz = new SeedAuthorizer(client, { clock: new FakeClock() });
  await authz.start();
});
afterEach(() => authz.stop());

async function decide(a: AuthorizationAttributes): Promise<[string, string]> {
  const r = await authz.authorize(a);
  return [r.decision, r.reason];
}

describe("seed authorizer (docs/bastion.md#seed-authorizer)", () => {
  it("allows get, update and patch (main and status) only on its own seed's Bastions", async () => {
    for (const verb of ["get", "update", "patch"]) {
      for (const subresource of ["", "status"]) {
        assert.deepEqual(await decide(req(verb, { name: "mine", subresource })), ["allow", ""], `${verb} ${subresource}`);
        assert.deepEqual(await decide(req(verb, { name: "theirs", subresource })), ["noOpinion", "no relationship found"]);
      }
    }
    assert.deepEqual(await decide(req("get", { name: "unscheduled" })), ["noOpinion", "no relationship found"]);
    assert.deepEqual(await decide(req("get", { name: "mine", namespace: "garden-other" })), ["noOpinion", "no relationship found"]);
  });

  it("allows create (SeedRestriction checks the seed) and list/watch only for its own spec.seedName", async () => {
    assert.deepEqual(await decide(req("create")), ["allow", ""]);
    for (const verb of ["list", "watch"]) {
      assert.deepEqual(await decide(req(verb, { fieldSelector: "spec.seedName=seed-1" })), ["allow", ""]);
      assert.deepEqual(await decide(req(verb, { namespace: undefined, fieldSelector: "metadata.namespace=x,spec.seedName==seed-1" })), ["allow", ""]);
      for (const fieldSelector of [undefined, "", "spec.seedName=seed-2", "spec.seedName!=seed-1", "spec.seedName", "metadata.name=mine"]) {
        assert.deepEqual(await decide(req(verb, { fieldSelector })), ["noOpinion", "must specify field or label selector for name seed-1"], String(fieldSelector));
      }
    }
  });

  it("refuses other verbs and subresources with Gardener's reasons", async () => {
    for (const verb of ["delete", "deletecollection", "escalate"]) {
      assert.deepEqual(await decide(req(verb, { name: "mine" })), [
        "noOpinion",
        "only the following verbs are allowed for this resource type: [create get list patch update watch]",
      ]);
    }
    assert.deepEqual(await decide(req("get", { name: "mine", subresource: "finalize" })), [
      "noOpinion",
      "only the following subresources are allowed for this resource type: [status]",
    ]);
  });

  it("has no opinion on other users, resources and non-resource requests", async () => {
    assert.deepEqual(await decide(req("get", { name: "mine", user: { username: "alice", groups: ["gardener.cloud:system:seeds"] } })), ["noOpinion", ""]);
    assert.deepEqual(await decide(req("get", { name: "mine", user: { username: "gardener.cloud:system:seed:seed-1", groups: [] } })), ["noOpinion", ""]);
    assert.deepEqual(await decide(req("get", { apiGroup: "", resource: "secrets", name: "x" })), ["noOpinion", "no relationship found"]);
    assert.deepEqual(await decide({ user: gardenlet("seed-1"), verb: "get", resourceRequest: false, path: "/healthz" }), ["noOpinion", ""]);
  });

  it("lets a gardenlet create and patch Events (core and events.k8s.io), nothing else on them", async () => {
    for (const apiGroup of ["", "events.k8s.io"]) {
      for (const verb of ["create", "patch"]) assert.deepEqual(await decide(req(verb, { apiGroup, resource: "events", name: verb === "patch" ? "e" : undefined })), ["allow", ""]);
      for (const verb of ["get", "list", "delete"]) assert.deepEqual((await decide(req(verb, { apiGroup, resource: "events", name: "e" })))[0], "noOpinion");
    }
  });

  it("lets a gardenlet read and report on its own Seed only", async () => {
    const seed = (verb: string, name: string, subresource?: string) => decide(req(verb, { apiGroup: "core.gardener.cloud", resource: "seeds", namespace: undefined, name, subresource }));
    for (const verb of ["get", "patch", "update"]) {
      assert.deepEqual(await seed(verb, "seed-1"), ["allow", ""]);
      assert.deepEqual(await seed(verb, "seed-1", "status"), ["allow", ""]);
      assert.deepEqual(await seed(verb, "seed-2"), ["noOpinion", "no relationship found"]);
    }
    assert.deepEqual((await seed("delete", "seed-1"))[0], "noOpinion");
    assert.deepEqual((await seed("list", ""))[0], "noOpinion");
  });

  it("lets a gardenlet read the Shoots scheduled to its seed", async () => {
    const shoots = (verb: string, extra: Partial<AuthorizationAttributes> = {}) => req(verb, { apiGroup: "core.gardener.cloud", apiVersion: "v1beta1", resource: "shoots", ...extra });
    assert.deepEqual(await decide(shoots("get", { name: "shoot-a" })), ["allow", ""]);
    assert.deepEqual(await decide(shoots("get", { name: "shoot-a", user: gardenlet("seed-2") })), ["noOpinion", "no relationship found"]);
    assert.deepEqual(await decide(shoots("list", { fieldSelector: "spec.seedName=seed-1" })), ["allow", ""]);
    assert.deepEqual(await decide(shoots("patch", { name: "shoot-a" })), ["allow", ""]);
    assert.deepEqual(await decide(shoots("update", { name: "shoot-a", subresource: "status" })), ["allow", ""]);
    assert.deepEqual(await decide(shoots("patch", { name: "shoot-a", subresource: "status", user: gardenlet("seed-2") })), ["noOpinion", "no relationship found"]);
    assert.deepEqual(await decide(shoots("update", { name: "shoot-a", subresource: "binding" })), ["noOpinion", "only the following subresources are allowed for this resource type: [status]"]);
    assert.deepEqual(await decide(shoots("delete", { name: "shoot-a" })), ["noOpinion", "only the following verbs are allowed for this resource type: [get list patch update watch]"]);
  });

  it("lets a gardenlet manage the node key pair copies of its own seed's shoots", async () => {
    const secrets = (verb: string, extra: Partial<AuthorizationAttributes> = {}) => req(verb, { apiGroup: "", apiVersion: "v1", resource: "secrets", ...extra });
    for (const name of ["shoot-a.ssh-keypair", "shoot-a.ssh-keypair.old"]) {
      assert.deepEqual(await decide(secrets("update", { name })), ["allow", ""], name);
      assert.deepEqual(await decide(secrets("get", { name, user: gardenlet("seed-2") })), ["noOpinion", "no relationship found"], name);
    }
    assert.deepEqual(await decide(secrets("get", { name: "shoot-a.kubeconfig" })), ["noOpinion", "no relationship found"]);
    // create has no name: SeedRestriction admission narrows it.
    assert.deepEqual(await decide(secrets("create")), ["allow", ""]);
    assert.deepEqual(await decide(secrets("list")), ["noOpinion", "only the following verbs are allowed for this resource type: [create delete get patch update]"]);
  });

  it("follows Bastion changes: scheduling, moving and deletion", async () => {
    assert.deepEqual(await decide(req("get", { name: "unscheduled" })), ["noOpinion", "no relationship found"]);
    await client.update(BASTIONS, obj("unscheduled", "seed-1"));
    assert.deepEqual(await decide(req("get", { name: "unscheduled" })), ["allow", ""]);
    await client.update(BASTIONS, obj("mine", "seed-2"));
    assert.deepEqual(await decide(req("get", { name: "mine" })), ["noOpinion", "no relationship found"]);
    await client.delete(BASTIONS, "garden-dev", "unscheduled");
    assert.deepEqual(await decide(req("get", { name: "unscheduled" })), ["noOpinion", "no relationship found"]);
  });

  it("relists after a broken watch and stops watching on stop()", async () => {
    const clock = new FakeClock();
    const a = new SeedAuthorizer(client, { clock });
    await a.start();
    client.breakWatches(BASTIONS);
    await client.create(BASTIONS, obj("late", "seed-1"));
    clock.step(1000);
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(await a.authorize(req("get", { name: "late" })), { decision: "allow", reason: "" });
    const before = client.watchCount(BASTIONS);
    a.stop();
    assert.equal(client.watchCount(BASTIONS), before - 1);
    assert.deepEqual(await a.authorize(req("get", { name: "mine" })), { decision: "noOpinion", reason: "seed authorizer is not ready yet" });
  });
});

describe("seed graph", () => {
  it("finds paths over several edges and forgets removed vertices", () => {
    const g = new Graph();
    g.setEdges(vertex("Bastion", "ns", "b"), [vertex("Shoot", "ns", "s")]);
    g.setEdges(vertex("Shoot", "ns", "s"), [vertex("Seed", undefined, "seed-1")]);
    assert.equal(g.hasPath("Bastion:ns/b", "Seed:seed-1"), true);
    g.clearType("Shoot");
    assert.equal(g.hasPath("Bastion:ns/b", "Seed:seed-1"), false);
    g.removeVertex("Bastion:ns/b");
    assert.equal(g.size, 0);
  });

  it("reads spec.seedName requirements from field selectors", () => {
    assert.equal(selectsSeed("spec.seedName=a", "a"), true);
    assert.equal(selectsSeed("spec.seedName=a\\,b", "a,b"), true);
    assert.equal(selectsSeed("spec.seedName=a,,", "a"), true);
    assert.equal(selectsSeed("spec.seedName=a\\", "a"), false);
  });
});
