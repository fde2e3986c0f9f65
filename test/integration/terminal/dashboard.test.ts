// The dashboard's `POST /api/terminals` against the in-process garden and the terminal-controller-
// manager's real webhooks and controllers (docs/dashboard.md#terminals): a member creates a garden
// terminal as themself, fetch waits until the pod runs and answers the attach token, heartbeats keep
// it past its time to live, remove cleans up; a non-member gets the webhook's message; without
// heartbeats the Terminal is gone after its time to live. A member attaches to her Terminal's pod on
// the host through /api/terminals/attach (a stand-in kubelet behind the shoot's real pods/attach), the
// session lands in her recording, and another user can neither attach nor read it.
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
import { ClusterRoleBindings, Pods, ServiceAccounts, Terminals } from "../../../src/terminal/resources.ts";
import WebSocket from "ws";
import { TERMINAL_PROTOCOL, TOKEN_PROTOCOL_PREFIX } from "../../../src/dashboard/server.ts";
import { eventually } from "../../support/http.ts";
import { type StandinKubelet, startStandinKubelet } from "./kubelet-standin.ts";
import { type Env, NS, SA, TOKENS, startEnv } from "./setup.ts";

const MIN = 60_000;
const ClusterRoles = resourceType({ group: "rbac.authorization.k8s.io", version: "v1", kind: "ClusterRole", plural: "clusterroles", namespaced: false });
let env: Env;
let dashboard: Dashboard;
let kubelet: StandinKubelet;
const web = mkdtempSync(join(tmpdir(), "dashboard-web-"));
const recordingsDir = mkdtempSync(join(tmpdir(), "dashboard-recordings-"));

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
  await kubelet.bind(key.namespace, key.name);
  await env.shootAdmin.patchStatus(Pods, key, { type: "merge", body: { status: { phase: "Running", containerStatuses: [{ name: "terminal", ready: true, image: "busybox:1.36", imageID: "", restartCount: 0, state: { running: {} } }] } } });
}

const create = (token: string, identifier: string) => call(token, "create", { coordinate: { namespace: NS, name: "s", target: "garden" }, identifier, container: { image: "busybox:1.36", command: ["sh"] } });

before(async () => {
  env = await startEnv({ timeToLiveMs: 5 * MIN, honourCleanupProjectMembership: true });
  await env.gardenAdmin.create(Projects, { metadata: { name: "p" }, spec: { namespace: NS } } as never);
  // alice administers project p: she may manage its members (patch the Project), as cleanupProjectMembership needs
  await env.gardenAdmin.create(ClusterRoles, { metadata: { name: "project-p-admin" }, rules: [{ apiGroups: ["core.gardener.cloud"], resources: ["projects"], resourceNames: ["p"], verbs: ["get", "patch"] }, { apiGroups: [""], resources: ["serviceaccounts"], verbs: ["patch"] }] });
  await env.gardenAdmin.create(ClusterRoleBindings, { metadata: { name: "project-p-admin-alice" }, subjects: [{ kind: "User", name: "alice", apiGroup: "rbac.authorization.k8s.io" }], roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "project-p-admin" } });
  kubelet = await startStandinKubelet(env.shootAdmin, env.shoot.ca);
  dashboard = await startDashboard({
    apiServer: { url: env.gardenUrl, caPem: env.gardenCaPem },
    webRoot: web,
    recordings: { dir: recordingsDir },
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
  await kubelet?.close();
  await env?.stop();
  rmSync(web, { recursive: true, force: true });
  rmSync(recordingsDir, { recursive: true, force: true });
});


/** The project's dashboard-webterminal ServiceAccount, which the cleanup removes with the last Terminal using it. */
async function ensureWebterminalServiceAccount(): Promise<void> {
  const key = { namespace: NS, name: SA };
  const old = await unlessNotFound(env.gardenAdmin.get(ServiceAccounts, key));
  // One still owned by the Terminals of earlier cases (each removed, perhaps still finalizing) is the garbage
  // collector's to delete once they are gone: let that finish first, then start from a fresh one.
  const owners = old?.metadata.ownerReferences ?? [];
  if (old && !old.metadata.deletionTimestamp && owners.length > 0) {
    const ownerLives = async () => (await Promise.all(owners.map((o) => unlessNotFound(env.gardenAdmin.get(Terminals, { namespace: NS, name: o.name }))))).some(Boolean);
    await settle("the earlier cases' Terminals gone", async () => ((await ownerLives()) ? undefined : true));
    await settle("the garbage collector's deletion of the old ServiceAccount", async () => ((await unlessNotFound(env.gardenAdmin.get(ServiceAccounts, key))) ? undefined : true));
  } else if (old && !old.metadata.deletionTimestamp) return;
  if (old) await unlessNotFound(env.gardenAdmin.patch(ServiceAccounts, key, { type: "merge", body: { metadata: { finalizers: null } } }));
  await settle("old ServiceAccount gone", async () => ((await unlessNotFound(env.gardenAdmin.get(ServiceAccounts, key))) ? undefined : true));
  await env.gardenAdmin.create(ServiceAccounts, { metadata: key });
}

function attach(token: string, name: string): WebSocket {
  const url = `${dashboard.url.replace("http", "ws")}/api/terminals/attach/${NS}/${name}?container=terminal&stdin=true&stdout=true&tty=true`;
  return new WebSocket(url, [TOKEN_PROTOCOL_PREFIX + Buffer.from(token).toString("base64url"), TERMINAL_PROTOCOL]);
}

/** The refusal before the upgrade: its code and Status message. */
function refused(ws: WebSocket): Promise<{ code: number; message: string }> {
  return new Promise((resolve, reject) => {
    ws.on("open", () => reject(new Error("the dashboard upgraded")));
    ws.on("error", () => undefined);
    ws.on("unexpected-response", (_req, res) => {
      let text = "";
      res.on("data", (c: Buffer) => (text += c.toString()));
      res.on("end", () => resolve({ code: res.statusCode ?? 0, message: (JSON.parse(text) as { message: string }).message }));
    });
  });
}

/** A session: its text messages, its output so far, and a wait for output matching a pattern. */
function session(ws: WebSocket) {
  const texts: string[] = [];
  let out = "";
  const waiters: (() => void)[] = [];
  ws.on("message", (data: Buffer, isBinary) => {
    if (isBinary) out += data.toString();
    else texts.push(data.toString());
    waiters.splice(0).forEach((w) => w());
  });
  const until = (what: string, f: () => boolean) => new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`never saw ${what}; output: ${JSON.stringify(out)}, messages: ${texts.join(" ")}`)), 10_000);
    const check = () => (f() ? (clearTimeout(timer), resolve()) : waiters.push(check));
    check();
  });
  return { texts, out: () => out, until, closed: new Promise<void>((resolve) => ws.on("close", () => resolve())) };
}

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

  it("a member attaches to her terminal's host pod through the dashboard, recorded; others can neither attach nor read the recording", async () => {
    await ensureWebterminalServiceAccount();
    const created = await create(TOKENS.alice, "pane-attach");
    assert.equal(created.code, 200, created.body.message);
    const name = (created.body.metadata as { name: string }).name;
    const [fetched] = await Promise.all([call(TOKENS.alice, "fetch", { name, namespace: NS }), runPod(name)]);
    assert.equal(fetched.code, 200, fetched.body.message);
    const attachToken = (fetched.body.hostCluster as { token: string }).token;

    assert.deepEqual(await refused(attach(TOKENS.carol, name)), { code: 403, message: "You are not the user who created the terminal resource" });
    const outsider = await refused(attach(TOKENS.bob, name));
    assert.equal(outsider.code, 403);
    assert.match(outsider.message, /User "bob" cannot get resource "terminals"/);
    assert.equal((await refused(attach(TOKENS.alice, "term-missing"))).code, 404);
    assert.equal((await refused(attach("wrong", name))).code, 401);
    assert.equal(kubelet.attaches.length, 0, "no refused attach reached the host");

    const ws = attach(TOKENS.alice, name);
    const s = session(ws);
    await s.until("connected", () => s.texts.some((t) => t.includes('"connected"')));
    const connected = JSON.parse(s.texts.find((t) => t.includes('"connected"')) ?? "{}") as { connected: { recording: { id: string; input: boolean } } };
    assert.equal(connected.connected.recording.input, false);
    ws.send(JSON.stringify({ resize: { cols: 100, rows: 30 } }));
    await s.until("the resize", () => s.out().includes("size 100x30"));
    ws.send(Buffer.from("echo hello-relay\r"), { binary: true });
    await s.until("the echo", () => s.out().includes("echo hello-relay"));
    assert.ok(s.out().includes(`attached ${(await env.gardenAdmin.get(Terminals, { namespace: NS, name })).spec.host.namespace}/`), "attached to the Terminal's pod on the host");
    assert.ok(!s.texts.some((t) => t.includes(attachToken)), "the browser never sees the attach token");
    ws.close();
    await s.closed;
    await eventually("session ended", async () => (dashboard.sessions().size === 0 ? true : undefined), 5000, 20);

    // reconnect: a new socket to the same Terminal attaches again
    const again = attach(TOKENS.alice, name);
    const s2 = session(again);
    await s2.until("re-attached", () => s2.out().includes("attached "));
    again.close();
    await s2.closed;
    assert.equal(kubelet.attaches.length, 2);

    const id = connected.connected.recording.id;
    const listed = await eventually("both recordings ended", async () => {
      const l = (await call(TOKENS.alice, "listRecordings", { coordinate: { namespace: NS, name } })).body as unknown as { id: string; user: string; endedAt?: string }[];
      return l.length === 2 && l.every((r) => r.endedAt) ? l : undefined;
    }, 5000, 20);
    assert.equal(listed[1]?.id, id, "newest first");
    assert.equal(listed[1]?.user, "alice");
    const got = await fetch(`${dashboard.url}/api/terminals/recordings/${NS}/${id}`, { headers: { authorization: `Bearer ${TOKENS.alice}` } });
    assert.equal(got.status, 200);
    assert.equal(got.headers.get("content-type"), "application/x-asciicast");
    const [header, ...events] = (await got.text()).trim().split("\n").map((l) => JSON.parse(l) as unknown);
    // the greeting came before the first resize: the header has the default size
    assert.deepEqual({ ...(header as object), timestamp: 0 }, { version: 2, width: 80, height: 24, timestamp: 0, title: `${NS}/${name}`, env: { TERM: "xterm-256color" } });
    const ev = events as [number, string, string][];
    assert.ok(ev.some(([, code, data]) => code === "r" && data === "100x30"));
    const output = ev.filter(([, code]) => code === "o").map(([, , d]) => d).join("");
    assert.match(output, /attached .*size 100x30.*echo hello-relay/s);
    assert.ok(!ev.some(([, code]) => code === "i"), "keystrokes are not recorded by default");

    assert.deepEqual((await call(TOKENS.carol, "listRecordings", { coordinate: { namespace: NS } })).body, []);
    for (const token of [TOKENS.carol, TOKENS.bob]) {
      const other = await fetch(`${dashboard.url}/api/terminals/recordings/${NS}/${id}`, { headers: { authorization: `Bearer ${token}` } });
      assert.equal(other.status, 404, "another user's recording is not found");
    }
    assert.equal((await fetch(`${dashboard.url}/api/terminals/recordings/${NS}/${id}`)).status, 401);
    assert.equal((await call(TOKENS.alice, "remove", { name, namespace: NS })).code, 200);
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
    // The attach test's remove lets the garbage collector delete the ServiceAccount, which may still be under way.
    await ensureWebterminalServiceAccount();
    const created = await create(TOKENS.alice, "pane-idle");
    assert.equal(created.code, 200, created.body.message);
    const name = (created.body.metadata as { name: string }).name;
    env.clock.step(4 * MIN);
    assert.ok(await exists(name));
    env.clock.step(2 * MIN);
    await settle("idle terminal removed", async () => ((await unlessNotFound(env.gardenAdmin.get(Terminals, { namespace: NS, name }))) ? undefined : true));
  });
});
