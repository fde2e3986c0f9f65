// The dashboard's read endpoints against an in-process garden (docs/dashboard.md#reading-as-the-user):
// who the user is, the projects they may list, a project's shoots; all decided by the garden with
// the user's own token.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { ClusterRoleBindings } from "../../../src/terminal/resources.ts";
import { Namespaces, RoleBindings } from "../../../src/client/builtins.ts";
import { Projects, Shoots } from "../../../src/client/garden.ts";
import { startDashboard, type Dashboard } from "../../../src/dashboard/server.ts";
import { gardenAdmissionPlugins } from "../../../src/plugins/garden.ts";
import { startInProcessApiServer, type InProcessServer } from "../../support/inprocess.ts";

const NS = "garden-p";
const TOKENS = { alice: "alice-token", olga: "olga-token", mallory: "mallory-token" };

describe("the dashboard's read endpoints", { timeout: 60_000 }, () => {
  let dir: string;
  let garden: InProcessServer;
  let dashboard: Dashboard;

  const get = async (path: string, token?: string, method = "GET") => {
    const res = await fetch(`${dashboard.url}${path}`, { method, headers: token ? { authorization: `Bearer ${token}` } : {} });
    return { code: res.status, body: (await res.json()) as Record<string, unknown> & { items?: Record<string, unknown>[] } };
  };

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), "dashboard-browse-"));
    const tokens = join(dir, "tokens.csv");
    writeFileSync(tokens, Object.entries(TOKENS).map(([user, token]) => `${token},${user},${user}`).join("\n") + "\n");
    garden = await startInProcessApiServer({ flags: ["--enable-gardener-apis", "--token-auth-file", tokens], gardenAdmission: gardenAdmissionPlugins() });
    const g = garden.admin;
    for (const [name, ns] of [["p", NS], ["q", "garden-q"]]) {
      await g.create(Projects, { metadata: { name }, spec: { namespace: ns } } as never);
      await g.create(Namespaces, { metadata: { name: ns } }).catch(() => undefined);
    }
    await g.create(RoleBindings, { metadata: { namespace: NS, name: "alice" }, subjects: [{ kind: "User", name: "alice", apiGroup: "rbac.authorization.k8s.io" }], roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "gardener.cloud:system:project-member" } });
    await g.create(ClusterRoleBindings, { metadata: { name: "olga" }, subjects: [{ kind: "User", name: "olga", apiGroup: "rbac.authorization.k8s.io" }], roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "cluster-admin" } });
    for (const name of ["s2", "s1"]) await g.create(Shoots, { metadata: { name, namespace: NS }, spec: { seedName: "local", provider: { type: "local", workers: [{ name: "w" }] }, kubernetes: { version: "1.31.1" }, ...(name === "s2" ? { hibernation: { enabled: true } } : {}) } });
    dashboard = await startDashboard({ apiServer: { url: garden.server.url, caPem: garden.server.caPem }, webRoot: dir });
  });

  after(async () => {
    await dashboard?.close();
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
    assert.deepEqual(olga.body.items?.map((p) => [p.name, p.namespace]), [["p", NS], ["q", "garden-q"]]);
    assert.equal(olga.body.allowed, true);
    const alice = await get("/api/projects", TOKENS.alice);
    assert.deepEqual([alice.code, alice.body.allowed, alice.body.items], [200, false, []]);
  });

  test("shoots of a project as the user: a member reads her project's, the garden forbids another's", async () => {
    const own = await get(`/api/namespaces/${NS}/shoots`, TOKENS.alice);
    assert.equal(own.code, 200);
    assert.deepEqual(own.body.items?.map((s) => [s.name, s.hibernated, s.seedName, s.kubernetesVersion, s.workers]), [["s1", false, "local", "1.31.1", 1], ["s2", true, "local", "1.31.1", 1]]);
    const other = await get("/api/namespaces/garden-q/shoots", TOKENS.alice);
    assert.equal(other.code, 403);
    assert.match(String(other.body.message), /User "alice" cannot list resource "shoots"/);
    assert.equal((await get("/api/namespaces/garden-q/shoots", TOKENS.mallory)).code, 403);
  });
});
