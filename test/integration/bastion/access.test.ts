// Who may do what with Bastions, through HTTP with real identities (client certificates): the
// project controller's RoleBindings give members and viewers their roles, the seed authorizer
// confines a gardenlet to its own seed's Bastions, and Bastion admission keeps spec.ingress the
// creator's.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { SEEDS_GROUP } from "../../../src/apis/gardencore/v1beta1/types.ts";
import { isForbidden } from "../../../src/apimachinery/errors.ts";
import { seedUserName } from "../../../src/api/gardencore/identity.ts";
import type { Client } from "../../../src/client/client.ts";
import { Bastions, Projects } from "../../../src/client/garden.ts";
import { RoleBindings } from "../../../src/client/builtins.ts";
import { eventually } from "../../support/http.ts";
import { type Landscape, PROJECT, PROJECT_NS, bastionFor, createShoot, ready, startLandscape } from "./landscape.ts";

const RBAC = "rbac.authorization.k8s.io";

describe("bastion access", () => {
  let ls: Landscape;
  let alice: Client;
  before(async () => {
    ls = await startLandscape();
    await createShoot(ls, "s");
    alice = await ls.clientFor("alice");
    await alice.create(Bastions, bastionFor("s", "mine"));
    await ready(ls, "mine");
  });
  after(async () => {
    await ls?.stop();
  });

  test("the project controller binds the owner and admins as members and viewers as viewers", async () => {
    const member = await ls.gardenAdmin.get(RoleBindings, { namespace: PROJECT_NS, name: "gardener.cloud:system:project-member" });
    assert.deepEqual(member.roleRef, { apiGroup: RBAC, kind: "ClusterRole", name: "gardener.cloud:system:project-member" });
    assert.deepEqual(member.subjects?.map((s) => s.name), ["alice", "carol"]);
    assert.equal(member.metadata.ownerReferences?.[0]?.kind, "Project");
    const viewer = await ls.gardenAdmin.get(RoleBindings, { namespace: PROJECT_NS, name: "gardener.cloud:system:project-viewer" });
    assert.deepEqual(viewer.subjects?.map((s) => s.name), ["bob"]);
  });

  test("a project viewer may read bastions but not create them", async () => {
    const bob = await ls.clientFor("bob");
    assert.equal((await bob.get(Bastions, { namespace: PROJECT_NS, name: "mine" })).metadata.name, "mine");
    assert.ok((await bob.list(Bastions, { namespace: PROJECT_NS })).items.length >= 1);
    await assert.rejects(bob.create(Bastions, bastionFor("s", "bobs")), (err) => isForbidden(err) && /cannot create resource "bastions"/.test(String(err)));
  });

  test("a non-member sees nothing; membership changes are followed", async () => {
    const dave = await ls.clientFor("dave");
    await assert.rejects(dave.list(Bastions, { namespace: PROJECT_NS }), isForbidden);
    await assert.rejects(dave.get(Bastions, { namespace: PROJECT_NS, name: "mine" }), isForbidden);

    const project = await ls.gardenAdmin.get(Projects, { name: PROJECT });
    const members = [...(project.spec?.members ?? []), { kind: "User" as const, name: "dave", role: "viewer" }];
    await ls.gardenAdmin.patch(Projects, { name: PROJECT }, { type: "merge", body: { spec: { members } } });
    await eventually("dave may read", async () => ((await dave.list(Bastions, { namespace: PROJECT_NS })).items.length > 0 ? true : undefined));

    await ls.gardenAdmin.patch(Projects, { name: PROJECT }, { type: "merge", body: { spec: { members: project.spec?.members } } });
    await eventually("dave may no longer read", async () => {
      try {
        await dave.list(Bastions, { namespace: PROJECT_NS });
        return undefined;
      } catch (err) {
        return isForbidden(err) ? true : undefined;
      }
    });
  });

  test("a RoleBinding deleted by hand is restored", async () => {
    await ls.gardenAdmin.delete(RoleBindings, { namespace: PROJECT_NS, name: "gardener.cloud:system:project-viewer" });
    const back = await eventually("viewer binding restored", () => ls.gardenAdmin.get(RoleBindings, { namespace: PROJECT_NS, name: "gardener.cloud:system:project-viewer" }));
    assert.deepEqual(back.subjects?.map((s) => s.name), ["bob"]);
  });

  test("another member cannot change someone else's spec.ingress, but may send keepalives", async () => {
    const carol = await ls.clientFor("carol");
    const key = { namespace: PROJECT_NS, name: "mine" };
    await assert.rejects(
      carol.patch(Bastions, key, { type: "merge", body: { spec: { ingress: [{ ipBlock: { cidr: "0.0.0.0/0" } }] } } }),
      (err) => isForbidden(err) && (err as Error).message === 'bastions.operations.gardener.cloud "mine" is forbidden: only the creator of this bastion (alice) may change spec.ingress',
    );
    const beat = await carol.patch(Bastions, key, { type: "merge", body: { metadata: { annotations: { "gardener.cloud/operation": "keepalive" } } } });
    assert.equal(beat.metadata.annotations?.["gardener.cloud/operation"], undefined);
    assert.deepEqual((await alice.get(Bastions, key)).spec.ingress, [{ ipBlock: { cidr: "203.0.113.0/24" } }]);
  });

  test("a gardenlet sees only its own seed's bastions", async () => {
    const seedA = await ls.clientFor(seedUserName("a"), [SEEDS_GROUP]);
    const seedB = await ls.clientFor(seedUserName("b"), [SEEDS_GROUP]);
    const key = { namespace: PROJECT_NS, name: "mine" };
    assert.equal((await seedA.get(Bastions, key)).spec.seedName, "a");
    assert.equal((await seedA.list(Bastions, { fieldSelector: "spec.seedName=a" })).items.length >= 1, true);

    await assert.rejects(seedB.get(Bastions, key), (err) => isForbidden(err) && /no relationship found/.test(String(err)));
    await assert.rejects(seedB.list(Bastions, { fieldSelector: "spec.seedName=a" }), (err) => isForbidden(err) && /must specify field or label selector for name b/.test(String(err)));
    await assert.rejects(seedB.list(Bastions, { namespace: PROJECT_NS }), isForbidden);
    assert.deepEqual((await seedB.list(Bastions, { fieldSelector: "spec.seedName=b" })).items, [], "its own (empty) list is allowed");
    await assert.rejects(seedB.patchStatus(Bastions, key, { type: "merge", body: { status: { sshHostKeys: ["ssh-ed25519 AAAA"] } } }), isForbidden);
    await assert.rejects(seedA.delete(Bastions, key), (err) => isForbidden(err) && /only the following verbs are allowed/.test(String(err)), "gardenlets never delete garden bastions");
  });
});
