// Seed hosts (docs/terminals.md#seed-hosts): a seed that is not a ManagedSeed hosts terminals through a
// kubeconfig Secret in the garden (`secretRef` credentials). The second in-process API server plays the
// seed: its admin kubeconfig is the Secret. Only who may read the Secret may use it; the controller
// builds an operator's control-plane terminal there (host and target the seed, the shoot's namespace)
// and removes it; a kubeconfig that points at files is refused; the dashboard picks the Secret for
// target `cp` when the shoot's seed has a seedHosts entry. Through the dashboard (its default host
// resolution): an operator creates a cp terminal, `fetch` resolves the seed from the Secret read as
// the operator and answers a running pod, and the attach relay reaches the pod on the seed; a creator
// who may no longer read the Secret gets the garden's refusal from both.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, before, describe, it } from "node:test";
import type { Terminal } from "../../../src/apis/dashboard/v1alpha1/types.ts";
import type { Shoot } from "../../../src/apis/gardencore/v1beta1/types.ts";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import WebSocket from "ws";
import { Namespaces, RoleBindings, Secrets } from "../../../src/client/builtins.ts";
import { Shoots } from "../../../src/client/garden.ts";
import { type Dashboard, TERMINAL_PROTOCOL, TOKEN_PROTOCOL_PREFIX, startDashboard } from "../../../src/dashboard/server.ts";
import type { Client } from "../../../src/client/client.ts";
import { unlessNotFound } from "../../../src/client/helpers.ts";
import { terminalConfig, terminalConfigFromFile } from "../../../src/dashboard/terminals/config.ts";
import { ADMINISTRATORS_ROLE, publishOperatorTerminalAccess } from "../../../src/landscape/operator-terminals.ts";
import { SEED_HOST_SECRET, dashboardConfig } from "../../../src/landscape/terminals.ts";
import { terminalSpec } from "../../../src/dashboard/terminals/spec.ts";
import { ClusterRoleBindings, Pods, ServiceAccounts, SubjectAccessReviews, Terminals } from "../../../src/terminal/resources.ts";
import { eventually } from "../../support/http.ts";
import { type StandinKubelet, startStandinKubelet } from "./kubelet-standin.ts";
import { type Env, NS, TOKENS, startEnv, terminalsCall } from "./setup.ts";

const CP = "shoot--p--s";
const SECRET = SEED_HOST_SECRET;
let env: Env;
let alice: Client;
let olga: Client;
let dashboard: Dashboard;
let kubelet: StandinKubelet;
const web = mkdtempSync(join(tmpdir(), "seedhost-web-"));

function cpTerminal(name: string, credentials: Terminal["spec"]["host"]["credentials"]): Terminal {
  return {
    metadata: { name, namespace: NS },
    spec: {
      host: { credentials, namespace: CP, pod: { container: { image: "busybox:1.36" } } },
      target: {
        credentials,
        namespace: CP,
        kubeconfigContextNamespace: CP,
        authorization: { roleBindings: [{ nameSuffix: "", bindingKind: "RoleBinding", roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "cluster-admin" } }] },
      },
    } as Terminal["spec"],
  };
}

const settle = <T>(what: string, fn: () => Promise<T | undefined>): Promise<T> => eventually(what, async () => (env.clock.step(50), fn()), 15_000, 20);
const message = (err: unknown) => (err as Error).message;

before(async () => {
  env = await startEnv();
  alice = await env.clientFor("alice");
  olga = await env.clientFor("olga");
  // olga is an operator (she may read every Secret: the dashboard's isAdmin); alice a project member.
  await env.gardenAdmin.create(ClusterRoleBindings, { metadata: { name: "olga-admin" }, subjects: [{ kind: "User", name: "olga", apiGroup: "rbac.authorization.k8s.io" }], roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "cluster-admin" } });
  if (!(await unlessNotFound(env.gardenAdmin.get(Namespaces, { name: "garden" })))) await env.gardenAdmin.create(Namespaces, { metadata: { name: "garden" } });
  const kubeconfig = readFileSync(env.shoot.adminKubeconfigPath, "utf8");
  await env.gardenAdmin.create(Secrets, { metadata: SECRET, data: { kubeconfig: Buffer.from(kubeconfig).toString("base64") } });
  await env.shootAdmin.create(Namespaces, { metadata: { name: CP } });
  // shoot s of project p runs on seed local (no ManagedSeed), its control plane in CP
  await env.gardenAdmin.create(Shoots, { metadata: { name: "s", namespace: NS }, spec: { seedName: "local", provider: { type: "local", workers: [] } } } as never);
  await env.gardenAdmin.patchStatus(Shoots, { namespace: NS, name: "s" }, { type: "merge", body: { status: { technicalID: CP } } });
  kubelet = await startStandinKubelet(env.shootAdmin, env.shoot.ca);
  await publishOperatorTerminalAccess(env.gardenAdmin);
  dashboard = await startDashboard({
    apiServer: { url: env.gardenUrl, caPem: env.gardenCaPem },
    webRoot: web,
    // the local landscape's configuration: seed local hosts cp terminals and operators' garden terminals
    terminals: { config: { readyTimeoutSeconds: 10, ...terminalConfigFromFile(dashboardConfig()) } },
  });
});
after(async () => {
  await dashboard?.close();
  await kubelet?.close();
  await env?.stop();
  rmSync(web, { recursive: true, force: true });
});

const call = (token: string, method: string, params: unknown) => terminalsCall(dashboard.url, token, method, params);

/** The Terminal's pod on the seed runs (the stand-in kubelet's node, its container ready). */
async function runPod(name: string): Promise<{ namespace: string; name: string }> {
  const t = await settle("pod named", async () => {
    const x = await env.gardenAdmin.get(Terminals, { namespace: NS, name });
    return x.status?.podName ? x : undefined;
  });
  const key = { namespace: t.spec.host.namespace ?? "", name: t.status?.podName ?? "" };
  await settle("pod created", () => unlessNotFound(env.shootAdmin.get(Pods, key)));
  await kubelet.bind(key.namespace, key.name);
  await env.shootAdmin.patchStatus(Pods, key, { type: "merge", body: { status: { phase: "Running", containerStatuses: [{ name: "terminal", ready: true, image: "busybox:1.36", imageID: "", restartCount: 0, state: { running: {} } }] } } });
  return key;
}

/** Attaches through the dashboard: the first output, or the refusal before the upgrade. */
function attach(token: string, name: string): Promise<{ output: string } | { code: number; message: string }> {
  const url = `${dashboard.url.replace("http", "ws")}/api/terminals/attach/${NS}/${name}?container=terminal&stdin=true&stdout=true&tty=true`;
  const ws = new WebSocket(url, [TOKEN_PROTOCOL_PREFIX + Buffer.from(token).toString("base64url"), TERMINAL_PROTOCOL]);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => (ws.terminate(), reject(new Error("no output and no refusal within 10 s"))), 10_000);
    ws.on("error", () => undefined);
    ws.on("message", (data: Buffer, isBinary) => {
      if (!isBinary) return;
      clearTimeout(timer);
      ws.close();
      resolve({ output: data.toString() });
    });
    ws.on("unexpected-response", (_req, res) => {
      let text = "";
      res.on("data", (c: Buffer) => (text += c.toString()));
      res.on("end", () => (clearTimeout(timer), resolve({ code: res.statusCode ?? 0, message: (JSON.parse(text) as { message: string }).message })));
    });
  });
}

const cpPane = (token: string, identifier: string) => call(token, "create", { coordinate: { namespace: NS, name: "s", target: "cp" }, identifier });

void describe("terminals hosted on a seed through a kubeconfig Secret", { timeout: 60_000 }, () => {
  it("refuses the Secret to a member who may not read it, and a Secret beside another credential", async () => {
    await assert.rejects(alice.create(Terminals, cpTerminal("t-member", { secretRef: SECRET })), (err) => {
      assert.match(message(err), /denied the request: spec\.target\.credentials: Forbidden: alice is not allowed to read target credential/);
      return true;
    });
    await assert.rejects(olga.create(Terminals, cpTerminal("t-both", { secretRef: SECRET, shootRef: { namespace: NS, name: "s" } })), (err) => {
      assert.match(message(err), /spec\.target\.credentials: Forbidden: only one of 'secretRef', 'shootRef' or 'serviceAccountRef' must be set/);
      return true;
    });
  });

  it("builds an operator's control-plane terminal on the seed the Secret reaches, and removes it", async () => {
    const t = await olga.create(Terminals, cpTerminal("t-cp", { secretRef: SECRET }));
    const id = t.spec.identifier;
    const ready = await settle("t-cp ready", async () => {
      const x = await env.gardenAdmin.get(Terminals, { namespace: NS, name: "t-cp" });
      return x.status?.podName && x.status.lastOperation?.state === "Succeeded" ? x : undefined;
    });
    assert.equal(ready.status?.attachServiceAccountName, `term-attach-${id}`);
    const pod = await env.shootAdmin.get(Pods, { namespace: CP, name: `term-${id}` });
    assert.equal(pod.spec?.containers?.[0]?.name, "terminal");
    await env.shootAdmin.get(ServiceAccounts, { namespace: CP, name: `term-access-${id}` });
    const kc = await env.shootAdmin.get(Secrets, { namespace: CP, name: `term-kubeconfig-${id}` });
    const config = JSON.parse(Buffer.from(kc.data?.kubeconfig ?? "", "base64").toString("utf8")) as { clusters: { cluster: { server: string } }[]; contexts: { context: { namespace: string } }[] };
    assert.equal(config.clusters[0]?.cluster.server, env.shoot.url, "the target's server from the Secret's kubeconfig");
    assert.equal(config.contexts[0]?.context.namespace, CP);
    // Host and target are the same credential and namespace: the pod uses a projected token, no token Secret.
    assert.equal(await unlessNotFound(env.shootAdmin.get(Secrets, { namespace: CP, name: `term-token-${id}` })), undefined);

    await olga.delete(Terminals, { namespace: NS, name: "t-cp" });
    await settle("t-cp gone", async () => ((await unlessNotFound(env.gardenAdmin.get(Terminals, { namespace: NS, name: "t-cp" }))) ? undefined : true));
    assert.equal(await unlessNotFound(env.shootAdmin.get(Pods, { namespace: CP, name: `term-${id}` })).then((p) => p?.metadata.deletionTimestamp ? undefined : p), undefined, "the pod is gone (or going)");
    assert.equal(await unlessNotFound(env.shootAdmin.get(ServiceAccounts, { namespace: CP, name: `term-access-${id}` })), undefined);
    assert.equal(await unlessNotFound(env.shootAdmin.get(ServiceAccounts, { namespace: CP, name: `term-attach-${id}` })), undefined);
  });

  it("a Secret whose kubeconfig reads files is not used: the Terminal reports why", async () => {
    const bad = { namespace: "garden", name: "file-host" };
    const text = `apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: "${env.shoot.url}", certificate-authority: /etc/ssl/ca.crt}}]\nusers: [{name: u, user: {token-file: /etc/shadow}}]\ncontexts: [{name: c, context: {cluster: c, user: u}}]\ncurrent-context: c\n`;
    await env.gardenAdmin.create(Secrets, { metadata: bad, data: { kubeconfig: Buffer.from(text).toString("base64") } });
    await olga.create(Terminals, cpTerminal("t-file", { secretRef: bad }));
    const t = await settle("t-file error", async () => {
      const x = await env.gardenAdmin.get(Terminals, { namespace: NS, name: "t-file" });
      return x.status?.lastError ? x : undefined;
    });
    assert.match(t.status?.lastError?.description ?? "", /secret garden\/file-host: the kubeconfig must carry its credentials inline, not certificate-authority, token-file/);
    assert.equal(t.status?.podName, undefined);
    await olga.delete(Terminals, { namespace: NS, name: "t-file" });
  });

  it("the dashboard hosts an operator's cp terminal through the seed's seedHosts Secret, with the Secret's CA", async () => {
    const cfg = terminalConfig({ garden: { url: env.gardenUrl, caPem: env.gardenCaPem }, seedHosts: { local: { secretRef: SECRET } } });
    const shoot = { metadata: { name: "s", namespace: NS }, spec: { seedName: "local" }, status: { technicalID: CP } } as unknown as Shoot;
    const spec = await terminalSpec(olga, cfg, { coordinate: { namespace: NS, name: "s", target: "cp" }, identifier: "pane" }, true, shoot, "seed", "busybox:1.36");
    assert.deepEqual(spec.host.credentials, { secretRef: SECRET });
    assert.deepEqual(spec.target.credentials, { secretRef: SECRET });
    assert.equal(spec.host.namespace, CP);
    assert.equal(Buffer.from(spec.target.apiServer?.caData ?? "", "base64").toString(), env.shoot.caPem);
    // A seed without ManagedSeed or seedHosts entry hosts nothing.
    const other = { ...shoot, spec: { seedName: "other" } } as unknown as Shoot;
    await assert.rejects(terminalSpec(olga, cfg, { coordinate: { namespace: NS, name: "s", target: "cp" }, identifier: "pane" }, true, other, "seed", "busybox:1.36"), /terminal cannot be hosted on non-managed seed/);
  });

  it("through the dashboard: an operator's cp terminal on the seed is fetched and attached via the Secret, read as the operator", async () => {
    const created = await cpPane(TOKENS.olga, "pane-cp");
    assert.equal(created.code, 200, created.body.message);
    const name = (created.body.metadata as { name: string }).name;
    assert.equal((created.body.hostCluster as { namespace: string }).namespace, CP);
    const [fetched, pod] = await Promise.all([call(TOKENS.olga, "fetch", { name, namespace: NS }), runPod(name)]);
    assert.equal(fetched.code, 200, fetched.body.message);
    const host = fetched.body.hostCluster as { token: string; namespace: string; pod: { name: string; nodeName: string } };
    assert.deepEqual({ namespace: host.namespace, pod: host.pod.name, node: host.pod.nodeName }, { namespace: CP, pod: pod.name, node: "standin" });
    assert.equal(host.token.split(".").length, 3, "a token of the attach ServiceAccount on the seed");
    const session = await attach(TOKENS.olga, name);
    assert.deepEqual(session, { output: `attached ${CP}/${pod.name}\r\n` }, "the relay reached the pod on the seed the Secret names");
    assert.equal((await call(TOKENS.olga, "remove", { name, namespace: NS })).code, 200);
  });

  it("through the dashboard: an operator's garden terminal runs on the seed (gardenTerminalHost) with the administrators' role in the garden", async () => {
    const created = await call(TOKENS.olga, "create", { coordinate: { namespace: NS, target: "garden" }, identifier: "pane-garden" });
    assert.equal(created.code, 200, created.body.message);
    const name = (created.body.metadata as { name: string }).name;
    const t = await env.gardenAdmin.get(Terminals, { namespace: NS, name });
    assert.deepEqual(t.spec.host.credentials, { secretRef: SECRET });
    const [fetched, pod] = await Promise.all([call(TOKENS.olga, "fetch", { name, namespace: NS }), runPod(name)]);
    assert.equal(fetched.code, 200, fetched.body.message);
    assert.deepEqual(await attach(TOKENS.olga, name), { output: `attached ${pod.namespace}/${pod.name}\r\n` });
    const id = t.spec.identifier;
    const review = await env.gardenAdmin.create(SubjectAccessReviews, { metadata: {}, spec: { user: `system:serviceaccount:garden:term-access-${id}`, resourceAttributes: { verb: "list", resource: "secrets", namespace: "garden" } } } as never);
    assert.equal(review.status?.allowed, true, `the access ServiceAccount is bound to ${ADMINISTRATORS_ROLE}`);
    assert.equal((await call(TOKENS.olga, "remove", { name, namespace: NS })).code, 200);
    await settle("garden terminal gone", async () => ((await unlessNotFound(env.gardenAdmin.get(Terminals, { namespace: NS, name }))) ? undefined : true));
    assert.equal(await unlessNotFound(env.gardenAdmin.get(ServiceAccounts, { namespace: "garden", name: `term-access-${id}` })), undefined, "the access ServiceAccount is gone from the garden");
  });

  it("a creator who may no longer read the Secret is refused by fetch and attach with the garden's answer", async () => {
    // oscar operates while he creates the terminal, then is only a project member
    const binding = { metadata: { name: "oscar-admin" }, subjects: [{ kind: "User" as const, name: "oscar", apiGroup: "rbac.authorization.k8s.io" }], roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "cluster-admin" } };
    await env.gardenAdmin.create(ClusterRoleBindings, binding);
    await env.gardenAdmin.create(RoleBindings, { metadata: { namespace: NS, name: "member-oscar" }, subjects: binding.subjects, roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "gardener.cloud:system:project-member" } });
    const created = await cpPane(TOKENS.oscar, "pane-oscar");
    assert.equal(created.code, 200, created.body.message);
    const name = (created.body.metadata as { name: string }).name;
    await runPod(name);
    await env.gardenAdmin.delete(ClusterRoleBindings, { name: "oscar-admin" });
    const secretForbidden = new RegExp(`User "oscar" cannot get resource "secrets" .*namespace "garden"`);
    const fetched = await eventually("fetch refused", async () => {
      const r = await call(TOKENS.oscar, "fetch", { name, namespace: NS });
      return r.code === 200 ? undefined : r;
    }, 5000, 50);
    assert.equal(fetched.code, 403, fetched.body.message);
    assert.match(fetched.body.message ?? "", secretForbidden);
    const refused = await attach(TOKENS.oscar, name);
    assert.ok("code" in refused, "the attach is refused before the upgrade");
    assert.equal(refused.code, 403);
    assert.match(refused.message, secretForbidden);
    assert.equal(kubelet.attaches.length, 2, "only olga's attaches reached the seed");
    await env.gardenAdmin.delete(Terminals, { namespace: NS, name });
  });
});
