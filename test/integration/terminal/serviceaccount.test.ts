// The ServiceAccount controller (docs/terminals.md#the-serviceaccount-controller) with the dashboard's
// garden terminals of a member: each ties the project's dashboard-webterminal ServiceAccount to itself
// (finalizer gardener.cloud/terminal, reference label, owner reference), so the garbage collector
// deletes the ServiceAccount after the last one. While a Terminal still uses it, it stays a project
// member; after the last one it leaves the project's members and its deletion completes instead of
// sticking on the finalizer. A labelled ServiceAccount no Terminal uses is released at once. Each
// Terminal's access ServiceAccount is a project member (projectMemberships) until the Terminal goes.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { Project } from "../../../src/apis/gardencore/v1beta1/types.ts";
import { Client } from "../../../src/client/client.ts";
import { Projects } from "../../../src/client/garden.ts";
import { unlessNotFound } from "../../../src/client/helpers.ts";
import { resourceType } from "../../../src/client/resource.ts";
import { type Dashboard, startDashboard } from "../../../src/dashboard/server.ts";
import { ClusterRoleBindings, ServiceAccounts, Terminals } from "../../../src/terminal/resources.ts";
import { eventually } from "../../support/http.ts";
import { type Env, NS, SA, TOKENS, startEnv, terminalsCall } from "./setup.ts";

const ClusterRoles = resourceType({ group: "rbac.authorization.k8s.io", version: "v1", kind: "ClusterRole", plural: "clusterroles", namespaced: false });
const SA_MEMBER = { kind: "ServiceAccount", name: SA, namespace: NS, role: "admin", roles: ["serviceaccountmanager"] };
let env: Env;
let dashboard: Dashboard;
const web = mkdtempSync(join(tmpdir(), "sa-web-"));

const call = (method: string, params: unknown) => terminalsCall(dashboard.url, TOKENS.alice, method, params);

const settle = <T>(what: string, fn: () => Promise<T | undefined>) => eventually(what, async () => (env.clock.step(50), fn()), 15_000, 20);
const sa = () => unlessNotFound(env.gardenAdmin.get(ServiceAccounts, { namespace: NS, name: SA }));
const members = async () => ((await env.gardenAdmin.get(Projects, { name: "p" })) as Project).spec?.members?.map((m) => `${m.kind}/${m.name}`) ?? [];

async function gardenTerminal(identifier: string): Promise<string> {
  const created = await call("create", { coordinate: { namespace: NS, name: "s", target: "garden" }, identifier, container: { image: "busybox:1.36" } });
  assert.equal(created.code, 200, created.body.message);
  return (created.body.metadata as { name: string }).name;
}

async function removeTerminal(name: string): Promise<void> {
  assert.equal((await call("remove", { name, namespace: NS })).code, 200);
  await settle(`${name} gone`, async () => ((await unlessNotFound(env.gardenAdmin.get(Terminals, { namespace: NS, name }))) ? undefined : true));
}

before(async () => {
  env = await startEnv({ honourCleanupProjectMembership: true });
  await env.gardenAdmin.create(Projects, { metadata: { name: "p" }, spec: { namespace: NS, members: [{ apiGroup: "rbac.authorization.k8s.io", kind: "User", name: "alice", role: "admin" }, SA_MEMBER] } } as never);
  await env.gardenAdmin.create(ClusterRoles, { metadata: { name: "project-p-admin" }, rules: [{ apiGroups: ["core.gardener.cloud"], resources: ["projects"], resourceNames: ["p"], verbs: ["get", "patch"] }, { apiGroups: [""], resources: ["serviceaccounts"], verbs: ["patch"] }] });
  await env.gardenAdmin.create(ClusterRoleBindings, { metadata: { name: "project-p-admin-alice" }, subjects: [{ kind: "User", name: "alice", apiGroup: "rbac.authorization.k8s.io" }], roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "project-p-admin" } });
  dashboard = await startDashboard({
    apiServer: { url: env.gardenUrl, caPem: env.gardenCaPem },
    webRoot: web,
    terminals: {
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

void describe("the ServiceAccount controller", { timeout: 60_000 }, () => {
  it("keeps the project's dashboard-webterminal while a Terminal uses it; after the last, it leaves the members and its deletion completes", async () => {
    const first = await gardenTerminal("pane-1");
    const second = await gardenTerminal("pane-2");
    // each Terminal's access ServiceAccount joins the project with the projectMemberships' roles (docs/terminals.md#project-memberships)
    const accessOf = async (name: string) => `term-access-${(await env.gardenAdmin.get(Terminals, { namespace: NS, name })).spec.identifier}`;
    const access = [await accessOf(first), await accessOf(second)];
    const accessMembers = async () => ((await env.gardenAdmin.get(Projects, { name: "p" })) as Project).spec?.members?.filter((m) => access.includes(m.name)) ?? [];
    await settle("both access ServiceAccounts project members", async () => ((await accessMembers()).length === 2 ? true : undefined));
    assert.deepEqual((await accessMembers()).map((m) => [m.apiGroup ?? "", m.kind, m.namespace, m.role, m.roles]).sort(), [["", "ServiceAccount", NS, "admin", undefined], ["", "ServiceAccount", NS, "admin", undefined]]);
    const tied = await sa();
    assert.equal(tied?.metadata.labels?.["reference.dashboard.gardener.cloud/terminal"], "true");
    assert.deepEqual(tied?.metadata.finalizers, ["gardener.cloud/terminal"]);
    assert.deepEqual(tied?.metadata.ownerReferences?.map((o) => o.name).sort(), [first, second].sort());

    await removeTerminal(first);
    assert.deepEqual((await accessMembers()).map((m) => m.name), [access[1]], "the first Terminal's access ServiceAccount left the project with it");
    const kept = await sa();
    assert.ok(kept && !kept.metadata.deletionTimestamp, "still owned by the second Terminal");
    assert.deepEqual(kept.metadata.finalizers, ["gardener.cloud/terminal"], "still referenced: the finalizer stays");
    assert.ok((await members()).includes(`ServiceAccount/${SA}`));

    await removeTerminal(second);
    await settle("dashboard-webterminal deleted, not stuck on its finalizer", async () => ((await sa()) ? undefined : true));
    assert.deepEqual(await members(), ["User/alice"], "it left the project's members");
  });

  it("a labelled, finalized ServiceAccount that no Terminal uses is released at once; so is one whose label is gone", async () => {
    await env.gardenAdmin.create(ServiceAccounts, { metadata: { namespace: NS, name: "unused", labels: { "reference.dashboard.gardener.cloud/terminal": "true" }, finalizers: ["gardener.cloud/terminal"] } });
    await settle("unused released", async () => ((await env.gardenAdmin.get(ServiceAccounts, { namespace: NS, name: "unused" })).metadata.finalizers?.length ? undefined : true));
    await env.gardenAdmin.create(ServiceAccounts, { metadata: { namespace: NS, name: "unlabelled", finalizers: ["gardener.cloud/terminal"] } });
    await env.gardenAdmin.delete(ServiceAccounts, { namespace: NS, name: "unlabelled" });
    await settle("unlabelled deleted", async () => ((await unlessNotFound(env.gardenAdmin.get(ServiceAccounts, { namespace: NS, name: "unlabelled" }))) ? undefined : true));
  });
});
