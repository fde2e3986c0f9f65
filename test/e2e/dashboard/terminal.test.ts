// The dashboard's terminal in a real browser: Debian's headless chromium (playwright-core) opens the
// page served by src/dashboard/, which relays to pods/attach of an in-process API server and a real
// pod with a tty running sh on this host (the kubelet e2e fixture, no landscape). See docs/dashboard.md.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { request } from "node:https";
import { join } from "node:path";
import { after, afterEach, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { chromium, type Browser, type BrowserContextOptions, type Page, type WebSocketRoute } from "playwright-core";
import { WebSocket } from "ws";
import { build } from "vite";
import type { KubeObject } from "../../../src/apis/meta/v1/types.ts";
import { startDashboard, type Dashboard } from "../../../src/dashboard/server.ts";
import { skipUnlessRoot } from "../host/support.ts";
import { NS, startFixture, type Fixture } from "../kubelet/streaming-fixture.ts";

const CHROMIUM = "/usr/bin/chromium";
const WEB = fileURLToPath(new URL("../../../web/", import.meta.url));
const skip = skipUnlessRoot || (!existsSync(CHROMIUM) ? `${CHROMIUM} is missing: install Debian's chromium (npm run setup as root)` : false);

/** A ServiceAccount with the given pod rules in NS, and a token for it (TokenRequest as admin). */
async function userWithToken(f: Fixture, name: string, rules: unknown[]): Promise<string> {
  const c = f.server.client;
  await c.create({ group: "", resource: "serviceaccounts" }, { apiVersion: "v1", kind: "ServiceAccount", metadata: { name, namespace: NS } } as KubeObject);
  await c.create({ group: "rbac.authorization.k8s.io", resource: "roles" }, { apiVersion: "rbac.authorization.k8s.io/v1", kind: "Role", metadata: { name, namespace: NS }, rules } as KubeObject);
  await c.create({ group: "rbac.authorization.k8s.io", resource: "rolebindings" }, {
    apiVersion: "rbac.authorization.k8s.io/v1", kind: "RoleBinding", metadata: { name, namespace: NS },
    roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name }, subjects: [{ kind: "ServiceAccount", name, namespace: NS }],
  } as KubeObject);
  const body = JSON.stringify({ apiVersion: "authentication.k8s.io/v1", kind: "TokenRequest", spec: { expirationSeconds: 3600 } });
  return new Promise((resolve, reject) => {
    const req = request(`${f.server.url}/api/v1/namespaces/${NS}/serviceaccounts/${name}/token`, {
      method: "POST", ca: f.server.caPem, cert: f.adminCert.cert, key: f.adminCert.key, headers: { "content-type": "application/json" },
    }, (res) => {
      let text = "";
      res.on("data", (c: Buffer) => (text += c.toString()));
      res.on("end", () => (res.statusCode === 201 ? resolve((JSON.parse(text) as { status: { token: string } }).status.token) : reject(new Error(`${res.statusCode} ${text}`))));
    });
    req.on("error", reject);
    req.end(body);
  });
}

/** The xterm buffer's text, line by line. */
function screen(page: Page): Promise<string> {
  return page.evaluate(() => {
    const t = (globalThis as unknown as { dashboardTerminal?: { term: { buffer: { active: { length: number; getLine(i: number): { translateToString(trim: boolean): string } | undefined } } } } }).dashboardTerminal;
    if (!t) return "";
    const b = t.term.buffer.active;
    const lines: string[] = [];
    for (let i = 0; i < b.length; i++) lines.push(b.getLine(i)?.translateToString(true) ?? "");
    return lines.join("\n");
  });
}

async function until<T>(what: string, f: () => Promise<T | undefined | false>, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await f();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Logs in on the login page (the token then lives in the tab's sessionStorage). */
async function login(page: Page, dashboard: Dashboard, token: string, path = "/"): Promise<void> {
  await page.goto(`${dashboard.url}${path}`);
  await page.fill("[data-testid=login-token]", token);
  await page.click("[data-testid=login-submit]");
  await page.waitForSelector("[data-testid=whoami]");
}

async function open(page: Page, dashboard: Dashboard, token: string, pod: string): Promise<void> {
  await login(page, dashboard, token, `/?namespace=${NS}&pod=${pod}&container=c`);
  await page.click("button[name=connect]");
}

/**
 * Chromium's own logs of answers the tests provoke (a refused token, a Forbidden, a missing recording,
 * a refused WebSocket): network events, not mistakes of the page. Everything else a page logs as an
 * error or a warning, and every uncaught exception, fails the test that opened it.
 */
const EXPECTED_NETWORK_LOG = [/^Failed to load resource: the server responded with a status of (4\d\d|50[34]) /, /^WebSocket connection to '.*' failed: /];

describe("the dashboard's browser terminal", { skip, timeout: 90_000 }, () => {
  let f: Fixture;
  let dashboard: Dashboard;
  let browser: Browser;
  let member: string;
  let viewer: string;
  let problems: string[] = [];

  /** A new page whose console errors and warnings (other than the expected network logs) and uncaught exceptions are collected. */
  async function newPage(options?: BrowserContextOptions): Promise<Page> {
    const page = await browser.newPage(options);
    page.on("console", (m) => {
      if ((m.type() === "error" || m.type() === "warning") && !EXPECTED_NETWORK_LOG.some((re) => re.test(m.text()))) problems.push(`${m.type()}: ${m.text()} (${page.url()})`);
    });
    page.on("pageerror", (err) => problems.push(`uncaught: ${err.message} (${page.url()})`));
    return page;
  }

  afterEach(() => {
    const seen = problems;
    problems = [];
    assert.deepEqual(seen, [], "no console error or warning on any page");
  });

  before(async () => {
    await build({ configFile: join(WEB, "vite.config.mjs"), logLevel: "warn" });
    f = await startFixture({ gardenApis: true });
    await f.run("tty", { containers: [{ name: "c", image: "busybox", command: ["sh"], tty: true, stdin: true }] });
    await f.until("tty", (s) => s.containerStatuses.every((c) => c.state.running !== undefined));
    member = await userWithToken(f, "member", [
      { apiGroups: [""], resources: ["pods"], verbs: ["get"] },
      { apiGroups: [""], resources: ["pods/attach", "pods/exec"], verbs: ["get", "create"] },
      { apiGroups: ["core.gardener.cloud"], resources: ["shoots"], verbs: ["get", "list"] },
      { apiGroups: ["dashboard.gardener.cloud"], resources: ["terminals"], verbs: ["*"] },
    ]);
    await f.server.client.create({ group: "core.gardener.cloud", resource: "shoots" }, { apiVersion: "core.gardener.cloud/v1beta1", kind: "Shoot", metadata: { name: "s", namespace: NS }, spec: { seedName: "local", provider: { type: "local", workers: [{ name: "w" }] }, kubernetes: { version: "1.31.1" } } } as KubeObject);
    const now = new Date().toISOString();
    await f.server.client.patch({ group: "core.gardener.cloud", resource: "shoots" }, NS, "s", "merge", { status: { lastOperation: { type: "Reconcile", state: "Succeeded", progress: 100, lastUpdateTime: now }, conditions: [{ type: "SystemComponentsHealthy", status: "True", reason: "SystemComponentsRunning", message: "All system components are healthy.", lastTransitionTime: now, lastUpdateTime: now }] } }, "status");
    viewer = await userWithToken(f, "viewer-sa", [{ apiGroups: [""], resources: ["pods"], verbs: ["get"] }]);
    dashboard = await startDashboard({ apiServer: { url: f.server.url, caPem: f.server.caPem }, webRoot: join(WEB, "dist"), limits: { sessionsPerUser: 1 }, terminals: { config: { readyTimeoutSeconds: 2 } } });
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking"] });
  });

  after(async () => {
    await browser?.close();
    await dashboard?.close();
    await f?.stop();
  });

  test("types into the pod's shell, resizes, and closing ends the session on the server", async () => {
    const page = await newPage({ viewport: { width: 1000, height: 700 } });
    await open(page, dashboard, member, "tty");
    await until("connected", async () => (await page.textContent("[data-testid=state]"))?.startsWith("connected"));
    assert.deepEqual([...dashboard.sessions()], [[`system:serviceaccount:${NS}:member`, 1]]);
    const word = `hello-${Math.random().toString(36).slice(2, 8)}`;
    await page.locator(".xterm-helper-textarea").focus();
    await page.keyboard.type(`echo ${word}-$((6*7))\n`);
    await until(`${word}-42 on screen`, async () => (await screen(page)).includes(`${word}-42`));

    await page.evaluate(() => (globalThis as unknown as { dashboardTerminal: { resize(c: number, r: number): void } }).dashboardTerminal.resize(91, 27));
    await page.keyboard.type("stty size\n");
    await until("27 91 on screen", async () => /^27 91$/m.test(await screen(page)));

    // one session per user here: a second page of the same user is refused while the first is open
    const second = await newPage();
    await open(second, dashboard, member, "tty");
    await until("the second page refused", async () => (await second.textContent("[data-testid=state]"))?.startsWith("closed"));
    await second.close();

    await page.click("button[name=close]");
    await until("the session ended on the server", async () => dashboard.sessions().size === 0);
    await page.close();
  });

  test("the API server decides: a user without pods/attach sees Forbidden, and no session stays", async () => {
    const page = await newPage();
    await open(page, dashboard, viewer, "tty");
    const state = await until("a refusal", async () => {
      const s = await page.textContent("[data-testid=state]");
      return s?.includes("forbidden") ? s : undefined;
    });
    assert.match(state, /pods "tty" is forbidden: User "system:serviceaccount:e2e:viewer-sa" cannot (get|create) resource "pods\/attach"/);
    await until("no session", async () => dashboard.sessions().size === 0);
    await page.close();
  });
  test("log in with a token the garden knows, see who you are, your project's shoots, a pane with the server's refusal; logout forgets the token", async () => {
    const page = await newPage({ viewport: { width: 1200, height: 700 } });
    await page.goto(dashboard.url);
    await page.fill("[data-testid=login-token]", "not-a-token");
    await page.click("[data-testid=login-submit]");
    await page.waitForSelector("[data-testid=login-error]");
    assert.equal(await page.locator("[data-testid=whoami]").count(), 0);

    await page.fill("[data-testid=login-token]", member);
    await page.click("[data-testid=login-submit]");
    assert.equal(await page.textContent("[data-testid=whoami]"), `system:serviceaccount:${NS}:member`);
    assert.equal(await page.getAttribute("[data-testid=whoami]", "data-admin"), "false");
    await page.reload();
    await page.waitForSelector("[data-testid=whoami]");

    // a member may not list projects: she opens hers by its namespace and sees its shoots
    await page.waitForSelector("[data-testid=projects-not-listed]");
    await page.fill("[data-testid=project-namespace]", NS);
    await page.click("[data-testid=open-project]");
    await page.waitForSelector("[data-testid=shoot][data-name=s]");
    assert.equal(await page.locator("[data-testid=open-cp-terminal]").count(), 0, "no control-plane terminal for members");

    // no terminal-controller-manager here: the pane shows the server's refusal and offers Reconnect
    await page.click("[data-testid=shoot][data-name=s] [data-testid=open-shoot-terminal]");
    await page.waitForSelector("[data-testid=terminal-pane] [data-testid=pane-reconnect]");
    const error = (await page.textContent("[data-testid=terminal-pane] [data-testid=pane-error]")) ?? "";
    assert.match(error, /^Could not connect to terminal: \S/);
    assert.doesNotMatch(error, /the terminal request failed|undefined/);
    await page.click("[data-testid=pane-close]");
    await until("the pane closed", async () => (await page.locator("[data-testid=terminal-pane]").count()) === 0);

    await page.click("[data-testid=logout]");
    await page.waitForSelector("[data-testid=login]");
    assert.equal(await page.evaluate('sessionStorage.getItem("dashboard.token")'), null);
    await page.close();
  });
  test("every page renders without a console error or warning; the Shoots page shows version, status and readiness", async () => {
    const page = await newPage({ viewport: { width: 1200, height: 700 } });
    await page.goto(dashboard.url);
    await page.waitForSelector("[data-testid=login-token]");
    await login(page, dashboard, member, "/#/projects");
    await page.waitForSelector("[data-testid=projects-not-listed]");
    // the namespace field's pattern is in force (an invalid one would be ignored, with a console error)
    await page.fill("[data-testid=project-namespace]", "Not-A-Label");
    assert.equal(await page.locator("[data-testid=project-namespace]").evaluate((e) => (e as unknown as { validity: { patternMismatch: boolean } }).validity.patternMismatch), true);
    await page.fill("[data-testid=project-namespace]", NS);
    assert.equal(await page.locator("[data-testid=project-namespace]").evaluate((e) => (e as unknown as { validity: { valid: boolean } }).validity.valid), true);
    await page.click("[data-testid=open-project]");
    const row = page.locator("[data-testid=shoot][data-name=s]");
    await row.waitFor();
    assert.equal(await row.locator("[data-testid=shoot-version]").textContent(), "1.31.1");
    assert.equal(await row.locator("[data-testid=shoot-status]").textContent(), "Reconcile Succeeded");
    assert.deepEqual(await row.locator("[data-testid=shoot-condition]").evaluateAll((es) => es.map((e) => [e.textContent, e.getAttribute("data-status"), e.getAttribute("title")])), [["SC", "True", "System Components: True (SystemComponentsRunning: All system components are healthy.)"]]);
    for (const [hash, selector] of [[`#/recordings/${NS}`, "[data-testid=recordings]"], ["#/pod", "[data-testid=pod]"], ["#/projects", "[data-testid=projects]"], [`#/namespace/${NS}`, "[data-testid=shoot][data-name=s]"]]) {
      await page.goto(`${dashboard.url}/${hash}`);
      await page.waitForSelector(selector!);
    }
    await page.close();
  });
  test("recordings: the list and a replay in xterm (resize, output across a capped idle gap, input beside it, seeking)", async () => {
    // the frontend alone: the dashboard's recording answers are stood in by the page's router
    const id = "20261127T040000Z-member-term-shoot-1-0a1b2c3d";
    const cast = [
      { version: 2, width: 100, height: 30, timestamp: 1795000000, title: `${NS}/term-shoot-1`, env: { TERM: "xterm-256color" } },
      [0.1, "r", "91x27"], [0.3, "o", "$ "], [0.8, "i", "echo replayed\r"], [1.0, "o", "echo replayed\r\nreplayed\r\n$ "], [90, "o", "after-the-gap\r\n"],
    ].map((l) => JSON.stringify(l)).join("\n") + "\n";
    const seen: string[] = [];
    const page = await newPage({ viewport: { width: 1400, height: 800 } });
    await page.route("**/api/terminals", async (route) => {
      const body = JSON.parse(route.request().postData() ?? "{}") as { method?: string; params?: { coordinate?: { namespace?: string } } };
      if (body.method !== "listRecordings") return route.continue();
      seen.push(`list ${body.params?.coordinate?.namespace} ${route.request().headers().authorization === `Bearer ${member}`}`);
      await route.fulfill({ contentType: "application/json", body: JSON.stringify([{ id, namespace: NS, terminal: { name: "term-shoot-1" }, user: `system:serviceaccount:${NS}:member`, startedAt: "2026-11-27T04:00:00Z", endedAt: "2026-11-27T04:01:30Z", durationSeconds: 90, bytes: 2048, input: true, truncated: false }]) });
    });
    await page.route("**/api/terminals/recordings/**", async (route) => {
      seen.push(`get ${new URL(route.request().url()).pathname} ${route.request().headers().authorization === `Bearer ${member}`}`);
      if (route.request().url().endsWith(id)) return route.fulfill({ contentType: "application/x-asciicast", body: cast });
      await route.fulfill({ status: 404, contentType: "application/json", body: JSON.stringify({ kind: "Status", status: "Failure", reason: "NotFound", code: 404, message: 'recording "nope" not found' }) });
    });
    await login(page, dashboard, member, `/#/recordings/${NS}`);
    await page.waitForSelector(`[data-testid=recording][data-id="${id}"]`);
    await page.click(`[data-testid=recording][data-id="${id}"] [data-testid=replay-recording]`);
    await page.waitForSelector("[data-testid=replay-terminal] .xterm");
    await page.selectOption("[data-testid=replay-speed]", "4");
    const replayed = () => page.evaluate(() => {
      const r = (globalThis as unknown as { dashboardReplay?: { term: { cols: number; rows: number; buffer: { active: { length: number; getLine(i: number): { translateToString(t: boolean): string } | undefined } } } } }).dashboardReplay;
      if (!r) return { size: "", text: "" };
      const b = r.term.buffer.active;
      const lines: string[] = [];
      for (let i = 0; i < b.length; i++) lines.push(b.getLine(i)?.translateToString(true) ?? "");
      return { size: `${r.term.cols}x${r.term.rows}`, text: lines.join("\n") };
    });
    await until("the output after the gap", async () => (await replayed()).text.includes("after-the-gap"), 10_000);
    const done = await replayed();
    assert.equal(done.size, "91x27");
    assert.match(done.text, /^replayed$/m);
    assert.match((await page.textContent("[data-testid=replay-notes]")) ?? "", /input: "echo replayed\\r"/);
    await until("the replay ended", async () => (await page.getAttribute("[data-testid=replay]", "data-state")) === "paused");
    await page.locator("[data-testid=replay-seek]").fill("0.5");
    await until("the screen redrawn up to 0.5 s", async () => {
      const r = await replayed();
      return r.text.includes("$") && !r.text.includes("replayed");
    });
    await page.goto(`${dashboard.url}/#/recordings/${NS}/nope`);
    await page.waitForSelector("[data-testid=whoami]");
    assert.equal(await page.textContent("[data-testid=replay-error]"), 'recording "nope" not found');
    assert.deepEqual(seen, [`list ${NS} true`, `get /api/terminals/recordings/${NS}/${id} true`, `get /api/terminals/recordings/${NS}/nope true`]);
    await page.close();
  });
  test("a terminal pane end to end in the browser: connected, typing, resize, a dropped socket reconnected, back after a reload, close removes the Terminal", async () => {
    // No terminal-controller-manager here: the page's router answers create/fetch/heartbeat/remove,
    // and hands the pane's socket to the dashboard's pod relay (same protocol) for the tty pod.
    const calls: string[] = [];
    const routes: WebSocketRoute[] = [];
    let created = "";
    const page = await newPage({ viewport: { width: 1300, height: 700 } });
    await page.route("**/api/terminals", async (route) => {
      const { method, params } = JSON.parse(route.request().postData() ?? "{}") as { method: string; params: { coordinate?: { namespace?: string; target?: string; name?: string }; name?: string; identifier?: string } };
      const c = params.coordinate;
      calls.push(`${method} ${c ? (c.target ? `${c.target}/${c.name}` : c.namespace) : params.name}`);
      const meta = { name: "term-shoot-e2e", namespace: NS };
      if (method === "create") created = params.identifier ?? "";
      if (method === "list") return route.fulfill({ contentType: "application/json", body: JSON.stringify([{ metadata: { ...meta, identifier: created } }, { metadata: { name: "other", namespace: NS, identifier: "not-a-pane" } }]) });
      await route.fulfill({ contentType: "application/json", body: JSON.stringify(method === "remove" ? meta : method === "heartbeat" ? { ok: true } : { metadata: meta, hostCluster: { namespace: NS } }) });
    });
    await page.routeWebSocket(/\/api\/terminals\/attach\//, async (route) => {
      routes.push(route);
      const url = new URL(route.url());
      calls.push(`attach ${url.pathname}${url.search}`);
      const queued: (string | Buffer)[] = [];
      route.onMessage((m) => queued.push(m));
      // one relay session per user in this test: the previous socket's must have ended
      await until("the previous relay session ended", async () => dashboard.sessions().size === 0);
      const upstream = new WebSocket(`${dashboard.url.replace(/^http/, "ws")}/api/terminal/attach?namespace=${NS}&pod=tty&container=c`, ["terminal.dashboard.gardener.cloud", `base64url.bearer.authorization.k8s.io.${Buffer.from(member).toString("base64url")}`]);
      upstream.on("error", () => void route.close({ code: 1011 }));
      upstream.on("open", () => queued.splice(0).forEach((m) => upstream.send(m)));
      upstream.on("message", (data: Buffer, binary: boolean) => route.send(binary ? data : data.toString("utf8")));
      upstream.on("close", (code) => route.close({ code: code === 1005 ? 1000 : code }));
      route.onMessage((m) => (upstream.readyState === WebSocket.OPEN ? upstream.send(m) : queued.push(m)));
      route.onClose(() => upstream.close());
    });
    await login(page, dashboard, member, `/#/namespace/${NS}`);
    await page.click("[data-testid=shoot][data-name=s] [data-testid=open-shoot-terminal]");
    const pane = page.locator("[data-testid=terminal-pane]");
    await until("Connected", async () => (await pane.getAttribute("data-state")) === "Connected");
    const identifier = (await pane.getAttribute("data-identifier")) ?? "";
    assert.deepEqual(calls.slice(0, 3), ["create shoot/s", "fetch term-shoot-e2e", `attach /api/terminals/attach/${NS}/term-shoot-e2e?container=terminal&stdin=true&stdout=true&tty=true`]);
    const paneScreen = () => page.evaluate((id) => {
      const t = (globalThis as unknown as { dashboardPanes: Record<string, { term: { buffer: { active: { length: number; getLine(i: number): { translateToString(t: boolean): string } | undefined } } } }> }).dashboardPanes[id]!.term;
      const b = t.buffer.active;
      const lines: string[] = [];
      for (let i = 0; i < b.length; i++) lines.push(b.getLine(i)?.translateToString(true) ?? "");
      return lines.join("\n");
    }, identifier);
    await page.locator("[data-testid=pane-terminal] .xterm-helper-textarea").focus();
    await page.keyboard.type("echo pane-$((6*7))\n");
    await until("pane-42 on screen", async () => /^pane-42$/m.test(await paneScreen()));
    await page.evaluate((id) => (globalThis as unknown as { dashboardPanes: Record<string, { resize(c: number, r: number): void }> }).dashboardPanes[id]!.resize(77, 19), identifier);
    await page.keyboard.type("stty size\n");
    await until("19 77 on screen", async () => /^19 77$/m.test(await paneScreen()));

    // the socket drops (not a clean close): the pane fetches again and reattaches, keeping the screen
    await routes[0]!.close({ code: 4000, reason: "dropped" });
    await until("a second attach", async () => routes.length === 2 && (await pane.getAttribute("data-state")) === "Connected");
    assert.deepEqual(calls.filter((c) => c.startsWith("fetch")).length, 2);
    assert.match(await paneScreen(), /^pane-42$/m, "the screen stays");
    await page.keyboard.type("echo again-$((2*3))\n");
    await until("again-6 on screen", async () => /^again-6$/m.test(await paneScreen()));

    // a reload keeps the pane: list names its Terminal, so it opens again with the same identifier
    await page.reload();
    await until("Connected after the reload", async () => (await pane.getAttribute("data-state")) === "Connected");
    assert.equal(await pane.getAttribute("data-identifier"), identifier);
    assert.equal(await pane.count(), 1);
    assert.deepEqual(calls.filter((c) => /^(list|create)/.test(c)), ["create shoot/s", `list ${NS}`, "create shoot/s"]);
    await page.locator("[data-testid=pane-terminal] .xterm-helper-textarea").focus();

    await page.click("[data-testid=pane-close]");
    await until("remove called", async () => calls.includes("remove term-shoot-e2e"));
    await until("the session ended on the server", async () => dashboard.sessions().size === 0);
    assert.equal(await pane.count(), 0);
    await page.close();
  });
});
