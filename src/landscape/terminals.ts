// Web terminals on the local landscape (docs/terminals.md#the-local-landscape): the project member's
// bearer token (a static token of the garden API server), the serving certificates of the
// terminal-controller-manager's webhooks and of the dashboard (from the garden's CA), both components'
// command lines, and what `up` waits for before it says Ready.
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { request } from "node:https";
import { request as httpRequest } from "node:http";
import { join } from "node:path";
import { issueServingCertificate } from "../apiserver/certs/issue.ts";
import { type ComponentContext, bin } from "./components.ts";
import type { ComponentSpec } from "./supervisor.ts";
import { type Layout, type Ports, MEMBER_USER } from "./layout.ts";
import { waitFor } from "./readiness.ts";

/** Beside the API servers' ports (7443-7445 by default): dashboard 7448, webhooks 7449, the TCM's health 7450. */
export const terminalPorts = (p: Ports): { dashboard: number; webhook: number; health: number } => ({ dashboard: p.garden + 5, webhook: p.garden + 6, health: p.garden + 7 });

export const memberTokenPath = (layout: Layout): string => layout.path("garden-member.token");
export const dashboardUrlPath = (layout: Layout): string => layout.path("dashboard.url");
export const gardenTokenFile = (layout: Layout): string => layout.path("garden", "tokens.csv");
const certDir = (layout: Layout, name: "terminal-controller-manager" | "dashboard"): string => layout.path("tls", name);

/**
 * The member's token (kept across runs, 0600) and the garden API server's --token-auth-file naming it
 * (user local-member, no groups: the same user as garden-member.kubeconfig). Before the garden API server starts.
 */
export function writeMemberToken(layout: Layout): string {
  const path = memberTokenPath(layout);
  if (!existsSync(path)) writeFileSync(path, `${randomBytes(32).toString("base64url")}\n`, { mode: 0o600 });
  const token = readFileSync(path, "utf8").trim();
  mkdirSync(layout.path("garden"), { recursive: true });
  writeFileSync(gardenTokenFile(layout), `${token},${MEMBER_USER},${MEMBER_USER}\n`, { mode: 0o600 });
  return token;
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

/** The terminal-controller-manager as garden admin, its webhooks registered by URL in the garden. */
export function terminalControllerManager(c: ComponentContext): ComponentSpec {
  const p = terminalPorts(c.ports);
  const args = [
    "--kubeconfig", c.layout.gardenKubeconfig,
    "--webhook-server-cert-dir", certDir(c.layout, "terminal-controller-manager"),
    "--webhook-bind-address", `127.0.0.1:${p.webhook}`,
    "--webhook-url", `https://127.0.0.1:${p.webhook}`, "--webhook-ca-file", gardenCa(c.layout),
    "--metrics-bind-address", `127.0.0.1:${p.health}`, "--leader-elect", "false", "--log-level", "warn",
  ];
  return { name: "terminal-controller-manager", command: process.execPath, args: [bin("terminal-controller-manager"), ...args], logFile: join(c.layout.logs, "terminal-controller-manager.log") };
}

/** The dashboard over HTTPS on 127.0.0.1, talking to the garden. */
export function dashboard(c: ComponentContext): ComponentSpec {
  const dir = certDir(c.layout, "dashboard");
  const args = [
    "--api-server", `https://127.0.0.1:${c.ports.garden}`, "--api-ca", gardenCa(c.layout),
    "--address", "127.0.0.1", "--port", String(terminalPorts(c.ports).dashboard),
    "--tls-cert", join(dir, "tls.crt"), "--tls-key", join(dir, "tls.key"), "--log-level", "warn",
  ];
  return { name: "dashboard", command: process.execPath, args: [bin("dashboard"), ...args], logFile: join(c.layout.logs, "dashboard.log") };
}

function status(url: string, caPem?: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const send = url.startsWith("https:") ? request : httpRequest;
    const req = send(url, { method: "GET", timeout: 5000, ...(caPem ? { ca: caPem } : {}) }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on("timeout", () => req.destroy(new Error(`${url}: timed out`)));
    req.on("error", reject);
    req.end();
  });
}

/**
 * Until the terminal-controller-manager is ready (its /readyz answers once its webhooks serve and are
 * registered) and the dashboard answers over TLS the garden CA verifies; then writes dashboard.url.
 */
export async function terminalsReady(layout: Layout, ports: Ports, log: (line: string) => void): Promise<string> {
  const p = terminalPorts(ports);
  rmSync(dashboardUrlPath(layout), { force: true });
  await waitFor("the terminal-controller-manager", async () => ((await status(`http://127.0.0.1:${p.health}/readyz`)) === 200 ? true : undefined), 60_000);
  const url = `https://127.0.0.1:${p.dashboard}/`;
  const ca = readFileSync(gardenCa(layout), "utf8");
  await waitFor("the dashboard", async () => ((await status(url, ca)) > 0 ? true : undefined), 60_000);
  writeFileSync(dashboardUrlPath(layout), `${url}\n`);
  log(`terminal-controller-manager and dashboard ready; dashboard ${url}`);
  return url;
}
