// The dashboard's read endpoints against an in-process garden (docs/dashboard.md#reading-as-the-user):
// who the user is, the projects they may list, a project's shoots; all decided by the garden with
// the user's own token, except that a member who may not list Projects gets those whose members name
// her (by user, group), read with the dashboard's own read-only credential.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { ClusterRoleBindings } from "../../../src/terminal/resources.ts";
import { Namespaces, RoleBindings } from "../../../src/client/builtins.ts";
import { Projects, Shoots } from "../../../src/client/garden.ts";
import { Client } from "../../../src/client/client.ts";
import { resourceType } from "../../../src/client/resource.ts";
import { writeKubeconfig } from "../../../src/apiserver/certs/kubeconfig.ts";
import { startDashboard, type Dashboard } from "../../../src/dashboard/server.ts";
import { gardenAdmissionPlugins } from "../../../src/plugins/garden.ts";
import { startInProcessApiServer, type InProcessServer } from "../../support/inprocess.ts";

const NS = "garden-p";
const ClusterRoles = resourceType({ group: "rbac.authorization.k8s.io", version: "v1", kind: "ClusterRole", plural: "clusterroles", namespaced: false });
const TOKENS = { alice: "alice-token", olga: "olga-token", mallory: "mallory-token", gina: "gina-token", reader: "reader-token" };
const GROUPS: Record<string, string> = { gina: "team-q" };

describe("the dashboard's read endpoints", { timeout: 60_000 }, () => {
  let dir: string;
  let garden: InProcessServer;
  let dashboard: Dashboard;
  let withReader: Dashboard;
  let reader: Client;

  const get = async (path: string, token?: string, method = "GET", d = dashboard) => {
    const res = await fetch(`${d.url}${path}`, { method, headers: token ? { authorization: `Bearer ${token}` } : {} });
    return { code: res.status, body: (await res.json()) as Record<string, unknown> & { items?: Record<string, unknown>[] } };
  };

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), "dashboard-browse-"));
    const tokens = join(dir, "tokens.csv");
    writeFileSync(tokens, Object.entries(TOKENS).map(([user, token]) => `${token},${user},${user}${GROUPS[user] ? `,"${GROUPS[user]}"` : ""}`).join("\n") + "\n");
    garden = await startInProcessApiServer({ flags: ["--enable-gardener-apis", "--token-auth-file", tokens], gardenAdmission: gardenAdmissionPlugins() });
    const g = garden.admin;
    // p has alice as a member, q the group team-q, r nobody we know; pending (still Pending) has alice too
    const user = (name: string) => ({ apiGroup: "rbac.authorization.k8s.io", kind: "User", name, role: "admin" });
    const members: Record<string, unknown[]> = { p: [user("alice")], q: [{ apiGroup: "rbac.authorization.k8s.io", kind: "Group", name: "team-q", role: "viewer" }], r: [user("rita")], pending: [user("alice")] };
    for (const [name, ns] of [["p", NS], ["q", "garden-q"], ["r", "garden-r"], ["pending", "garden-pending"]] as const) {
      await g.create(Projects, { metadata: { name }, spec: { namespace: ns, members: members[name] } } as never);
      await g.patchStatus(Projects, { name }, { type: "merge", body: { status: { phase: name === "pending" ? "Pending" : "Ready" } } });
      await g.create(Namespaces, { metadata: { name: ns } }).catch(() => undefined);
    }
    // the dashboard's own credential may only read Projects
    await g.create(ClusterRoles, { metadata: { name: "dashboard-project-reader" }, rules: [{ apiGroups: ["core.gardener.cloud"], resources: ["projects"], verbs: ["list"] }] });
    await g.create(ClusterRoleBindings, { metadata: { name: "dashboard-project-reader" }, subjects: [{ kind: "User", name: "reader", apiGroup: "rbac.authorization.k8s.io" }], roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "dashboard-project-reader" } });
    const kubeconfig = join(dir, "reader.kubeconfig");
    await writeKubeconfig(kubeconfig, { server: garden.server.url, caPem: garden.server.caPem, clusterName: "garden", userName: "reader", user: { token: TOKENS.reader } });
    reader = Client.fromKubeconfigFile(kubeconfig);
    await g.create(RoleBindings, { metadata: { namespace: NS, name: "alice" }, subjects: [{ kind: "User", name: "alice", apiGroup: "rbac.authorization.k8s.io" }], roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "gardener.cloud:system:project-member" } });
    await g.create(ClusterRoleBindings, { metadata: { name: "olga" }, subjects: [{ kind: "User", name: "olga", apiGroup: "rbac.authorization.k8s.io" }], roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "cluster-admin" } });
    for (const name of ["s2", "s1"]) await g.create(Shoots, { metadata: { name, namespace: NS }, spec: { seedName: "local", provider: { type: "local", workers: [{ name: "w" }] }, kubernetes: { version: "1.31.1" }, ...(name === "s2" ? { hibernation: { enabled: true } } : {}) } });
    const now = new Date().toISOString();
    const condition = { type: "SystemComponentsHealthy", status: "True", reason: "SystemComponentsRunning", message: "All system components are healthy.", lastTransitionTime: now, lastUpdateTime: now };
    await g.patchStatus(Shoots, { namespace: NS, name: "s1" }, { type: "merge", body: { status: { lastOperation: { type: "Reconcile", state: "Succeeded", progress: 100, description: "Shoot cluster has been successfully reconciled.", lastUpdateTime: now }, conditions: [condition], hibernated: false } } });
    await g.patchStatus(Shoots, { namespace: NS, name: "s2" }, { type: "merge", body: { status: { hibernated: true, lastErrors: [{ description: "x", lastUpdateTime: now }] } } });
    dashboard = await startDashboard({ apiServer: { url: garden.server.url, caPem: garden.server.caPem }, webRoot: dir });
    withReader = await startDashboard({ apiServer: { url: garden.server.url, caPem: garden.server.caPem }, webRoot: dir, projectReader: reader });
  });

  after(async () => {
    await dashboard?.close();
    await withReader?.close();
    reader?.close();
    await garden?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  test("/api/user names the user as the garden does, and whether they are an operator", async () => {
    const alice = await get("/api/user", TOKENS.alice);
    assert.equal(alice.code, 200);
    assert.equal(alice.body.username, "alice");
    assert.ok((alice.body.groups as string[]).includes("system:authenticated"));
    assert.equal(alice.body.isAdmin, false);
    assert.equal((await get("/api/user", TOKENS.olga)).body.isAdmin, true);
  });

  test("refusals are Status objects: no token 401, a token the garden rejects 401, not GET 405, a bad namespace 400", async () => {
    const none = await get("/api/user");
    assert.deepEqual([none.code, none.body.kind, none.body.message], [401, "Status", "No authorization token was found"]);
    assert.equal((await get("/api/projects", "not-a-token")).code, 401);
    assert.equal((await get("/api/user", TOKENS.alice, "POST")).code, 405);
    for (const ns of ["Garden-P", "a%2Fb", "x".repeat(64), "%E0%A4%A"]) {
      const bad = await get(`/api/namespaces/${ns}/shoots`, TOKENS.alice);
      assert.deepEqual([bad.code, bad.body.reason], [400, "BadRequest"], ns);
    }
  });

  test("projects: an operator lists them all; a member who may not list projects gets allowed: false", async () => {
    const olga = await get("/api/projects", TOKENS.olga);
    assert.equal(olga.code, 200);
    assert.deepEqual(olga.body.items?.map((p) => [p.name, p.namespace]), [["p", NS], ["pending", "garden-pending"], ["q", "garden-q"], ["r", "garden-r"]]);
    assert.equal(olga.body.allowed, true);
    const alice = await get("/api/projects", TOKENS.alice);
    assert.deepEqual([alice.code, alice.body.allowed, alice.body.items], [200, false, []]);
  });

  test("projects with the dashboard's own reader: a member sees the projects whose members name her (user or group), not pending ones, nothing else", async () => {
    const alice = await get("/api/projects", TOKENS.alice, "GET", withReader);
    assert.deepEqual([alice.code, alice.body.allowed, alice.body.membership, alice.body.items], [200, true, true, [{ name: "p", namespace: NS, phase: "Ready", description: "" }]]);
    const gina = await get("/api/projects", TOKENS.gina, "GET", withReader);
    assert.deepEqual(gina.body.items?.map((p) => p.name), ["q"], "a member through her group");
    const mallory = await get("/api/projects", TOKENS.mallory, "GET", withReader);
    assert.deepEqual([mallory.body.allowed, mallory.body.items], [true, []], "no membership, no projects");
    assert.equal((await get("/api/projects", "not-a-token", "GET", withReader)).code, 401, "the reader is never used for a token the garden refuses");
    const olga = await get("/api/projects", TOKENS.olga, "GET", withReader);
    assert.equal(olga.body.membership, undefined, "who may list Projects gets the garden's own list");
    assert.equal(olga.body.items?.length, 4);
  });

  test("shoots of a project as the user: a member reads her project's, the garden forbids another's", async () => {
    const own = await get(`/api/namespaces/${NS}/shoots`, TOKENS.alice);
    assert.equal(own.code, 200);
    assert.deepEqual(own.body.items?.map((s) => [s.name, s.hibernated, s.seedName, s.kubernetesVersion, s.workers]), [["s1", false, "local", "1.31.1", 1], ["s2", true, "local", "1.31.1", 1]]);
    // what the Status and Readiness columns show (web/src/lib/shoot.ts): the last operation, hibernation, errors, conditions
    const [s1, s2] = own.body.items ?? [];
    assert.deepEqual(s1?.lastOperation, { type: "Reconcile", state: "Succeeded", progress: 100, description: "Shoot cluster has been successfully reconciled." });
    assert.deepEqual(s1?.conditions, [{ type: "SystemComponentsHealthy", status: "True", reason: "SystemComponentsRunning", message: "All system components are healthy." }]);
    assert.deepEqual([s1?.statusHibernated, s1?.lastErrors, s1?.reconciliationDeactivated], [false, 0, false]);
    assert.deepEqual([s2?.statusHibernated, s2?.lastErrors, s2?.lastOperation, s2?.conditions], [true, 1, undefined, []]);
    const other = await get("/api/namespaces/garden-q/shoots", TOKENS.alice);
    assert.equal(other.code, 403);
    assert.match(String(other.body.message), /User "alice" cannot list resource "shoots"/);
    assert.equal((await get("/api/namespaces/garden-q/shoots", TOKENS.mallory)).code, 403);
  });
});
