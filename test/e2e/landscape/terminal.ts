// Web terminals on the landscape outside the browser (docs/terminals.md#the-local-landscape): the
// dashboard's HTTP API as the browser calls it (`POST /api/terminals`, the recordings), `create` and
// `fetch` of a member's shoot terminal and a tiny pods/attach client (bench/terminal uses them), and the
// check that nothing of a closed terminal is left on any cluster or on its worker.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { request } from "node:https";
import { join } from "node:path";
import { KubeConfig } from "@kubernetes/client-node";
import WebSocket from "ws";
import { isNotFound } from "../../../src/apimachinery/errors.ts";
import { Namespaces, Pods, RoleBindings, Roles, ServiceAccounts } from "../../../src/client/builtins.ts";
import { Client } from "../../../src/client/client.ts";
import { LinuxHost } from "../../../src/host/index.ts";
import { Layout, SEED_NODE_NETWORK, SHOOT_TECHNICAL_ID } from "../../../src/landscape/layout.ts";
import { Terminals } from "../../../src/client/garden.ts";
import { ClusterRoleBindings } from "../../../src/terminal/resources.ts";
import { workerMachineName } from "../../../src/provider-local/machines/workers.ts";
import { eventually } from "../../support/http.ts";

export const OPS_TOOLBELT = "europe-docker.pkg.dev/gardener-project/releases/gardener/ops-toolbelt:latest";

/** The dashboard's `POST /api/terminals` as the browser sends it, with the member's bearer token. */
export class DashboardApi {
  readonly url: string;
  readonly ca: string;
  constructor(layout: Layout, private readonly token = readFileSync(join(layout.dir, "garden-member.token"), "utf8").trim()) {
    this.url = readFileSync(join(layout.dir, "dashboard.url"), "utf8").trim();
    this.ca = readFileSync(join(layout.apiServerDir("garden"), "pki", "ca.crt"), "utf8");
  }

  call<T>(method: string, params: object): Promise<T> {
    return this.request("POST", "api/terminals", JSON.stringify({ method, params })).then((text) => JSON.parse(text) as T, (err: Error) => Promise.reject(new Error(`${method}: ${err.message}`)));
  }

  /** A recording's asciicast as the user reads it (`GET /api/terminals/recordings/<namespace>/<id>`). */
  recording(namespace: string, id: string): Promise<string> {
    return this.request("GET", `api/terminals/recordings/${encodeURIComponent(namespace)}/${encodeURIComponent(id)}`);
  }

  private request(method: string, path: string, body?: string): Promise<string> {
    return new Promise((resolve, reject) => {
      const req = request(new URL(path, this.url), {
        method, ca: this.ca, timeout: 60_000,
        headers: { authorization: `Bearer ${this.token}`, "content-type": "application/json", "x-requested-with": "XMLHttpRequest" },
      }, (res) => {
        let text = "";
        res.on("data", (d: Buffer) => (text += d.toString()));
        res.on("end", () => (res.statusCode === 200 ? resolve(text) : reject(new Error(`${res.statusCode} ${text}`))));
      });
      req.on("timeout", () => req.destroy(new Error(`${method} ${path}: timed out`)));
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
export function openShootTerminal(api: DashboardApi, image = OPS_TOOLBELT): Promise<{ session: Session; ms: number }> {
  return openTerminal(api, "shoot", image);
}

/** `create` then `fetch` of a member's terminal on shoot `local` with the given target (`garden`: the project's garden terminal). */
export async function openTerminal(api: DashboardApi, target: "shoot" | "garden", image = OPS_TOOLBELT): Promise<{ session: Session; ms: number }> {
  const started = performance.now();
  const created = await api.call<{ metadata: { name: string; namespace: string } }>("create", {
    coordinate: { namespace: "garden-local", name: "local", target }, identifier: randomUUID(), container: { image },
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

  /** Types `line` (and Enter) until the output after it matches, again every `everyMs` (what it waits for may lag). */
  async runUntil(line: string, re: RegExp, timeoutMs = 60_000, everyMs = 5000): Promise<string> {
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      const from = this.out.length;
      this.type(`${line}\r`);
      try {
        await this.until(re, from, Math.min(everyMs, Math.max(1, deadline - performance.now())));
        return this.out.slice(from);
      } catch (err) {
        if (performance.now() >= deadline) throw err;
      }
    }
  }

  close(): void {
    this.ws.close();
  }
}

const gone = async (p: Promise<unknown>): Promise<boolean> => p.then(() => false, (err: unknown) => (isNotFound(err) ? true : Promise.reject(err)));

/** Where a terminal's pod ran, for the leftover check. */
export interface TerminalTrace {
  terminal: { namespace: string; name: string };
  /** spec.identifier: the objects are term-<id>, term-attach-<id>, term-access-<id>. */
  id: string;
  /** The namespaces of the host and target sides (term-<id> for temporary ones). */
  namespaces: string[];
  pod: { uid: string; nodeName: string };
}

const kubeconfigOf = (layout: Layout, cluster: "shoot" | "seed"): string => (cluster === "shoot" ? layout.shootKubeconfig : join(layout.apiServerDir("seed"), "admin.kubeconfig"));

/** The Terminal, its id and where its pod runs, read as admin from the garden and the host cluster. */
export async function traceOf(layout: Layout, terminal: { namespace: string; name: string }): Promise<TerminalTrace> {
  const garden = Client.fromKubeconfigFile(layout.gardenKubeconfig, { fieldManager: "e2e" });
  let t;
  try {
    t = await garden.get(Terminals, terminal);
  } finally {
    garden.close();
  }
  const id = t.spec.identifier;
  const nsOf = (side: { namespace?: string; temporaryNamespace?: boolean }): string => (side.temporaryNamespace ? `term-${id}` : side.namespace ?? `term-${id}`);
  const hostCluster = t.spec.host.credentials.shootRef ? "shoot" : "seed";
  const hostNs = nsOf(t.spec.host);
  const host = Client.fromKubeconfigFile(kubeconfigOf(layout, hostCluster), { fieldManager: "e2e" });
  try {
    const pod = await host.get(Pods, { namespace: hostNs, name: t.status?.podName ?? `term-${id}` });
    return {
      terminal, id,
      namespaces: [hostNs, nsOf(t.spec.target)],
      pod: { uid: pod.metadata.uid ?? "", nodeName: pod.spec?.nodeName ?? "" },
    };
  } finally {
    host.close();
  }
}

/** The worker machine of a node of the shoot or the seed (`<node network>-worker-<name>`). */
function machineOf(nodeName: string): string {
  const m = /^(.*)-worker-(w\d+)$/.exec(nodeName);
  assert.ok(m, `the pod ran on a worker: ${nodeName}`);
  assert.ok([SHOOT_TECHNICAL_ID, SEED_NODE_NETWORK].includes(m[1]!), `a landscape worker: ${nodeName}`);
  return workerMachineName(m[1]!, m[2]!);
}

/**
 * Nothing of a terminal is left on any cluster: the Terminal (garden); on the garden, the shoot and the
 * seed alike no namespace term-<id>, no pod, ServiceAccount, Role or RoleBinding of the terminal in its
 * namespaces, no ClusterRoleBinding term-access-<id>; on its worker no process, mount or network
 * namespace of the pod.
 */
export async function assertTerminalGone(layout: Layout, prefix: string, t: TerminalTrace): Promise<void> {
  const c = (path: string): Client => Client.fromKubeconfigFile(path, { fieldManager: "e2e" });
  const clusters = { garden: c(layout.gardenKubeconfig), shoot: c(layout.shootKubeconfig), seed: c(join(layout.apiServerDir("seed"), "admin.kubeconfig")) };
  const { id } = t;
  const namespaces = [...new Set([...t.namespaces, `term-${id}`])];
  const leftovers = async (): Promise<string[]> => {
    const left: string[] = [];
    const check = async (what: string, p: Promise<unknown>): Promise<void> => void (!(await gone(p)) && left.push(what));
    await check("the Terminal in the garden", clusters.garden.get(Terminals, t.terminal));
    for (const [name, cl] of Object.entries(clusters)) {
      await check(`namespace term-${id} on the ${name}`, cl.get(Namespaces, { name: `term-${id}` }));
      await check(`ClusterRoleBinding term-access-${id} on the ${name}`, cl.get(ClusterRoleBindings, { name: `term-access-${id}` }));
      for (const namespace of namespaces) {
        await check(`pod ${namespace}/term-${id} on the ${name}`, cl.get(Pods, { namespace, name: `term-${id}` }));
        await check(`Role ${namespace}/dashboard.gardener.cloud:term-attach-${id} on the ${name}`, cl.get(Roles, { namespace, name: `dashboard.gardener.cloud:term-attach-${id}` }));
        for (const n of [`term-attach-${id}`, `term-access-${id}`]) {
          await check(`ServiceAccount ${namespace}/${n} on the ${name}`, cl.get(ServiceAccounts, { namespace, name: n }));
          await check(`RoleBinding ${namespace}/${n} on the ${name}`, cl.get(RoleBindings, { namespace, name: n }));
        }
      }
    }
    return left;
  };
  try {
    await eventually("every object of the terminal gone", async () => ((await leftovers()).length === 0 ? true : undefined), 60_000, 250).catch(async (err: Error) => {
      throw new Error(`${err.message}: ${(await leftovers()).join("; ")}`);
    });
  } finally {
    for (const x of Object.values(clusters)) x.close();
  }
  const host = new LinuxHost({ stateDir: layout.hostState, prefix });
  const uid = t.pod.uid;
  assert.ok(uid, "the pod's uid is known");
  const traces = async (): Promise<string[]> => (await host.execInMachine(machineOf(t.pod.nodeName), "sh", ["-c", `ps -eo args | grep -F '${uid}' | grep -v grep; grep -F '${uid}' /proc/mounts; ls /run/netns 2>/dev/null | grep -F '${uid}'; true`], { okExitCodes: [0, 1] })).stdout.split("\n").filter(Boolean);
  await eventually(`nothing of pod ${uid} left on ${t.pod.nodeName}`, async () => ((await traces()).length === 0 ? true : undefined), 30_000, 250).catch(async (err: Error) => {
    throw new Error(`${err.message}: ${(await traces()).join("; ")}`);
  });
}
