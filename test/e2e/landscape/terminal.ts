// A member's web terminal on the landscape, through the dashboard's HTTP API as the browser calls it
// (docs/terminals.md#the-local-landscape): `create` on the shoot, `fetch` until the pod runs, attach to
// the pod with the session's token, `kubectl get nodes` in it shows the shoot's workers, `remove`; then
// the Terminal, the temporary namespace, the pod, the ServiceAccounts and bindings are gone from every
// cluster and nothing of the pod is left on its worker.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { request } from "node:https";
import { join } from "node:path";
import { KubeConfig } from "@kubernetes/client-node";
import WebSocket from "ws";
import { isNotFound } from "../../../src/apimachinery/errors.ts";
import { Namespaces, Pods, RoleBindings, ServiceAccounts } from "../../../src/client/builtins.ts";
import { Client } from "../../../src/client/client.ts";
import { LinuxHost } from "../../../src/host/index.ts";
import { Layout, SEED_NODE_NETWORK, SHOOT_TECHNICAL_ID } from "../../../src/landscape/layout.ts";
import { SEED_HOST_SECRET } from "../../../src/landscape/terminals.ts";
import { terminalConfig } from "../../../src/dashboard/terminals/config.ts";
import { terminalSpec } from "../../../src/dashboard/terminals/spec.ts";
import { Shoots, Terminals } from "../../../src/client/garden.ts";
import { ClusterRoleBindings } from "../../../src/terminal/resources.ts";
import { workerMachineName } from "../../../src/provider-local/machines/workers.ts";
import { eventually } from "../../support/http.ts";

export const OPS_TOOLBELT = "europe-docker.pkg.dev/gardener-project/releases/gardener/ops-toolbelt:latest";

/** The dashboard's `POST /api/terminals` as the browser sends it, with the member's bearer token. */
export class DashboardApi {
  readonly url: string;
  private readonly ca: string;
  constructor(layout: Layout, private readonly token = readFileSync(join(layout.dir, "garden-member.token"), "utf8").trim()) {
    this.url = readFileSync(join(layout.dir, "dashboard.url"), "utf8").trim();
    this.ca = readFileSync(join(layout.apiServerDir("garden"), "pki", "ca.crt"), "utf8");
  }

  call<T>(method: string, params: object): Promise<T> {
    const body = JSON.stringify({ method, params });
    return new Promise((resolve, reject) => {
      const req = request(new URL("api/terminals", this.url), {
        method: "POST", ca: this.ca, timeout: 60_000,
        headers: { authorization: `Bearer ${this.token}`, "content-type": "application/json", "x-requested-with": "XMLHttpRequest" },
      }, (res) => {
        let text = "";
        res.on("data", (d: Buffer) => (text += d.toString()));
        res.on("end", () => (res.statusCode === 200 ? resolve(JSON.parse(text) as T) : reject(new Error(`${method}: ${res.statusCode} ${text}`))));
      });
      req.on("timeout", () => req.destroy(new Error(`${method}: timed out`)));
      req.on("error", reject);
      req.end(body);
    });
  }
}

export interface Session {
  name: string;
  namespace: string;
  hostCluster: { token: string; namespace: string; pod: { name: string; nodeName?: string } };
}

/** `create` then `fetch` of a member's shoot terminal; the session and how long create -> ready took. */
export async function openShootTerminal(api: DashboardApi, image = OPS_TOOLBELT): Promise<{ session: Session; ms: number }> {
  const started = performance.now();
  const created = await api.call<{ metadata: { name: string; namespace: string } }>("create", {
    coordinate: { namespace: "garden-local", name: "local", target: "shoot" }, identifier: randomUUID(), container: { image },
  });
  const fetched = await api.call<Omit<Session, "name" | "namespace">>("fetch", { name: created.metadata.name, namespace: created.metadata.namespace });
  return { session: { ...created.metadata, ...fetched }, ms: performance.now() - started };
}

/** pods/attach of the session's pod on the shoot API server with the session's token: a tiny terminal. */
export class Attached {
  private out = "";
  private constructor(private readonly ws: WebSocket) {
    ws.on("message", (d: Buffer) => {
      if (d[0] === 1 || d[0] === 2) this.out += d.subarray(1).toString("utf8");
    });
  }

  static async fromSocket(ws: WebSocket): Promise<Attached> {
    await new Promise<void>((resolve, reject) => (ws.once("open", () => resolve()), ws.once("error", reject), ws.once("unexpected-response", (_req, res) => reject(new Error(`attach answered ${res.statusCode}`)))));
    const a = new Attached(ws);
    ws.send(Buffer.concat([Buffer.from([4]), Buffer.from(JSON.stringify({ Width: 120, Height: 40 }))]));
    return a;
  }

  static async open(layout: Layout, s: Session): Promise<Attached> {
    const kc = new KubeConfig();
    kc.loadFromFile(layout.shootKubeconfig);
    const cluster = kc.getCurrentCluster()!;
    const q = "container=terminal&stdin=true&stdout=true&tty=true";
    const url = `${cluster.server.replace(/^https/, "wss")}/api/v1/namespaces/${s.hostCluster.namespace}/pods/${s.hostCluster.pod.name}/attach?${q}`;
    return Attached.fromSocket(new WebSocket(url, ["v4.channel.k8s.io"], { headers: { authorization: `Bearer ${s.hostCluster.token}` }, ca: Buffer.from(cluster.caData ?? "", "base64").toString() }));
  }

  type(text: string): void {
    this.ws.send(Buffer.concat([Buffer.from([0]), Buffer.from(text)]));
  }

  /** Waits until the output since `from` matches; answers the output's length then. */
  async until(re: RegExp, from = 0, timeoutMs = 30_000): Promise<number> {
    return eventually(`terminal output ${re}`, () => (re.test(this.out.slice(from)) ? this.out.length : undefined), timeoutMs, 50).catch((err: Error) => {
      throw new Error(`${err.message}; output so far: ${JSON.stringify(this.out.slice(-2000))}`);
    });
  }

  close(): void {
    this.ws.close();
  }
}

const gone = async (p: Promise<unknown>): Promise<boolean> => p.then(() => false, (err: unknown) => (isNotFound(err) ? true : Promise.reject(err)));

/** Nothing of the session is left: Terminal (garden), namespace, pod, ServiceAccounts, bindings (shoot, seed), processes, mounts (worker). */
export async function assertSessionGone(layout: Layout, prefix: string, s: Session, id: string, podUid: string): Promise<void> {
  const c = (path: string): Client => Client.fromKubeconfigFile(path, { fieldManager: "e2e" });
  const garden = c(layout.gardenKubeconfig), shoot = c(layout.shootKubeconfig), seed = c(join(layout.apiServerDir("seed"), "admin.kubeconfig"));
  const ns = `term-${id}`;
  try {
    await eventually("the Terminal gone from the garden", async () => ((await gone(garden.get(Terminals, { namespace: s.namespace, name: s.name }))) ? true : undefined), 60_000, 200);
    for (const [name, cluster] of [["shoot", shoot], ["seed", seed]] as const) {
      await eventually(`namespace ${ns} gone from the ${name}`, async () => ((await gone(cluster.get(Namespaces, { name: ns }))) ? true : undefined), 60_000, 200);
      assert.ok(await gone(cluster.get(Pods, { namespace: ns, name: `term-${id}` })), `pod gone from the ${name}`);
      for (const sa of [`term-attach-${id}`, `term-access-${id}`]) assert.ok(await gone(cluster.get(ServiceAccounts, { namespace: ns, name: sa })), `${sa} gone from the ${name}`);
      assert.ok(await gone(cluster.get(RoleBindings, { namespace: ns, name: `term-attach-${id}` })), `the attach RoleBinding gone from the ${name}`);
      assert.ok(await gone(cluster.get(ClusterRoleBindings, { name: `term-access-${id}` })), `the access ClusterRoleBinding gone from the ${name}`);
    }
    const node = s.hostCluster.pod.nodeName ?? "";
    const worker = /-worker-(w\d+)$/.exec(node)?.[1];
    assert.ok(worker, `the pod ran on a worker: ${node}`);
    const host = new LinuxHost({ stateDir: layout.hostState, prefix });
    const traces = async (): Promise<string[]> => (await host.execInMachine(workerMachineName(SHOOT_TECHNICAL_ID, worker), "sh", ["-c", `ps -eo args | grep -F '${podUid}' | grep -v grep; grep -F '${podUid}' /proc/mounts; ls /run/netns 2>/dev/null | grep -F '${podUid}'; true`], { okExitCodes: [0, 1] })).stdout.split("\n").filter(Boolean);
    await eventually(`nothing of pod ${podUid} left on ${node}`, async () => ((await traces()).length === 0 ? true : undefined), 30_000, 250).catch(async (err: Error) => {
      throw new Error(`${err.message}: ${(await traces()).join("; ")}`);
    });
  } finally {
    for (const x of [garden, shoot, seed]) x.close();
  }
}

/** The whole member journey; answers create -> ready in ms. */
export async function checkMemberShootTerminal(layout: Layout, prefix: string): Promise<number> {
  const api = new DashboardApi(layout);
  const config = await api.call<{ container: { image: string } }>("config", { coordinate: { namespace: "garden-local", name: "local", target: "shoot" } });
  assert.ok(config.container.image, "config names the default image");
  const { session, ms } = await openShootTerminal(api);
  assert.match(session.hostCluster.pod.nodeName ?? "", /^shoot--local--local-worker-w\d$/, "the member's terminal runs on a shoot worker");
  const garden = Client.fromKubeconfigFile(layout.gardenKubeconfig, { fieldManager: "e2e" });
  const shoot = Client.fromKubeconfigFile(layout.shootKubeconfig, { fieldManager: "e2e" });
  let id: string, podUid: string;
  try {
    id = (await garden.get(Terminals, { namespace: session.namespace, name: session.name })).spec.identifier;
    assert.equal(session.hostCluster.namespace, `term-${id}`);
    podUid = (await shoot.get(Pods, { namespace: `term-${id}`, name: `term-${id}` })).metadata.uid ?? "";
  } finally {
    garden.close();
    shoot.close();
  }
  const term = await Attached.open(layout, session);
  try {
    term.type("kubectl get nodes -o name; echo done-$((6*7))\r");
    await term.until(/node\/shoot--local--local-worker-w1[\s\S]*node\/shoot--local--local-worker-w2[\s\S]*done-42/);
  } finally {
    term.close();
  }
  await api.call("remove", { name: session.name, namespace: session.namespace });
  await assertSessionGone(layout, prefix, session, id, podUid);
  return ms;
}

/** pods/attach with an admin kubeconfig's client certificate (the dashboard's fetch hands out tokens of shoot hosts only). */
async function attachAsAdmin(kubeconfigPath: string, namespace: string, pod: string): Promise<Attached> {
  const kc = new KubeConfig();
  kc.loadFromFile(kubeconfigPath);
  const cluster = kc.getCurrentCluster()!;
  const user = kc.getCurrentUser()!;
  const dec = (s?: string) => Buffer.from(s ?? "", "base64").toString();
  const url = `${cluster.server.replace(/^https/, "wss")}/api/v1/namespaces/${namespace}/pods/${pod}/attach?container=terminal&stdin=true&stdout=true&tty=true`;
  return Attached.fromSocket(new WebSocket(url, ["v4.channel.k8s.io"], { ca: dec(cluster.caData), cert: dec(user.certData), key: dec(user.keyData) }));
}

/**
 * An operator's control-plane terminal on the seed (the seed is no ManagedSeed: its kubeconfig Secret
 * hosts it): the spec the dashboard builds for target `cp`, created as the garden admin; its pod runs on
 * the seed's worker in the shoot's namespace, kubectl there reaches the seed as the access ServiceAccount;
 * deleting it removes the ServiceAccounts, bindings and pod, and nothing is left on the seed's worker.
 */
export async function checkOperatorCpTerminal(layout: Layout, prefix: string): Promise<number> {
  const c = (path: string): Client => Client.fromKubeconfigFile(path, { fieldManager: "e2e" });
  const seedKubeconfig = join(layout.apiServerDir("seed"), "admin.kubeconfig");
  const garden = c(layout.gardenKubeconfig), seed = c(seedKubeconfig);
  try {
    const shoot = await garden.get(Shoots, { namespace: "garden-local", name: "local" });
    const cfg = terminalConfig({ garden: { url: "https://127.0.0.1" }, seedHosts: { local: { secretRef: SEED_HOST_SECRET } } });
    const spec = await terminalSpec(garden, cfg, { coordinate: { namespace: "garden-local", name: "local", target: "cp" }, identifier: randomUUID() }, true, shoot, "seed", OPS_TOOLBELT);
    assert.deepEqual(spec.host.credentials, { secretRef: SEED_HOST_SECRET });
    const started = performance.now();
    const t = await garden.create(Terminals, { apiVersion: "dashboard.gardener.cloud/v1alpha1", kind: "Terminal", metadata: { generateName: "term-cp-", namespace: "garden-local" }, spec } as never);
    const id = t.spec.identifier, name = t.metadata.name ?? "", ns = SHOOT_TECHNICAL_ID;
    const pod = await eventually(`cp terminal pod term-${id} running on the seed`, async () => {
      const p = await seed.get(Pods, { namespace: ns, name: `term-${id}` }).catch(() => undefined);
      return p?.status?.phase === "Running" && p.status.containerStatuses?.find((x) => x.name === "terminal")?.ready ? p : undefined;
    }, 60_000, 100);
    const ms = performance.now() - started;
    assert.match(pod.spec?.nodeName ?? "", /^seed-local-worker-w1$/, "the operator's terminal runs on the seed's worker");
    const term = await attachAsAdmin(seedKubeconfig, ns, `term-${id}`);
    try {
      term.type("kubectl get serviceaccounts -o name; echo done-$((6*7))\r");
      await term.until(new RegExp(`serviceaccount/term-access-${id}[\\s\\S]*done-42`));
    } finally {
      term.close();
    }
    await garden.delete(Terminals, { namespace: "garden-local", name });
    await eventually("the cp Terminal gone from the garden", async () => ((await gone(garden.get(Terminals, { namespace: "garden-local", name }))) ? true : undefined), 60_000, 200);
    for (const sa of [`term-attach-${id}`, `term-access-${id}`]) assert.ok(await gone(seed.get(ServiceAccounts, { namespace: ns, name: sa })), `${sa} gone from the seed`);
    for (const rb of [`term-attach-${id}`, `term-access-${id}`]) assert.ok(await gone(seed.get(RoleBindings, { namespace: ns, name: rb })), `RoleBinding ${rb} gone from the seed`);
    await eventually(`pod term-${id} gone from the seed`, async () => ((await gone(seed.get(Pods, { namespace: ns, name: `term-${id}` }))) ? true : undefined), 60_000, 200);
    const host = new LinuxHost({ stateDir: layout.hostState, prefix });
    const uid = pod.metadata.uid ?? "";
    const traces = async (): Promise<string[]> => (await host.execInMachine(workerMachineName(SEED_NODE_NETWORK, "w1"), "sh", ["-c", `ps -eo args | grep -F '${uid}' | grep -v grep; grep -F '${uid}' /proc/mounts; ls /run/netns 2>/dev/null | grep -F '${uid}'; true`], { okExitCodes: [0, 1] })).stdout.split("\n").filter(Boolean);
    await eventually(`nothing of pod ${uid} left on the seed's worker`, async () => ((await traces()).length === 0 ? true : undefined), 30_000, 250);
    return ms;
  } finally {
    garden.close();
    seed.close();
  }
}
