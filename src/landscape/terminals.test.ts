import assert from "node:assert/strict";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { dashboardReaderTokenPath } from "./dashboard-reader.ts";
import { DEFAULT_PORTS, Layout } from "./layout.ts";
import { terminalConfigFromFile } from "../dashboard/terminals/config.ts";
import { operatorTokenPath } from "./operator-terminals.ts";
import { dashboard, dashboardConfig, dashboardUrlPath, gardenTokenFile, memberShootTerminal, memberTokenPath, terminalControllerManager, terminalPorts, terminalsReady, writeMemberToken } from "./terminals.ts";

test("the member's, reader's and operator's tokens are private, kept across runs and named for their users in the garden's token file", () => {
  const dir = mkdtempSync(join(tmpdir(), "terminals-"));
  try {
    const layout = new Layout(dir);
    const first = writeMemberToken(layout);
    assert.ok(first.length >= 40);
    assert.equal(writeMemberToken(layout), first);
    assert.equal(statSync(memberTokenPath(layout)).mode & 0o777, 0o600);
    assert.equal(statSync(gardenTokenFile(layout)).mode & 0o777, 0o600);
    const reader = readFileSync(dashboardReaderTokenPath(layout), "utf8").trim();
    assert.ok(reader.length >= 40 && reader !== first);
    assert.equal(statSync(dashboardReaderTokenPath(layout)).mode & 0o777, 0o600);
    const operator = readFileSync(operatorTokenPath(layout), "utf8").trim();
    assert.ok(operator.length >= 40 && operator !== first && operator !== reader);
    assert.equal(statSync(operatorTokenPath(layout)).mode & 0o777, 0o600);
    assert.equal(readFileSync(gardenTokenFile(layout), "utf8"), `${first},local-member,local-member\n${reader},dashboard-project-reader,dashboard-project-reader\n${operator},local-operator,local-operator\n`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("the terminal components listen on 127.0.0.1 beside the garden and register the webhooks at their own port", () => {
  const layout = new Layout("/state");
  const c = { layout, ports: DEFAULT_PORTS, hostAddress: "198.18.0.2", prefix: "gl-" };
  const p = terminalPorts(DEFAULT_PORTS);
  assert.deepEqual(new Set([p.dashboard, p.webhook, p.health, 7443, 7444, 7445]).size, 6);
  const tcm = terminalControllerManager(c).args.join(" ");
  assert.match(tcm, new RegExp(`--webhook-bind-address 127.0.0.1:${p.webhook} --webhook-url https://127.0.0.1:${p.webhook} `));
  assert.match(tcm, /--leader-elect false/);
  assert.match(tcm, /--honour-cleanup-project-membership true/, "members' garden terminals ask for the membership cleanup");
  const d = dashboard(c).args.join(" ");
  assert.match(d, /--api-server https:\/\/127.0.0.1:7443 /);
  assert.match(d, new RegExp(`--address 127.0.0.1 --port ${p.dashboard} `));
  assert.match(d, /--kubeconfig \/state\/dashboard\/reader\.kubeconfig/);
});

test("the terminals' readiness fails with the step that did not work and where the logs are", async () => {
  const dir = mkdtempSync(join(tmpdir(), "terminals-"));
  try {
    const layout = new Layout(dir);
    writeMemberToken(layout);
    mkdirSync(join(layout.apiServerDir("garden"), "pki"), { recursive: true });
    writeFileSync(join(layout.apiServerDir("garden"), "pki", "ca.crt"), "");
    // Nothing listens on these ports: the controller's /readyz is the first step that fails.
    const ports = { garden: 1, seed: 2, shoot: 3 };
    await assert.rejects(terminalsReady(layout, ports, () => undefined, 300), (err: Error) => {
      assert.match(err.message, /^web terminals are not ready: timed out after 300 ms waiting for the terminal-controller-manager's \/readyz: connect ECONNREFUSED 127\.0\.0\.1:8 /);
      assert.match(err.message, /logs\/terminal-controller-manager\.log and .*logs\/dashboard\.log\)$/);
      return true;
    });
    assert.equal(existsSync(dashboardUrlPath(layout)), false, "no dashboard.url while not ready");
    // With the garden's URL for pods, that is checked too (nothing listens there either).
    await assert.rejects(terminalsReady(layout, ports, () => undefined, 300, "https://127.0.0.1:9"), /waiting for the garden API server at https:\/\/127\.0\.0\.1:9 \(as garden terminals reach it\): connect ECONNREFUSED/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("the readiness takes the controller's /readyz as passed on 200 only, then goes on to the webhooks", async () => {
  const dir = mkdtempSync(join(tmpdir(), "terminals-"));
  let code = 503;
  const server = createServer((_req, res) => res.writeHead(code).end(code === 200 ? "ok" : "[-]informers not synced"));
  try {
    const layout = new Layout(dir);
    writeMemberToken(layout);
    mkdirSync(join(layout.apiServerDir("garden"), "pki"), { recursive: true });
    writeFileSync(join(layout.apiServerDir("garden"), "pki", "ca.crt"), "");
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    // The controller's health port is the garden's + 7.
    const ports = { garden: (server.address() as AddressInfo).port - 7, seed: 2, shoot: 3 };
    await assert.rejects(terminalsReady(layout, ports, () => undefined, 300), /waiting for the terminal-controller-manager's \/readyz: \[-\]informers not synced/);
    code = 200;
    // No garden here: the next step is the one that fails.
    await assert.rejects(terminalsReady(layout, ports, () => undefined, 300), /waiting for the garden's Terminal webhooks to admit a member's Terminal/);
  } finally {
    server.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test("the dashboard's configuration names the garden as terminal pods reach it, when given", () => {
  assert.equal(dashboardConfig().gardenApiServerUrl, undefined);
  const c = dashboardConfig("https://198.18.0.2:7443");
  assert.equal(c.gardenApiServerUrl, "https://198.18.0.2:7443");
  assert.deepEqual(terminalConfigFromFile(JSON.parse(JSON.stringify(c))).gardenApiServerUrl, "https://198.18.0.2:7443", "the dashboard takes it");
});

test("the readiness Terminal is what the dashboard creates for a member's shoot terminal: host and target the shoot", () => {
  const t = memberShootTerminal("x");
  assert.equal(t.metadata.namespace, "garden-local");
  assert.deepEqual(t.spec.host.credentials, { shootRef: { namespace: "garden-local", name: "local" } });
  assert.deepEqual(t.spec.target.credentials, t.spec.host.credentials);
  assert.equal(t.spec.host.temporaryNamespace, true);
  assert.equal(t.spec.target.authorization?.roleBindings?.[0]?.roleRef.name, "cluster-admin");
});
