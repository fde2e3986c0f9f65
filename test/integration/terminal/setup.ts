// Two in-process API servers for the terminal tests: the garden (--enable-gardener-apis, RBAC),
// where Terminals live and the garden terminal's target is, and a shoot, the host of the terminal
// pods. The terminal-controller-manager runs in-process on a FakeClock with its real webhook server
// (registered in the garden by URL); a `shootRef` to shoot `s` resolves to the shoot's admin client,
// a `serviceAccountRef` to that ServiceAccount's token on the garden (the default resolution).
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { KubeConfig } from "@kubernetes/client-node";
import { pino } from "pino";
import { createCertificateAuthority, issueClientCertificate, issueServingCertificate } from "../../../src/apiserver/certs/issue.ts";
import { writeKubeconfig } from "../../../src/apiserver/certs/kubeconfig.ts";
import { ensurePki } from "../../../src/apiserver/certs/pki.ts";
import { Namespaces, RoleBindings, Roles } from "../../../src/client/builtins.ts";
import { Client } from "../../../src/client/client.ts";
import { type ClusterClientFactory, gardenClusterClients } from "../../../src/terminal/clients.ts";
import { ClusterRoleBindings, ServiceAccounts } from "../../../src/terminal/resources.ts";
import { type TerminalControllerManager, createTerminalControllerManager } from "../../../src/terminal/app.ts";
import { FakeClock, realClock } from "../../../src/utils/clock.ts";
import { startInProcessApiServer } from "../../support/inprocess.ts";

export const NS = "garden-p";
export const SA = "dashboard-webterminal";
/** Static bearer tokens of the garden (for the dashboard, which authenticates users by token). */
export const TOKENS = { alice: "alice-token", carol: "carol-token", bob: "bob-token", olga: "olga-token", oscar: "oscar-token", vera: "vera-token" } as const;

export interface TerminalsAnswer {
  code: number;
  body: Record<string, unknown> & { message?: string };
}

/** One `POST /api/terminals` call to the dashboard at `url` as the holder of `token` (with the CSRF header). */
export async function terminalsCall(url: string, token: string, method: string, params: unknown): Promise<TerminalsAnswer> {
  const res = await fetch(`${url}/api/terminals`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "x-requested-with": "XMLHttpRequest", "content-type": "application/json" },
    body: JSON.stringify({ method, params }),
  });
  return { code: res.status, body: (await res.json()) as TerminalsAnswer["body"] };
}

export interface Env {
  clock: FakeClock;
  gardenAdmin: Client;
  shootAdmin: Client;
  gardenUrl: string;
  gardenCaPem: string;
  /** The shoot (the terminals' host); `ca` is its cluster CA, which also verifies its kubelets. */
  shoot: { url: string; caPem: string; adminKubeconfigPath: string; ca: { certPem: string; keyPem: string } };
  tcm: TerminalControllerManager;
  clientFor(user: string): Promise<Client>;
  stop(): Promise<void>;
}

async function server(dir: string, garden: boolean) {
  const flags: string[] = [];
  if (garden) {
    const file = `${dir}.tokens.csv`;
    writeFileSync(file, Object.entries(TOKENS).map(([user, token]) => `${token},${user},${user}`).join("\n") + "\n");
    flags.push("--token-auth-file", file, "--enable-gardener-apis");
  }
  const s = await startInProcessApiServer({ dataDir: dir, flags });
  return { s: s.server, admin: s.admin, stop: s.stop, pki: await ensurePki(s.options.certDir) };
}

/**
 * Project namespace garden-p: alice and carol members; alice may also read ServiceAccount dashboard-webterminal and mint its tokens.
 * With `webterminal`, that ServiceAccount exists and is cluster-admin (files without the project controller's RBAC).
 */
async function project(admin: Client, webterminal: boolean): Promise<void> {
  await admin.create(Namespaces, { metadata: { name: NS } });
  for (const user of ["alice", "carol"]) {
    await admin.create(RoleBindings, { metadata: { namespace: NS, name: `member-${user}` }, subjects: [{ kind: "User", name: user, apiGroup: "rbac.authorization.k8s.io" }], roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "gardener.cloud:system:project-member" } });
  }
  await admin.create(Roles, { metadata: { namespace: NS, name: "sa-token" }, rules: [{ apiGroups: [""], resources: ["serviceaccounts", "serviceaccounts/token"], verbs: ["get", "create"] }] });
  await admin.create(RoleBindings, { metadata: { namespace: NS, name: "sa-token-alice" }, subjects: [{ kind: "User", name: "alice", apiGroup: "rbac.authorization.k8s.io" }], roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: "sa-token" } });
  if (!webterminal) return;
  // The credential the garden terminal uses: it creates the access ServiceAccount and bindings on the garden.
  await admin.create(ServiceAccounts, { metadata: { namespace: NS, name: SA } });
  await admin.create(ClusterRoleBindings, { metadata: { name: "dashboard-webterminal" }, subjects: [{ kind: "ServiceAccount", namespace: NS, name: SA }], roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "cluster-admin" } });
}

/** `webterminal: false`: no dashboard-webterminal ServiceAccount and no cluster-admin for it; its rights come from the project's RBAC. */
export async function startEnv(o: { timeToLiveMs?: number; maxTerminalsPerUser?: number; honourCleanupProjectMembership?: boolean; webterminal?: boolean } = {}): Promise<Env> {
  const dir = mkdtempSync(join(tmpdir(), "terminal-it-"));
  const cleanups: (() => Promise<unknown> | unknown)[] = [() => rmSync(dir, { recursive: true, force: true })];
  const stop = async () => {
    for (const c of cleanups.splice(0).reverse()) await Promise.resolve(c()).catch(() => undefined);
  };
  try {
    const garden = await server(join(dir, "garden"), true);
    cleanups.push(() => garden.stop());
    const shoot = await server(join(dir, "shoot"), false);
    cleanups.push(() => shoot.stop());
    const [gardenAdmin, shootAdmin] = [garden.admin, shoot.admin];
    await project(gardenAdmin, o.webterminal ?? true);

    const clientFor = async (user: string): Promise<Client> => {
      const cert = await issueClientCertificate({ certPem: garden.pki.ca.certPem, keyPem: garden.pki.ca.keyPem }, { commonName: user, organizations: [] });
      const path = join(dir, `${user}.kubeconfig`);
      await writeKubeconfig(path, { server: garden.s.url, caPem: garden.s.caPem, clusterName: "garden", userName: user, user: cert });
      const c = Client.fromKubeconfigFile(path, { fieldManager: user });
      cleanups.push(() => c.close());
      return c;
    };

    const clock = new FakeClock(Math.floor(Date.now() / 1000) * 1000);
    const kc = new KubeConfig();
    kc.loadFromFile(garden.s.adminKubeconfigPath);
    const gardenClients = gardenClusterClients(gardenAdmin, kc, { fieldManager: "terminal-controller-manager" });
    const clients: ClusterClientFactory = async (cred, signal) => {
      if (cred.shootRef?.name === "s") {
        const c = Client.fromKubeconfigFile(shoot.s.adminKubeconfigPath, { fieldManager: "terminal-controller-manager" });
        return { client: c, server: shoot.s.url, close: () => c.close() };
      }
      return gardenClients(cred, signal);
    };
    const ca = await createCertificateAuthority({ commonName: "terminal-webhook-ca" });
    const cert = await issueServingCertificate(ca, { hosts: ["127.0.0.1"] });
    const tcm = createTerminalControllerManager({
      gardenClient: gardenAdmin,
      clients,
      clock,
      cacheClock: realClock,
      logger: pino({ level: process.env.TERMINAL_LOG_LEVEL ?? "silent" }),
      server: false,
      defaultMetrics: false,
      webhook: { certPem: cert.certPem, keyPem: cert.keyPem, port: 0, register: { url: "", caBundle: Buffer.from(ca.certPem).toString("base64") } },
      config: { timeToLiveMs: o.timeToLiveMs, maxTerminalsPerUser: o.maxTerminalsPerUser, ...(o.honourCleanupProjectMembership ? { honourCleanupProjectMembership: true } : {}) },
    });
    cleanups.push(() => tcm.stop());
    await tcm.start();
    return { clock, gardenAdmin, shootAdmin, gardenUrl: garden.s.url, gardenCaPem: garden.s.caPem, shoot: { url: shoot.s.url, caPem: shoot.s.caPem, adminKubeconfigPath: shoot.s.adminKubeconfigPath, ca: shoot.pki.ca }, tcm, clientFor, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
