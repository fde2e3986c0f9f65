// The dashboard's `POST /api/terminals` against the in-process garden and the terminal-controller-
// manager's real webhooks and controllers (docs/dashboard.md#terminals): a member creates a garden
// terminal as themself, fetch waits until the pod runs and answers the attach token, heartbeats keep
// it past its time to live, remove cleans up; a non-member gets the webhook's message; without
// heartbeats the Terminal is gone after its time to live.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { Client } from "../../../src/client/client.ts";
import { Projects } from "../../../src/client/garden.ts";
import { unlessNotFound } from "../../../src/client/helpers.ts";
import { type Dashboard, startDashboard } from "../../../src/dashboard/server.ts";
import { resourceType } from "../../../src/client/resource.ts";
import { ClusterRoleBindings, Pods, Terminals } from "../../../src/terminal/resources.ts";
import { eventually } from "../../support/http.ts";
import { type Env, NS, TOKENS, startEnv } from "./setup.ts";

const MIN = 60_000;
const ClusterRoles = resourceType({ group: "rbac.authorization.k8s.io", version: "v1", kind: "ClusterRole", plural: "clusterroles", namespaced: false });
let env: Env;
let dashboard: Dashboard;
const web = mkdtempSync(join(tmpdir(), "dashboard-web-"));

async function call(token: string, method: string, params: unknown): Promise<{ code: number; body: Record<string, unknown> & { message?: string } }> {
  const res = await fetch(`${dashboard.url}/api/terminals`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "x-requested-with": "XMLHttpRequest", "content-type": "application/json" },
    body: JSON.stringify({ method, params }),
  });
  return { code: res.status, body: (await res.json()) as Record<string, unknown> };
}

const exists = (name: string) => unlessNotFound(env.gardenAdmin.get(Terminals, { namespace: NS, name })).then((t) => t !== undefined && !t.metadata.deletionTimestamp);
const settle = <T>(what: string, fn: () => Promise<T | undefined>) => eventually(what, async () => (env.clock.step(50), fn()), 15_000, 20);

/** Stands in for the kubelet: the terminal pod runs with its container ready. */
async function runPod(name: string): Promise<void> {
  const t = await settle("pod named", async () => (await env.gardenAdmin.get(Terminals, { namespace: NS, name })).status?.podName ? env.gardenAdmin.get(Terminals, { namespace: NS, name }) : undefined);
  const key = { namespace: t.spec.host.namespace ?? "", name: t.status?.podName ?? "" };
  await settle("pod created", () => unlessNotFound(env.shootAdmin.get(Pods, key)));
  await env.shootAdmin.patchStatus(Pods, key, { type: "merge", body: { status: { phase: "Running", containerStatuses: [{ name: "terminal", ready: true, image: "busybox:1.36", imageID: "", restartCount: 0, state: { running: {} } }] } } });
}

const create = (token: string, identifier: string) => call(token, "create", { coordinate: { namespace: NS, name: "s", target: "garden" }, identifier, container: { image: "busybox:1.36", command: ["sh"] } });

before(async () => {
  env = await startEnv({ timeToLiveMs: 5 * MIN, honourCleanupProjectMembership: true });
  await env.gardenAdmin.create(Projects, { metadata: { name: "p" }, spec: { namespace: NS } } as never);
  // alice administers project p: she may manage its members (patch the Project), as cleanupProjectMembership needs
  await env.gardenAdmin.create(ClusterRoles, { metadata: { name: "project-p-admin" }, rules: [{ apiGroups: ["core.gardener.cloud"], resources: ["projects"], resourceNames: ["p"], verbs: ["get", "patch"] }, { apiGroups: [""], resources: ["serviceaccounts"], verbs: ["patch"] }] });
  await env.gardenAdmin.create(ClusterRoleBindings, { metadata: { name: "project-p-admin-alice" }, subjects: [{ kind: "User", name: "alice", apiGroup: "rbac.authorization.k8s.io" }], roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "project-p-admin" } });
  dashboard = await startDashboard({
    apiServer: { url: env.gardenUrl, caPem: env.gardenCaPem },
    webRoot: web,
    terminals: {
      config: { readyTimeoutSeconds: 10 },
      hosts: async () => {
        const client = Client.fromKubeconfigFile(env.shoot.adminKubeconfigPath);
        return { client, url: env.shoot.url, caPem: env.shoot.caPem, close: () => client.close() };
      },
    },
  });
});
after(async () => {
  await dashboard?.close();
  await env?.stop();
  rmSync(web, { recursive: true, force: true });
});

void describe("dashboard terminals", { timeout: 120_000 }, () => {
  it("a member creates a terminal as themself, fetch answers a running pod, heartbeats keep it, remove deletes it", async () => {
    const created = await create(TOKENS.alice, "pane-1");
    assert.equal(created.code, 200, created.body.message);
    const meta = created.body.metadata as { name: string; namespace: string; identifier: string };
    assert.equal(meta.identifier, "pane-1");
    const t = await env.gardenAdmin.get(Terminals, { namespace: NS, name: meta.name });
    assert.equal(t.metadata.annotations?.["gardener.cloud/created-by"], "alice", "created with alice's own token");
    assert.equal((created.body.hostCluster as { namespace: string }).namespace, t.spec.host.namespace);
    // the same pane again finds the same Terminal
    const again = await create(TOKENS.alice, "pane-1");
    assert.equal((again.body.metadata as { name: string }).name, meta.name);
    const listed = await call(TOKENS.alice, "list", { coordinate: { namespace: NS } });
    assert.deepEqual(listed.body, [{ metadata: meta }]);
    assert.deepEqual((await call(TOKENS.carol, "list", { coordinate: { namespace: NS } })).body, []);

    const [fetched] = await Promise.all([call(TOKENS.alice, "fetch", { name: meta.name, namespace: NS }), runPod(meta.name)]);
    assert.equal(fetched.code, 200, fetched.body.message);
    const host = fetched.body.hostCluster as { token: string; pod: { name: string; container: string } };
    assert.equal(host.pod.container, "terminal");
    assert.equal(host.token.split(".").length, 3, "a ServiceAccount token of the attach ServiceAccount");

    const other = await call(TOKENS.carol, "heartbeat", { name: meta.name, namespace: NS });
    assert.equal(other.code, 403);
    assert.equal(other.body.message, `You are not allowed to keep terminal session alive with name ${meta.name}`);
    for (let i = 0; i < 3; i++) {
      env.clock.step(3 * MIN);
      assert.equal((await call(TOKENS.alice, "heartbeat", { name: meta.name, namespace: NS })).code, 200);
    }
    env.clock.step(MIN);
    assert.ok(await exists(meta.name), "9 minutes with heartbeats every 3 keep a 5 minute time to live");

    assert.equal((await call(TOKENS.carol, "remove", { name: meta.name, namespace: NS })).code, 403);
    const removed = await call(TOKENS.alice, "remove", { name: meta.name, namespace: NS });
    assert.equal(removed.code, 200);
    await settle("terminal and pod gone", async () => ((await unlessNotFound(env.gardenAdmin.get(Terminals, { namespace: NS, name: meta.name }))) ? undefined : true));
    assert.equal((await call(TOKENS.alice, "remove", { name: meta.name, namespace: NS })).code, 200, "removing twice succeeds");
  });

  it("a member who may not use the credential gets the webhook's message, a non-member the API server's", async () => {
    const refused = await create(TOKENS.carol, "pane-carol");
    assert.equal(refused.code, 403);
    assert.equal(refused.body.message, 'admission webhook "validating-create-update-terminal.gardener.cloud" denied the request: spec.target.credentials: Forbidden: carol is not allowed to read target credential');
    const outsider = await create(TOKENS.bob, "pane-bob");
    assert.equal(outsider.code, 403);
    assert.match(outsider.body.message ?? "", /User "bob" cannot list resource "terminals"/);
  });

  it("client mistakes are 4xx Statuses", async () => {
    assert.equal((await call(TOKENS.alice, "explode", {})).body.message, "explode not allowed for terminals");
    assert.equal((await call("wrong", "list", { coordinate: { namespace: NS } })).code, 401);
    assert.equal((await call(TOKENS.alice, "fetch", { name: "../x", namespace: NS })).code, 422);
    const csrf = await fetch(`${dashboard.url}/api/terminals`, { method: "POST", headers: { authorization: `Bearer ${TOKENS.alice}` }, body: "{}" });
    assert.equal(csrf.status, 403);
  });

  it("without heartbeats the Terminal is gone after its time to live", async () => {
    const created = await create(TOKENS.alice, "pane-idle");
    assert.equal(created.code, 200, created.body.message);
    const name = (created.body.metadata as { name: string }).name;
    env.clock.step(4 * MIN);
    assert.ok(await exists(name));
    env.clock.step(2 * MIN);
    await settle("idle terminal removed", async () => ((await unlessNotFound(env.gardenAdmin.get(Terminals, { namespace: NS, name }))) ? undefined : true));
  });
});
