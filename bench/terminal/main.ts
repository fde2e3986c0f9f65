// bench/terminal: web terminals on the real local landscape (docs/terminals.md#benchmark), as root
// under the landscape lock:
//   flock /tmp/landscape.lock npm run bench:terminal -- [--terminals 20 --clicks 10]
// 1. create -> Ready for N terminals at once: each is the dashboard's `create` and then its `fetch`
//    (which answers once the Terminal is ready and its pod runs with the container ready), all
//    started together, half by the project member and half by a second member (a ServiceAccount
//    of the project), so the default cap of 10 Terminals per user holds; per terminal the time from
//    its `create` to `fetch`'s answer.
// 2. click -> prompt: headless Chromium logs in as the member, opens the project and clicks
//    `Cluster` on the shoot; the time from the click until a prompt is on the xterm screen; the pane
//    is closed before the next click.
import { readFileSync } from "node:fs";
import { loadavg } from "node:os";
import { resourcePath } from "../../src/client/resource.ts";
import { RoleBindings, ServiceAccounts } from "../../src/client/builtins.ts";
import { PROJECT_NAMESPACE, SHOOT } from "../../src/landscape/layout.ts";
import { dashboardUrlPath, memberTokenPath } from "../../src/landscape/terminals.ts";
import { DashboardPage, LandscapeBrowser } from "../../test/e2e/landscape/browser.ts";
import { type Landscape, startLandscape } from "../../test/e2e/support/landscape.ts";
import { componentCpu, cpuDelta, machineCpu } from "../bastion-local/cpu.ts";
import { summarize, percentile, table } from "../support/stats.ts";
import { benchArgs } from "../support/args.ts";
import { TerminalTracer, breakdown } from "./trace.ts";
import { watchPage } from "./page-trace.ts";

const args = benchArgs(
  "flock /tmp/landscape.lock npm run bench:terminal --",
  "Web terminals on the real local landscape (root): create -> Ready for N terminals at once, and click -> prompt in headless Chromium.",
  {
    terminals: { type: "string", default: "20", help: "terminals created at once" },
    clicks: { type: "string", default: "10", help: "clicks on Cluster, each timed to the prompt" },
    prefix: { type: "string", default: "glt-", help: "host object prefix of the landscape" },
    ports: { type: "string", default: "39443,39444,39445", help: "garden,seed,shoot API server ports" },
    trace: { type: "boolean", default: false, help: "print where each terminal's time goes" },
  },
);
const values = args.values;
const log = (line: string): void => void process.stderr.write(`${new Date().toISOString()} bench: ${line}\n`);
const load = (): string => loadavg().map((l) => l.toFixed(1)).join(" ");
const [garden = 0, seed = 0, shoot = 0] = values.ports.split(",").map(Number);

async function call(url: string, caPem: string, token: string, method: string, params: unknown): Promise<Record<string, unknown>> {
  const { request } = await import("node:https");
  const body = JSON.stringify({ method, params });
  return new Promise((resolve, reject) => {
    const req = request(new URL("api/terminals", url), { method: "POST", ca: caPem, headers: { authorization: `Bearer ${token}`, "x-requested-with": "XMLHttpRequest", "content-type": "application/json" } }, (res) => {
      let text = "";
      res.on("data", (c: Buffer) => (text += c.toString()));
      res.on("end", () => {
        const out = JSON.parse(text) as Record<string, unknown>;
        if (res.statusCode !== 200) reject(new Error(`${method}: ${res.statusCode} ${String(out.message)}`));
        else resolve(out);
      });
    });
    req.on("error", reject);
    req.end(body);
  });
}

const row = (what: string, samples: number[]): (string | number)[] => {
  const s = [...samples].sort((a, b) => a - b);
  return [what, String(s.length), Math.round(percentile(s, 50)), Math.round(percentile(s, 95)), Math.round(summarize(s).max)];
};

/** CPU ms per component (own and reaped children) and of all worker machines together, between two snapshots. */
function cpuSnapshot(l: Landscape): { components: ReturnType<typeof componentCpu>; machines: Map<string, number> } {
  return { components: componentCpu(l.layout.run), machines: machineCpu(l.layout.hostState) };
}
function cpuRows(what: string, before: ReturnType<typeof cpuSnapshot>, after: ReturnType<typeof cpuSnapshot>, n: number): string {
  const rows: (string | number)[][] = [[`CPU during ${what}`, "total ms", "per terminal ms"]];
  const d = [...cpuDelta(before.components, after.components)].map(([k, v]): [string, number] => [k, v.self + v.children]).sort((a, b) => b[1] - a[1]);
  for (const [k, ms] of d) if (ms > 0) rows.push([k, ms, ms / n]);
  let machines = 0;
  for (const [k, ms] of after.machines) machines += ms - (before.machines.get(k) ?? 0);
  rows.push(["worker machines (node agents, pods)", machines, machines / n]);
  return table(rows);
}

log(`starting the landscape (prefix ${values.prefix}, ports ${values.ports}); load ${load()}`);
const l = await startLandscape({ prefix: values.prefix, ports: { garden, seed, shoot }, out: (line) => log(line) });
const tracer = values.trace ? new TerminalTracer(l.garden, PROJECT_NAMESPACE, l.shoot) : undefined;
try {
  tracer?.start();
  const url = readFileSync(dashboardUrlPath(l.layout), "utf8").trim();
  const caPem = readFileSync(`${l.layout.apiServerDir("garden")}/pki/ca.crt`, "utf8");
  const member = readFileSync(memberTokenPath(l.layout), "utf8").trim();
  // the second member: a ServiceAccount of the project, bound as project member
  await l.garden.create(ServiceAccounts, { metadata: { namespace: PROJECT_NAMESPACE, name: "bench-member" } });
  await l.garden.create(RoleBindings, { metadata: { namespace: PROJECT_NAMESPACE, name: "bench-member" }, subjects: [{ kind: "ServiceAccount", name: "bench-member", namespace: PROJECT_NAMESPACE }], roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "gardener.cloud:system:project-member" } });
  const tr = await l.garden.transport.request<{ status: { token: string } }>({ method: "POST", path: resourcePath(ServiceAccounts, PROJECT_NAMESPACE, "bench-member", "token"), body: { apiVersion: "authentication.k8s.io/v1", kind: "TokenRequest", spec: { expirationSeconds: 3600 } } });
  const second = tr.status.token;

  const n = args.count("terminals", 1);
  log(`create -> Ready: ${n} terminals at once; load ${load()}`);
  const loadBefore = load();
  const cpuBefore = cpuSnapshot(l);
  const results = await Promise.all(Array.from({ length: n }, async (_, i) => {
    const token = i % 2 === 0 ? member : second;
    const start = performance.now();
    const sentAt = Date.now();
    const created = await call(url, caPem, token, "create", { coordinate: { namespace: PROJECT_NAMESPACE, name: SHOOT, target: "shoot" }, identifier: `bench-${i}-${Date.now()}` });
    const meta = created.metadata as { name: string; namespace: string };
    tracer?.mark(meta.name, "create sent", sentAt);
    tracer?.mark(meta.name, "create answered");
    await call(url, caPem, token, "fetch", { name: meta.name, namespace: meta.namespace });
    tracer?.mark(meta.name, "fetch answered");
    return { ms: performance.now() - start, token, meta };
  }));
  const loadAfterCreate = load();
  const cpuCreated = cpuSnapshot(l);
  await Promise.all(results.map((r) => call(url, caPem, r.token, "remove", r.meta)));
  log(`removed the ${n} terminals`);
  process.stdout.write(`${table([["measure", "n", "p50 ms", "p95 ms", "max ms"], row(`create -> Ready, ${n} at once`, results.map((r) => r.ms))])}\n`);
  if (tracer) {
    process.stdout.write(`\n${n} at once, milestone by milestone (load ${loadAfterCreate}):\n${table(breakdown(results.map((r) => tracer.milestones(r.meta.name))))}\n`);
    process.stdout.write(`\n${cpuRows(`${n} at once`, cpuBefore, cpuCreated, n)}\n\n`);
  }

  const clicks: number[] = [];
  /** From the bench's call of Playwright's click (its actionability checks included), as measured before. */
  const withPlaywright: number[] = [];
  const clicked: string[] = [];
  const browser = await LandscapeBrowser.launch(url, caPem);
  const cpuClicks = cpuSnapshot(l);
  try {
    // A context without Playwright's tracing (screenshots and snapshots cost CPU the pane would wait for).
    const context = await browser.browser.newContext({ viewport: { width: 1280, height: 800 } });
    const d = new DashboardPage(await context.newPage(), url);
    await d.login(member);
    await d.openProject("local", PROJECT_NAMESPACE);
    for (let i = 0; i < args.count("clicks"); i++) {
      const key = `click-${i}`;
      const pageTrace = tracer ? watchPage(d.page, (k, at) => tracer.mark(pageTrace?.name() ?? key, k, at), (name) => tracer.rename(key, name)) : undefined;
      // The click's time as the page sees it (Playwright's own checks before it are not the dashboard's).
      await d.page.evaluate(() => {
        const w = globalThis as unknown as { benchClickAt?: number; document: { addEventListener(type: string, f: () => void, o: object): void } };
        w.benchClickAt = undefined;
        w.document.addEventListener("click", () => (w.benchClickAt = Date.now()), { capture: true, once: true });
      });
      const start = Date.now();
      const pane = await d.openPane("open-shoot-terminal", SHOOT);
      await pane.prompt(60_000).catch(async (err: Error) => {
        // The pane's own message says more than an empty screen.
        const message = await pane.locator.locator("[data-testid=pane-error]").textContent({ timeout: 1000 }).catch(() => "");
        throw new Error(`${err.message}; pane state ${await pane.state()}, message ${JSON.stringify(message)}`);
      });
      const promptAt = Date.now();
      withPlaywright.push(promptAt - start);
      const clickAt = await d.page.evaluate(() => (globalThis as unknown as { benchClickAt?: number }).benchClickAt ?? 0);
      clicks.push(promptAt - clickAt);
      const name = pageTrace?.name() ?? key;
      tracer?.mark(name, "click", clickAt);
      tracer?.mark(name, "browser: prompt on screen", promptAt);
      clicked.push(name);
      pageTrace?.stop();
      log(`click ${i + 1}: prompt after ${Math.round(clicks[clicks.length - 1]!)} ms`);
      await pane.close();
    }
    await context.close();
  } finally {
    await browser.close();
  }
  const cpuClicked = cpuSnapshot(l);
  process.stdout.write(`${table([["measure", "n", "p50 ms", "p95 ms", "max ms"], row("click -> prompt on screen", clicks), row("  the same from Playwright's click call", withPlaywright)])}\n`);
  if (tracer) {
    process.stdout.write(`\nclick -> prompt, milestone by milestone:\n${table(breakdown(clicked.map((c) => tracer.milestones(c))))}\n`);
    process.stdout.write(`\n${cpuRows(`${clicks.length} clicks (browser's own CPU not counted)`, cpuClicks, cpuClicked, clicks.length)}\n\n`);
  }
  process.stdout.write(`load average (1, 5, 15 min): before create ${loadBefore}, after create ${loadAfterCreate}, at the end ${load()}\n`);
} finally {
  tracer?.stop();
  await l.stop((line) => log(line));
}
