// A member's garden terminals with the project's RBAC as Gardener's project controller writes it (the
// controller runs here; docs/terminals.md#the-serviceaccount-controller): the dashboard, as the member,
// creates the project's dashboard-webterminal ServiceAccount and makes it a project member with roles
// admin and serviceaccountmanager, the only rights it has; each Terminal ties it to itself (finalizer
// gardener.cloud/terminal, reference label, owner reference), so the garbage collector deletes it after
// the last one. The webhook admits cleanupProjectMembership for a member with role admin (she may
// patch her Project) and refuses a user who may use the credential but not patch the Project; a
// viewer may not create Terminals at all. While a Terminal uses the ServiceAccount it stays a project
// member; after the last one it leaves the members and its deletion completes instead of sticking on
// the finalizer. A labelled ServiceAccount no Terminal uses is released at once. Each Terminal's
// access ServiceAccount is a project member (projectMemberships) until the Terminal goes.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { pino } from "pino";
import type { Project } from "../../../src/apis/gardencore/v1beta1/types.ts";
import { ClusterRoleBindings } from "../../../src/client/builtins.ts";
import { Client } from "../../../src/client/client.ts";
import { Projects } from "../../../src/client/garden.ts";
import { unlessNotFound } from "../../../src/client/helpers.ts";
import { addProjectController } from "../../../src/controllermanager/controller/project/add.ts";
import { Manager } from "../../../src/controllerruntime/manager.ts";
import { type Dashboard, startDashboard } from "../../../src/dashboard/server.ts";
import { ServiceAccounts, Terminals } from "../../../src/terminal/resources.ts";
import { eventually } from "../../support/http.ts";
import { type Env, NS, SA, TOKENS, startEnv, terminalsCall } from "./setup.ts";

const RBAC = "rbac.authorization.k8s.io";
let env: Env;
let dashboard: Dashboard;
let gcm: Manager;
const web = mkdtempSync(join(tmpdir(), "sa-web-"));

const call = (method: string, params: unknown, token: string = TOKENS.alice) => terminalsCall(dashboard.url, token, method, params);

const settle = <T>(what: string, fn: () => Promise<T | undefined>) => eventually(what, async () => (env.clock.step(50), fn()), 15_000, 20);
const sa = () => unlessNotFound(env.gardenAdmin.get(ServiceAccounts, { namespace: NS, name: SA }));
const project = async () => (await env.gardenAdmin.get(Projects, { name: "p" })) as Project;
const members = async () => (await project()).spec?.members?.map((m) => `${m.kind}/${m.name}`) ?? [];
const create = (identifier: string, token?: string) => call("create", { coordinate: { namespace: NS, name: "s", target: "garden" }, identifier, container: { image: "busybox:1.36" } }, token);

async function gardenTerminal(identifier: string): Promise<string> {
  const created = await create(identifier);
  assert.equal(created.code, 200, created.body.message);
  return (created.body.metadata as { name: string }).name;
}

async function removeTerminal(name: string): Promise<void> {
  assert.equal((await call("remove", { name, namespace: NS })).code, 200);
  await settle(`${name} gone`, async () => ((await unlessNotFound(env.gardenAdmin.get(Terminals, { namespace: NS, name }))) ? undefined : true));
}

before(async () => {
  env = await startEnv({ honourCleanupProjectMembership: true, webterminal: false });
  gcm = new Manager({ client: env.gardenAdmin, logger: pino({ level: "silent" }), server: false, defaultMetrics: false });
  addProjectController(gcm);
  await gcm.start();
  // alice administers project p and manages its ServiceAccounts; vera views it; carol is no member, but a
  // hand-made RoleBinding (setup.ts) lets her create Terminals and the project makes her serviceaccountmanager
  const user = (name: string, role: string, roles?: string[]) => ({ apiGroup: RBAC, kind: "User" as const, name, role, ...(roles ? { roles } : {}) });
  await env.gardenAdmin.create(Projects, { metadata: { name: "p" }, spec: { namespace: NS, members: [user("alice", "admin", ["serviceaccountmanager"]), user("vera", "viewer"), user("carol", "serviceaccountmanager")] } });
  await eventually("the project's RBAC", async () => ((await unlessNotFound(env.gardenAdmin.get(ClusterRoleBindings, { name: "gardener.cloud:system:project-member:p" })))?.subjects?.some((s) => s.name === "alice") ? true : undefined));
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
  await gcm?.stop();
  await env?.stop();
  rmSync(web, { recursive: true, force: true });
});

void describe("a member's garden terminals and the ServiceAccount controller", { timeout: 60_000 }, () => {
  it("the dashboard makes dashboard-webterminal a member (admin, serviceaccountmanager), kept while a Terminal uses it; after the last, it leaves the members and its deletion completes", async () => {
    assert.equal(await sa(), undefined, "no ServiceAccount before the first garden terminal");
    const first = await gardenTerminal("pane-1");
    const webterminal = (await project()).spec?.members?.find((m) => m.kind === "ServiceAccount" && m.name === SA);
    assert.deepEqual(webterminal, { apiGroup: "", kind: "ServiceAccount", name: SA, namespace: NS, role: "admin", roles: ["serviceaccountmanager"] }, "joined before the Terminal was created");
    const second = await gardenTerminal("pane-2");
    // the Terminals reconcile with the ServiceAccount's token, whose rights are the membership's alone
    await settle("both Terminals reconciled", async () => {
      const ts = await Promise.all([first, second].map((name) => env.gardenAdmin.get(Terminals, { namespace: NS, name })));
      return ts.every((t) => t.status?.lastOperation?.state === "Succeeded") ? true : undefined;
    });
    // each Terminal's access ServiceAccount joins the project with the projectMemberships' roles (docs/terminals.md#project-memberships)
    const accessOf = async (name: string) => `term-access-${(await env.gardenAdmin.get(Terminals, { namespace: NS, name })).spec.identifier}`;
    const access = [await accessOf(first), await accessOf(second)];
    const accessMembers = async () => (await project()).spec?.members?.filter((m) => access.includes(m.name)) ?? [];
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
    assert.deepEqual(await members(), ["User/alice", "User/vera", "User/carol"], "it left the project's members");
  });

  it("who may use the credential but not patch the Project gets the webhook's manage-members refusal; a viewer may not create Terminals", async () => {
    const carol = await create("pane-carol", TOKENS.carol);
    assert.equal(carol.code, 403);
    assert.equal(carol.body.message, 'admission webhook "validating-create-update-terminal.gardener.cloud" denied the request: spec.target.cleanupProjectMembership: Forbidden: carol is not allowed to manage project members');
    const vera = await create("pane-vera", TOKENS.vera);
    assert.equal(vera.code, 403);
    assert.match(vera.body.message ?? "", /User "vera" cannot create resource "terminals"/);
    assert.ok(!(await members()).includes(`ServiceAccount/${SA}`), "neither made the ServiceAccount a member");
  });

  it("a labelled, finalized ServiceAccount that no Terminal uses is released at once; so is one whose label is gone", async () => {
    await env.gardenAdmin.create(ServiceAccounts, { metadata: { namespace: NS, name: "unused", labels: { "reference.dashboard.gardener.cloud/terminal": "true" }, finalizers: ["gardener.cloud/terminal"] } });
    await settle("unused released", async () => ((await env.gardenAdmin.get(ServiceAccounts, { namespace: NS, name: "unused" })).metadata.finalizers?.length ? undefined : true));
    await env.gardenAdmin.create(ServiceAccounts, { metadata: { namespace: NS, name: "unlabelled", finalizers: ["gardener.cloud/terminal"] } });
    await env.gardenAdmin.delete(ServiceAccounts, { namespace: NS, name: "unlabelled" });
    await settle("unlabelled deleted", async () => ((await unlessNotFound(env.gardenAdmin.get(ServiceAccounts, { namespace: NS, name: "unlabelled" }))) ? undefined : true));
  });
});
