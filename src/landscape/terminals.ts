// Web terminals on the local landscape (docs/terminals.md#the-local-landscape): the project member's
// bearer token (a static token of the garden API server), the serving certificates of the
// terminal-controller-manager's webhooks and of the dashboard (from the garden's CA), both components'
// command lines, and what `up` waits for before it says Ready.
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { API_VERSION, KIND_TERMINAL, type Terminal } from "../apis/dashboard/v1alpha1/types.ts";
import { issueServingCertificate } from "../apiserver/certs/issue.ts";
import { unlessNotFound } from "../apimachinery/errors.ts";
import { Secrets } from "../client/builtins.ts";
import { KubeConfig } from "@kubernetes/client-node";
import { Client } from "../client/client.ts";
import { KubeConfigTransport, type Transport } from "../client/transport.ts";
import { Terminals } from "../client/garden.ts";
import { type ComponentContext, bin } from "./components.ts";
import type { ComponentSpec } from "./supervisor.ts";
import { type Layout, type Ports, MEMBER_USER, PROJECT_NAMESPACE, SEED, SHOOT } from "./layout.ts";
import { waitFor } from "./readiness.ts";
import { DASHBOARD_READER_USER, dashboardReaderKubeconfigPath, dashboardReaderTokenPath } from "./dashboard-reader.ts";
import { OPERATOR_USER, operatorTokenPath } from "./operator-terminals.ts";

/** Beside the API servers' ports (7443-7445 by default): dashboard 7448, webhooks 7449, the TCM's health 7450. */
export const terminalPorts = (p: Ports): { dashboard: number; webhook: number; health: number } => ({ dashboard: p.garden + 5, webhook: p.garden + 6, health: p.garden + 7 });

export const memberTokenPath = (layout: Layout): string => layout.path("garden-member.token");
export const dashboardUrlPath = (layout: Layout): string => layout.path("dashboard.url");
export const gardenTokenFile = (layout: Layout): string => layout.path("garden", "tokens.csv");
const certDir = (layout: Layout, name: "terminal-controller-manager" | "dashboard"): string => layout.path("tls", name);

/**
 * The member's, the dashboard reader's and the operator's tokens (each kept across runs, 0600) and the garden API
 * server's --token-auth-file naming them (users local-member, the same user as garden-member.kubeconfig,
 * dashboard-project-reader and local-operator; no groups: their rights are RBAC bindings in the garden).
 * Before the garden API server starts. Returns the member's token.
 */
export function writeMemberToken(layout: Layout): string {
  const token = keptToken(memberTokenPath(layout));
  const reader = keptToken(dashboardReaderTokenPath(layout));
  const operator = keptToken(operatorTokenPath(layout));
  mkdirSync(layout.path("garden"), { recursive: true });
  const lines = [[token, MEMBER_USER], [reader, DASHBOARD_READER_USER], [operator, OPERATOR_USER]].map(([t, u]) => `${t},${u},${u}\n`);
  writeFileSync(gardenTokenFile(layout), lines.join(""), { mode: 0o600 });
  return token;
}

/** A random token kept in the file across runs (0600). */
function keptToken(path: string): string {
  mkdirSync(dirname(path), { recursive: true });
  if (!existsSync(path)) writeFileSync(path, `${randomBytes(32).toString("base64url")}\n`, { mode: 0o600 });
  return readFileSync(path, "utf8").trim();
}

/** Serving certificates for 127.0.0.1 from the garden CA (after the garden API server wrote its PKI). */
export async function writeTerminalCertificates(layout: Layout): Promise<void> {
  const pki = join(layout.apiServerDir("garden"), "pki");
  const ca = { certPem: readFileSync(join(pki, "ca.crt"), "utf8"), keyPem: readFileSync(join(pki, "ca.key"), "utf8") };
  for (const name of ["terminal-controller-manager", "dashboard"] as const) {
    const cert = await issueServingCertificate(ca, { hosts: ["127.0.0.1", "localhost"], commonName: name });
    const dir = certDir(layout, name);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "tls.crt"), cert.certPem, { mode: 0o600 });
    writeFileSync(join(dir, "tls.key"), cert.keyPem, { mode: 0o600 });
  }
}

const gardenCa = (layout: Layout): string => join(layout.apiServerDir("garden"), "pki", "ca.crt");

/** The terminal-controller-manager as garden admin, its webhooks registered by URL in the garden, membership cleanup honoured. */
export function terminalControllerManager(c: ComponentContext): ComponentSpec {
  const p = terminalPorts(c.ports);
  const args = [
    "--kubeconfig", c.layout.gardenKubeconfig,
    "--webhook-server-cert-dir", certDir(c.layout, "terminal-controller-manager"),
    "--webhook-bind-address", `127.0.0.1:${p.webhook}`,
    "--webhook-url", `https://127.0.0.1:${p.webhook}`, "--webhook-ca-file", gardenCa(c.layout),
    "--metrics-bind-address", `127.0.0.1:${p.health}`, "--leader-elect", "false", "--log-level", "warn",
    // As Gardener's dashboard setups: a member's garden terminal (cleanupProjectMembership) is admitted.
    "--honour-cleanup-project-membership", "true",
  ];
  return { name: "terminal-controller-manager", command: process.execPath, args: [bin("terminal-controller-manager"), ...args], logFile: join(c.layout.logs, "terminal-controller-manager.log") };
}

/** The seed is no ManagedSeed: it hosts operators' terminals through this kubeconfig Secret (docs/terminals.md#seed-hosts). */
export const SEED_HOST_SECRET = { namespace: "garden", name: `seed-${SEED}-terminal-host` };
export const dashboardConfigPath = (layout: Layout): string => layout.path("dashboard", "terminal-config.json");

/** Gardener's default terminal image; the node agent runs it as its ops-toolbelt profile, bash (docs/kubelet.md). */
export const OPS_TOOLBELT_IMAGE = "europe-docker.pkg.dev/gardener-project/releases/gardener/ops-toolbelt:latest";

/**
 * The dashboard's terminal configuration: seed `local` hosts terminals through SEED_HOST_SECRET, operators'
 * garden terminals among them (src/landscape/operator-terminals.ts publishes their credential), whose kubeconfig
 * names the garden as `gardenApiServerUrl` (the garden relay's URL, gardenrelay.ts; when given). Panes run
 * Gardener's default image: its bash redraws the prompt on the pane's first resizes, which a shell
 * without line editing (busybox's sh, the dashboard's built-in default) does not, so a new pane would
 * stay blank until a key is pressed.
 */
export function dashboardConfig(gardenApiServerUrl?: string): {
  seedHosts: Record<string, { secretRef: typeof SEED_HOST_SECRET }>; gardenTerminalHost: { seedRef: { name: string } }; container: { image: string }; containerOperator: { image: string }; gardenApiServerUrl?: string;
} {
  return {
    seedHosts: { [SEED]: { secretRef: SEED_HOST_SECRET } }, gardenTerminalHost: { seedRef: { name: SEED } },
    container: { image: OPS_TOOLBELT_IMAGE }, containerOperator: { image: OPS_TOOLBELT_IMAGE },
    ...(gardenApiServerUrl ? { gardenApiServerUrl } : {}),
  };
}

export function writeDashboardConfig(layout: Layout, gardenApiServerUrl: string): void {
  mkdirSync(layout.path("dashboard"), { recursive: true });
  const config = dashboardConfig(gardenApiServerUrl);
  writeFileSync(dashboardConfigPath(layout), `${JSON.stringify(config, null, 2)}\n`);
}

/** SEED_HOST_SECRET in the garden: the seed's admin kubeconfig (inline certificates), which only garden admins read. */
export async function publishSeedHost(garden: Client, layout: Layout): Promise<void> {
  const kubeconfig = readFileSync(join(layout.apiServerDir("seed"), "admin.kubeconfig"));
  const body = { metadata: { ...SEED_HOST_SECRET }, type: "Opaque", data: { kubeconfig: kubeconfig.toString("base64") } };
  const existing = await unlessNotFound(garden.get(Secrets, SEED_HOST_SECRET));
  if (existing) await garden.update(Secrets, { ...existing, data: body.data });
  else await garden.create(Secrets, body);
}

/** The dashboard over HTTPS on 127.0.0.1, talking to the garden. */
export function dashboard(c: ComponentContext): ComponentSpec {
  const dir = certDir(c.layout, "dashboard");
  const args = [
    "--api-server", `https://127.0.0.1:${c.ports.garden}`, "--api-ca", gardenCa(c.layout),
    "--address", "127.0.0.1", "--port", String(terminalPorts(c.ports).dashboard),
    "--tls-cert", join(dir, "tls.crt"), "--tls-key", join(dir, "tls.key"), "--terminal-config", dashboardConfigPath(c.layout), "--log-level", "warn",
    // Its own read-only garden credential: members who may not list Projects see theirs (src/landscape/dashboard-reader.ts).
    "--kubeconfig", dashboardReaderKubeconfigPath(c.layout),
    // Recordings stay in the state directory, so `down` removes them with the rest (not the user's home).
    "--recordings-dir", join(c.layout.dir, "dashboard", "recordings"),
  ];
  return { name: "dashboard", command: process.execPath, args: [bin("dashboard"), ...args], logFile: join(c.layout.logs, "dashboard.log") };
}

/** The project's client transport to a server that is no API server (a health port, the dashboard), with an optional CA and bearer token. */
function transportTo(server: string, o: { caPem?: string; token?: string } = {}): Transport {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    // client-node takes plain HTTP (a health port) only with skipTLSVerify, which has nothing to skip there.
    clusters: [{ name: "c", server, skipTLSVerify: server.startsWith("http:"), ...(o.caPem ? { caData: Buffer.from(o.caPem).toString("base64") } : {}) }],
    users: [{ name: "u", ...(o.token ? { token: o.token } : {}) }],
    contexts: [{ name: "c", cluster: "c", user: "u" }],
    currentContext: "c",
  });
  return new KubeConfigTransport(kc, "gardener-local");
}

/** A GET that only needs a 200 (a health endpoint's body is plain text): other codes throw. */
async function answers200(t: Transport, path: string): Promise<true> {
  const res = await t.stream({ path, signal: AbortSignal.timeout(5000) });
  res.resume();
  return true;
}

/** The Terminal a member's shoot terminal is (the dashboard's spec for target `shoot`, host the shoot). */
export function memberShootTerminal(name: string): Terminal {
  const shootRef = { namespace: PROJECT_NAMESPACE, name: SHOOT };
  return {
    apiVersion: API_VERSION,
    kind: KIND_TERMINAL,
    metadata: { name, namespace: PROJECT_NAMESPACE },
    spec: {
      identifier: "",
      host: { credentials: { shootRef }, temporaryNamespace: true, pod: { container: { image: "busybox:1.36" } } },
      target: {
        credentials: { shootRef },
        temporaryNamespace: true,
        kubeconfigContextNamespace: "default",
        authorization: { roleBindings: [{ nameSuffix: "", bindingKind: "ClusterRoleBinding", roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "cluster-admin" } }] },
      },
    },
  };
}

/**
 * The garden's Terminal webhooks admit a member's terminal: a dry-run create as the member passes the
 * mutating webhook (it sets spec.identifier) and the validating one (the access reviews included).
 */
async function webhooksAdmit(layout: Layout): Promise<true> {
  const member = Client.fromKubeconfigFile(layout.memberKubeconfig, { fieldManager: "gardener-local" });
  try {
    const t = await member.create(Terminals, memberShootTerminal("readiness-check"), { dryRun: true });
    if (!t.spec.identifier) throw new Error("the dry-run Terminal came back without spec.identifier: the mutating webhook did not run");
    return true;
  } finally {
    member.close();
  }
}

/** The dashboard answers the member's `config` (the first call of a terminal pane) with an image. */
async function dashboardAnswers(dashboard: Transport): Promise<true> {
  const body = { method: "config", params: { coordinate: { namespace: PROJECT_NAMESPACE, name: SHOOT, target: "shoot" } } };
  const r = await dashboard.request<{ container?: { image?: string } } | undefined>({ method: "POST", path: "/api/terminals", body, headers: { "x-requested-with": "XMLHttpRequest" }, timeoutMs: 5000 });
  if (!r?.container?.image) throw new Error(`POST /api/terminals config answered no image: ${JSON.stringify(r ?? null).slice(0, 300)}`);
  return true;
}

/**
 * Until a member's next step works: the terminal-controller-manager is ready (its /readyz answers once
 * its webhooks serve and are registered), the garden's webhooks admit a member's Terminal (dry run),
 * and the dashboard answers the member's `config` over TLS the garden CA verifies; with `gardenForPods`,
 * also the garden at that URL (garden terminals' kubeconfig server: the relay, the garden's serving
 * certificate naming its address). Then writes dashboard.url. Fails with what did not work and where the logs are.
 */
export async function terminalsReady(layout: Layout, ports: Ports, log: (line: string) => void, timeoutMs = 60_000, gardenForPods?: string): Promise<string> {
  const p = terminalPorts(ports);
  rmSync(dashboardUrlPath(layout), { force: true });
  const url = `https://127.0.0.1:${p.dashboard}/`;
  const ca = readFileSync(gardenCa(layout), "utf8");
  const token = readFileSync(memberTokenPath(layout), "utf8").trim();
  const logs = `see ${join(layout.logs, "terminal-controller-manager.log")} and ${join(layout.logs, "dashboard.log")}`;
  const health = transportTo(`http://127.0.0.1:${p.health}`);
  const dashboard = transportTo(url, { caPem: ca, token });
  const podGarden = gardenForPods ? transportTo(gardenForPods, { caPem: ca }) : undefined;
  try {
    if (podGarden) await waitFor(`the garden API server at ${gardenForPods ?? ""} (as garden terminals reach it)`, () => answers200(podGarden, "/readyz"), timeoutMs);
    await waitFor("the terminal-controller-manager's /readyz", () => answers200(health, "/readyz"), timeoutMs);
    await waitFor("the garden's Terminal webhooks to admit a member's Terminal (dry run)", () => webhooksAdmit(layout), timeoutMs);
    await waitFor(`the dashboard at ${url} to answer the member's POST /api/terminals config`, () => dashboardAnswers(dashboard), timeoutMs);
  } catch (err) {
    throw new Error(`web terminals are not ready: ${(err as Error).message} (${logs})`);
  } finally {
    health.close();
    dashboard.close();
    podGarden?.close();
  }
  writeFileSync(dashboardUrlPath(layout), `${url}\n`);
  log(`terminal-controller-manager and dashboard ready; dashboard ${url}`);
  return url;
}
