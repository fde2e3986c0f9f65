// The gardener-controller-manager's project controller against an in-process garden (docs/bastion.md#project):
// the Project's phase (Pending, Ready, Failed, Terminating) and observedGeneration, its finalizer, the
// project namespace it creates or adopts, the namespace's release when the Project is deleted, and
// the `serviceaccountmanager` role's RoleBinding, answered by the garden's RBAC through SubjectAccessReviews;
// the per-project ClusterRoles with the garden's CustomVerbAuthorizer, as their users (bearer tokens).
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import pino from "pino";
import type { Project } from "../../../src/apis/gardencore/v1beta1/types.ts";
import { unlessNotFound } from "../../../src/apimachinery/errors.ts";
import { writeKubeconfig } from "../../../src/apiserver/certs/kubeconfig.ts";
import { ClusterRoleBindings, ClusterRoles, Namespaces, RoleBindings } from "../../../src/client/builtins.ts";
import { Client } from "../../../src/client/client.ts";
import { Projects, Seeds, Shoots } from "../../../src/client/garden.ts";
import { type ControllerManager, createControllerManager } from "../../../src/controllermanager/app.ts";
import { ANNOTATION_KEEP_AFTER_PROJECT_DELETION, ANNOTATION_NAMESPACE_PROJECT } from "../../../src/controllermanager/controller/project/namespace.ts";
import { createGardenObjects, reportShootReconciled } from "../../../src/landscape/objects.ts";
import { gardenAdmissionPlugins } from "../../../src/plugins/garden.ts";
import { SubjectAccessReviews } from "../../../src/terminal/resources.ts";
import { eventually } from "../../support/http.ts";
import { startInProcessApiServer, type InProcessServer } from "../../support/inprocess.ts";

const EVENTS = { group: "", version: "v1", kind: "Event", plural: "events", namespaced: true } as const;

describe("the project controller", { timeout: 60_000 }, () => {
  let garden: InProcessServer;
  let gcm: ControllerManager;
  const phases = new Map<string, string[]>();
  const stopWatch = new AbortController();

  const confirmAndDelete = async (name: string) => {
    await garden.admin.patch(Projects, { name }, { type: "merge", body: { metadata: { annotations: { "confirmation.gardener.cloud/deletion": "true" } } } });
    await garden.admin.delete(Projects, { name });
  };
  const get = (name: string) => unlessNotFound(garden.admin.get(Projects, { name }));
  const phaseOf = async (name: string, phase: string) => {
    const p = await get(name);
    return p?.status?.phase === phase ? p : undefined;
  };

  const dir = mkdtempSync(join(tmpdir(), "project-it-"));
  const users = ["alice", "vera", "uma"];
  /** A client of the garden as one of `users` (bearer token `<user>-token`). */
  const as = async (user: string): Promise<Client> => {
    const path = join(dir, `${user}.kubeconfig`);
    await writeKubeconfig(path, { server: garden.server.url, caPem: garden.server.caPem, clusterName: "garden", userName: user, user: { token: `${user}-token` } });
    return Client.fromKubeconfigFile(path, { fieldManager: user });
  };

  before(async () => {
    const tokens = join(dir, "tokens.csv");
    writeFileSync(tokens, users.map((u) => `${u}-token,${u},${u}`).join("\n") + "\n");
    garden = await startInProcessApiServer({ flags: ["--enable-gardener-apis", "--token-auth-file", tokens], gardenAdmission: gardenAdmissionPlugins() });
    await garden.admin.create(Seeds, { metadata: { name: "local" } });
    // every phase each Project passes through, in order (from a resourceVersion before any Project, so a
    // watch established late under load still sees the first phase)
    const from = (await garden.admin.list(Projects)).metadata.resourceVersion;
    void garden.admin.watch(Projects, { resourceVersion: from }, (ev) => {
      const p = ev.object as Project;
      const seen = phases.get(p.metadata.name ?? "") ?? [];
      const phase = p.status?.phase;
      if (phase && seen.at(-1) !== phase) seen.push(phase);
      phases.set(p.metadata.name ?? "", seen);
    }, stopWatch.signal).catch(() => undefined);
    gcm = createControllerManager({ gardenClient: garden.admin, logger: pino({ level: "silent" }), server: false, defaultMetrics: false });
    await gcm.start();
  });

  after(async () => {
    stopWatch.abort();
    await gcm?.stop();
    await garden?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  test("a new Project is Pending, then Ready with its namespace, finalizer and observedGeneration; a spec change is observed", async () => {
    await garden.admin.create(Projects, { metadata: { name: "p" }, spec: { namespace: "garden-p", members: [{ apiGroup: "rbac.authorization.k8s.io", kind: "User", name: "alice", role: "admin" }] } });
    const ready = await eventually("p Ready", () => phaseOf("p", "Ready"));
    // A read can see the update before the watch delivers it: wait for the watch to see Ready too.
    await eventually("p Ready in the watch", () => (phases.get("p")?.includes("Ready") ? true : undefined));
    assert.deepEqual(phases.get("p"), ["Pending", "Ready"]);
    assert.equal(ready.status?.observedGeneration, 1);
    assert.deepEqual(ready.metadata.finalizers, ["gardener"]);
    const ns = await garden.admin.get(Namespaces, { name: "garden-p" });
    assert.deepEqual([ns.metadata.labels?.["project.gardener.cloud/name"], ns.metadata.labels?.["gardener.cloud/role"], ns.metadata.annotations?.[ANNOTATION_NAMESPACE_PROJECT]], ["p", "project", ready.metadata.uid]);
    assert.deepEqual(ns.metadata.ownerReferences?.map((r) => [r.kind, r.name, r.uid, r.controller]), [["Project", "p", ready.metadata.uid, true]]);
    assert.equal(ns.metadata.annotations?.[ANNOTATION_KEEP_AFTER_PROJECT_DELETION], undefined, "created, not adopted");

    await garden.admin.patch(Projects, { name: "p" }, { type: "merge", body: { spec: { description: "changed" } } });
    const observed = await eventually("generation 2 observed", async () => ((await get("p"))?.status?.observedGeneration === 2 ? get("p") : undefined));
    assert.equal(observed?.status?.phase, "Ready");
  });

  test("a namespace of another project makes the Project Failed, with a Warning event", async () => {
    await garden.admin.create(Namespaces, { metadata: { name: "garden-taken", labels: { "project.gardener.cloud/name": "other", "gardener.cloud/role": "project" } } });
    await garden.admin.create(Projects, { metadata: { name: "q" }, spec: { namespace: "garden-taken" } });
    const failed = await eventually("q Failed", () => phaseOf("q", "Failed"));
    assert.equal(failed.status?.observedGeneration, 1);
    const events = await eventually("the event", async () => {
      const list = await garden.admin.list(EVENTS, { namespace: "default", fieldSelector: "involvedObject.name=q" });
      return list.items.length > 0 ? list.items : undefined;
    });
    const e = events[0] as unknown as { type: string; reason: string; message: string };
    assert.deepEqual([e.type, e.reason], ["Warning", "NamespaceReconcileFailed"]);
    assert.match(e.message, /namespace cannot be used as it needs the project labels/);
    // a namespace the Project can use: Ready again
    await garden.admin.patch(Projects, { name: "q" }, { type: "merge", body: { spec: { description: "retry" } } });
    await garden.admin.patch(Namespaces, { name: "garden-taken" }, { type: "merge", body: { metadata: { labels: { "project.gardener.cloud/name": "q" } } } });
    await eventually("q Ready", () => phaseOf("q", "Ready"));
  });

  test("deleting a Project with a Shoot is Terminating until the Shoot goes, then its namespace and the Project go", async () => {
    await eventually("p Ready", () => phaseOf("p", "Ready"));
    await garden.admin.create(Shoots, { metadata: { name: "s", namespace: "garden-p" }, spec: { seedName: "local", provider: { type: "local" }, kubernetes: { version: "1.31.1" } } });
    await confirmAndDelete("p");
    const terminating = await eventually("p Terminating", () => phaseOf("p", "Terminating"));
    assert.ok(terminating.metadata.deletionTimestamp);
    assert.ok(await garden.admin.get(Namespaces, { name: "garden-p" }), "the namespace stays while it holds a Shoot");
    await garden.admin.patch(Shoots, { namespace: "garden-p", name: "s" }, { type: "merge", body: { metadata: { annotations: { "confirmation.gardener.cloud/deletion": "true" } } } });
    await garden.admin.delete(Shoots, { namespace: "garden-p", name: "s" });
    await eventually("the Shoot gone", async () => ((await unlessNotFound(garden.admin.get(Shoots, { namespace: "garden-p", name: "s" }))) ? undefined : true));
    await eventually("the Project gone", async () => ((await get("p")) ? undefined : true), 30_000);
    await eventually("its namespace gone", async () => ((await unlessNotFound(garden.admin.get(Namespaces, { name: "garden-p" }))) ? undefined : true), 30_000);
  });

  test("an adopted namespace is kept after the Project's deletion, without the project's labels and owner", async () => {
    await garden.admin.create(Namespaces, { metadata: { name: "garden-own", labels: { team: "x" } } });
    await garden.admin.create(Projects, { metadata: { name: "r" }, spec: { namespace: "garden-own" } });
    await eventually("r Ready", () => phaseOf("r", "Ready"));
    const adopted = await garden.admin.get(Namespaces, { name: "garden-own" });
    assert.equal(adopted.metadata.annotations?.[ANNOTATION_KEEP_AFTER_PROJECT_DELETION], "true");
    assert.equal(adopted.metadata.labels?.["project.gardener.cloud/name"], "r");
    await confirmAndDelete("r");
    await eventually("the Project gone", async () => ((await get("r")) ? undefined : true));
    const kept = await garden.admin.get(Namespaces, { name: "garden-own" });
    assert.equal(kept.metadata.deletionTimestamp, undefined);
    assert.deepEqual(kept.metadata.labels, { team: "x", "kubernetes.io/metadata.name": "garden-own" });
    assert.deepEqual([kept.metadata.annotations?.[ANNOTATION_NAMESPACE_PROJECT], kept.metadata.ownerReferences ?? []], [undefined, []]);
  });

  test("a member holding serviceaccountmanager manages the namespace's ServiceAccounts and their tokens until the role is taken away; admin alone reads them", async () => {
    const RBAC = "rbac.authorization.k8s.io";
    const SAM = "gardener.cloud:system:project-serviceaccountmanager";
    const member = (name: string, roles: string[]) => ({ apiGroup: RBAC, kind: "User" as const, name, role: roles[0]!, roles: roles.slice(1) });
    await garden.admin.create(Projects, { metadata: { name: "sam" }, spec: { namespace: "garden-sam", members: [member("alice", ["admin", "serviceaccountmanager"]), member("bob", ["admin"])] } });
    const can = async (user: string, verb: string, subresource = "") => {
      const review = await garden.admin.create(SubjectAccessReviews, { metadata: {}, spec: { user, groups: ["system:authenticated"], resourceAttributes: { verb, group: "", resource: "serviceaccounts", subresource, namespace: "garden-sam", name: "robot" } } });
      return review.status?.allowed === true;
    };
    const subjects = async () => (await unlessNotFound(garden.admin.get(RoleBindings, { namespace: "garden-sam", name: SAM })))?.subjects?.map((s) => s.name);
    await eventually("alice bound", async () => ((await subjects())?.includes("alice") ? true : undefined));
    const binding = await garden.admin.get(RoleBindings, { namespace: "garden-sam", name: SAM });
    assert.deepEqual(binding.roleRef, { apiGroup: RBAC, kind: "ClusterRole", name: SAM });
    assert.deepEqual(binding.subjects, [{ kind: "User", apiGroup: RBAC, name: "alice" }]);
    assert.deepEqual(binding.metadata.ownerReferences?.map((r) => [r.kind, r.name, r.controller]), [["Project", "sam", true]]);
    await eventually("alice may create ServiceAccounts and tokens", async () => ((await can("alice", "create")) && (await can("alice", "create", "token")) ? true : undefined));
    for (const verb of ["get", "patch", "delete"]) assert.equal(await can("alice", verb), true, verb);
    // bob, an admin without the role, reads ServiceAccounts (as Gardener's project members do) and no more
    assert.equal(await can("bob", "get"), true);
    for (const [verb, sub] of [["create", ""], ["patch", ""], ["delete", ""], ["create", "token"]] as const) assert.equal(await can("bob", verb, sub), false, `bob ${verb} ${sub}`);

    await garden.admin.patch(Projects, { name: "sam" }, { type: "merge", body: { spec: { members: [member("alice", ["admin"]), member("bob", ["admin"])] } } });
    await eventually("alice unbound", async () => ((await subjects())?.length === 0 ? true : undefined));
    await eventually("alice may no longer mint tokens", async () => ((await can("alice", "create", "token")) ? undefined : true));
    assert.equal(await can("alice", "create"), false);
    assert.equal(await can("alice", "get"), true, "still a member");
  });

  test("per-project ClusterRoles: an admin member changes the Project's ServiceAccount members but not its people without manage-members, uam may; a viewer only reads it; they go with the Project", async () => {
    const RBAC = "rbac.authorization.k8s.io";
    const user = (name: string, role: string) => ({ apiGroup: RBAC, kind: "User" as const, name, role });
    const robot = { apiGroup: "", kind: "ServiceAccount" as const, name: "robot", namespace: "garden-acl", role: "admin" };
    await garden.admin.create(Projects, { metadata: { name: "acl" }, spec: { namespace: "garden-acl", owner: user("olga", "owner"), members: [user("alice", "admin"), user("vera", "viewer"), user("uma", "uam")] } });
    const bound = async (role: string) => (await unlessNotFound(garden.admin.get(ClusterRoleBindings, { name: `gardener.cloud:system:${role}:acl` })))?.subjects?.map((s) => s.name) ?? [];
    await eventually("the four bindings", async () => ((await bound("project-viewer")).includes("vera") ? true : undefined));
    assert.deepEqual([await bound("project"), await bound("project-member"), await bound("project-uam"), await bound("project-viewer")], [["olga"], ["olga", "alice"], ["uma"], ["vera"]]);
    const [alice, vera, uma] = (await Promise.all(users.map((u) => as(u)))) as [Client, Client, Client];
    try {
      const members = async () => (await garden.admin.get(Projects, { name: "acl" })).spec?.members ?? [];
      const write = (c: Client, m: unknown[]) => c.patch(Projects, { name: "acl" }, { type: "merge", body: { spec: { members: m } } });
      // alice (admin) adds and removes a ServiceAccount member, as a member's garden terminal needs
      const start = await members();
      await write(alice, [...start, robot]);
      assert.ok((await members()).some((m) => m.name === "robot"));
      await write(alice, start);
      await assert.rejects(write(alice, [...start, user("bob", "admin")]), { code: 403, message: 'projects.core.gardener.cloud "acl" is forbidden: user "alice" is not allowed to manage human users or groups in .spec.members for "projects"' });
      await assert.rejects(alice.get(Projects, { name: "local" }), { code: 403 }, "only her own Project");
      await write(uma, [...start, user("bob", "viewer")]);
      assert.equal((await vera.get(Projects, { name: "acl" })).metadata.name, "acl", "a viewer reads the Project");
      await assert.rejects(write(vera, [...start, robot]), { code: 403, message: /User "vera" cannot patch resource "projects"/ });
    } finally {
      for (const c of [alice, vera, uma]) c.close();
    }
    const role = await garden.admin.get(ClusterRoles, { name: "gardener.cloud:system:project-member:acl" });
    assert.deepEqual(role.metadata.ownerReferences?.map((r) => [r.kind, r.name, r.controller, r.blockOwnerDeletion]), [["Project", "acl", true, false]]);
    await confirmAndDelete("acl");
    await eventually("the Project's ClusterRoles gone with it", async () => ((await unlessNotFound(garden.admin.get(ClusterRoles, { name: "gardener.cloud:system:project-member:acl" }))) ? undefined : true), 30_000);
    assert.equal(await unlessNotFound(garden.admin.get(ClusterRoleBindings, { name: "gardener.cloud:system:project-uam:acl" })), undefined);
  });

  test("the landscape's Project of an earlier run gets local-member's serviceaccountmanager role, keeping its other members; once is enough", async () => {
    const RBAC = "rbac.authorization.k8s.io";
    await garden.admin.create(Projects, { metadata: { name: "local" }, spec: { namespace: "garden-local", members: [{ apiGroup: RBAC, kind: "User", name: "local-member", role: "admin" }, { apiGroup: RBAC, kind: "User", name: "carol", role: "viewer" }] } });
    await createGardenObjects(garden.admin);
    const upgraded = await garden.admin.get(Projects, { name: "local" });
    assert.deepEqual(upgraded.spec?.members?.map((m) => [m.name, m.role, m.roles ?? []]), [["carol", "viewer", []], ["local-member", "admin", ["serviceaccountmanager"]]]);
    await createGardenObjects(garden.admin);
    assert.equal((await garden.admin.get(Projects, { name: "local" })).metadata.resourceVersion, upgraded.metadata.resourceVersion, "not written again");
  });

  test("the landscape reports its shoot reconciled as a gardenlet would: Reconcile Succeeded at 100% with its time", async () => {
    await eventually("project local Ready", () => phaseOf("local", "Ready"));
    await garden.admin.create(Shoots, { metadata: { name: "local", namespace: "garden-local" }, spec: { seedName: "local", kubernetes: { version: "1.30.0" }, provider: { type: "local", workers: [] } } });
    await reportShootReconciled(garden.admin, Date.UTC(2026, 10, 27, 11, 0, 0));
    const shoot = await garden.admin.get(Shoots, { namespace: "garden-local", name: "local" });
    assert.deepEqual(shoot.status?.lastOperation, { type: "Reconcile", state: "Succeeded", progress: 100, description: "Shoot cluster has been successfully reconciled.", lastUpdateTime: "2026-11-27T11:00:00Z" });
    assert.equal(shoot.spec?.kubernetes?.version, "1.30.0");
  });
});
