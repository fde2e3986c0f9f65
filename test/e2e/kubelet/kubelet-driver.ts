// Runs inside a worker machine (through execInMachine): a real API server in this process and the node
// agent as kubelet with a real PodRuntime, in process or as the real binary (to SIGKILL it). Prints what it
// observed as JSON on the last line; kubelet.test.ts asserts on it.
// usage: node --import tsx kubelet-driver.ts <scenario>
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import type { Pod } from "../../../src/apis/core/v1/pod.ts";
import { isNotFound } from "../../../src/apimachinery/errors.ts";
import { parseOptions } from "../../../src/apiserver/server/options.ts";
import { startApiServer } from "../../../src/apiserver/server/server.ts";
import { ConfigMaps, Secrets } from "../../../src/client/builtins.ts";
import { Client } from "../../../src/client/client.ts";
import { Events } from "../../../src/client/events.ts";
import { mountPoints } from "../../../src/host/mounts.ts";
import { createNodeAgent } from "../../../src/nodeagent/agent.ts";
import { Pods } from "../../../src/nodeagent/kubelet/kubelet.ts";
import type { PodRuntime } from "../../../src/nodeagent/kubelet/runtime/runtime.ts";
import { RecordingSshd } from "../../../src/nodeagent/sshd.ts";
import { fixedUserManager } from "../../../src/nodeagent/users.ts";

const [scenario] = process.argv.slice(2) as [string];
const STATE = "/var/lib/gardener-node-agent/kubelet";
const NODE = "worker";
const NS = "default";
const CIDR = "10.96.7.0/24";
const result: Record<string, unknown> = {};
const dir = mkdtempSync(join(tmpdir(), "kubelet-e2e-"));
const parsed = parseOptions(["--data-dir", join(dir, "api"), "--secure-port", "0", "--etcd-compaction-interval", "0s"]);
if (parsed.kind !== "options") throw new Error(parsed.stderr);
const server = await startApiServer(parsed.options, { logger: pino({ level: "silent" }) });
const client = Client.fromKubeconfigFile(server.adminKubeconfigPath, { fieldManager: "e2e" });
const b64 = (s: string) => Buffer.from(s).toString("base64");
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until<T>(what: string, fn: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn().catch(() => undefined);
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}
const get = (name: string) => client.get(Pods, { namespace: NS, name });
const phase = (name: string, want: string) => until(`${name} ${want}`, async () => ((await get(name)).status?.phase === want ? get(name) : undefined), 60_000);
const gone = (name: string) => until(`${name} gone`, () => get(name).then(() => undefined, (err: unknown) => (isNotFound(err) ? true : undefined)), 60_000);
const events = async (name: string) => (await client.list(Events, { namespace: NS })).items.filter((e) => e.involvedObject.name === name).map((e) => `${e.type} ${e.reason} ${e.message}`);
function pod(name: string, c: Record<string, unknown>, spec: Record<string, unknown> = {}): Pod {
  return { metadata: { name, namespace: NS }, spec: { nodeName: NODE, automountServiceAccountToken: false, terminationGracePeriodSeconds: 5, containers: [{ name: "c0", image: "busybox", ...c }], ...spec } };
}
function leftovers() {
  const netns = existsSync("/run/netns") ? readdirSync("/run/netns").filter((x) => x.startsWith("gk-pod")) : [];
  return { netns, pods: existsSync(`${STATE}/pods`) ? readdirSync(`${STATE}/pods`) : [] };
}

/** Processes left of the pods (their `sleep 600`) or of the runtime (shims, under the kubelet's state directory). */
function podProcesses(): string[] {
  const out: string[] = [];
  for (const pid of readdirSync("/proc").filter((x) => /^\d+$/.test(x) && x !== String(process.pid))) {
    const cmd = (() => { try { return readFileSync(`/proc/${pid}/cmdline`, "utf8"); } catch { return ""; } })();
    if (cmd.startsWith("sleep\u0000600") || cmd.includes(STATE)) out.push(`${pid} ${cmd.replace(/\0/g, " ")}`);
  }
  return out;
}

async function inProcessAgent() {
  const agent = createNodeAgent({
    client: Client.fromKubeconfigFile(server.adminKubeconfigPath, { fieldManager: "kubelet" }),
    nodeName: NODE,
    pool: "worker",
    root: join(dir, "root"),
    users: fixedUserManager(),
    sshd: new RecordingSshd(),
    internalIP: "10.96.7.1",
    hostname: NODE,
    logger: pino({ level: process.env.KUBELET_LOG_LEVEL ?? "silent" }),
    server: false,
    defaultMetrics: false,
    kubelet: { stateDir: STATE, podCIDR: CIDR, relistMs: 250, volumeResyncMs: 2000 },
  });
  await agent.start();
  return agent;
}

/** The real binary, once it printed its ready line (a loaded machine may take a while to start it). */
async function binaryAgent(): Promise<ChildProcess> {
  const child = spawn(process.execPath, ["bin/gardener-node-agent.js", "--kubeconfig", server.adminKubeconfigPath, "--node-name", NODE, "--pool", "worker", "--root", join(dir, "root"), "--kubelet", "--pod-cidr", CIDR, "--kubelet-state-dir", STATE], { stdio: ["ignore", "pipe", "inherit"] });
  await new Promise<void>((resolve, reject) => {
    let buf = "";
    child.stdout!.on("data", (d) => {
      buf += String(d);
      if (buf.includes("gardener-node-agent started")) resolve();
    });
    child.once("exit", (code) => reject(new Error(`gardener-node-agent exited with ${code} before it was ready`)));
  });
  child.stdout!.resume();
  return child;
}

async function exec(rt: PodRuntime, name: string, script: string): Promise<string> {
  const p = await until(`${name} in the kubelet`, () => Promise.resolve(agentRef?.kubelet?.podByName(NS, name)));
  const s = await rt.exec(p, "c0", ["sh", "-c", script]);
  let out = "";
  for await (const c of s.stdout) out += String(c);
  await s.exit;
  return out;
}
let agentRef: Awaited<ReturnType<typeof inProcessAgent>> | undefined;

try {
  switch (scenario) {
    case "run": {
      agentRef = await inProcessAgent();
      const rt = agentRef.kubelet!.runtime;
      await client.create(Secrets, { metadata: { name: "creds", namespace: NS }, data: { password: b64("s3cr3t") } });
      await client.create(ConfigMaps, { metadata: { name: "conf", namespace: NS }, data: { "a.txt": "one" } });
      await client.create(Pods, pod("web", { command: ["sleep", "600"], env: [{ name: "PASSWORD", valueFrom: { secretKeyRef: { name: "creds", key: "password" } } }, { name: "NODE", valueFrom: { fieldRef: { fieldPath: "spec.nodeName" } } }], volumeMounts: [{ name: "conf", mountPath: "/conf" }] }, { volumes: [{ name: "conf", configMap: { name: "conf" } }] }));
      result.web = (await phase("web", "Running")).status;
      result.webExec = await exec(rt, "web", "echo $PASSWORD $NODE; cat /conf/a.txt");
      const t0 = Date.now();
      await client.patch(ConfigMaps, { namespace: NS, name: "conf" }, { type: "merge", body: { data: { "a.txt": "two" } } });
      await until("configMap update in the container", async () => ((await exec(rt, "web", "cat /conf/a.txt")) === "two" ? true : undefined), 20_000);
      result.configMapUpdateMs = Date.now() - t0;
      await client.create(Pods, pod("never", { command: ["sh", "-c", "exit 3"] }, { restartPolicy: "Never" }));
      await client.create(Pods, pod("onfailure", { command: ["sh", "-c", "exit 0"] }, { restartPolicy: "OnFailure" }));
      await client.create(Pods, pod("always", { command: ["sh", "-c", "exit 1"] }));
      result.never = (await phase("never", "Failed")).status;
      result.onfailure = (await phase("onfailure", "Succeeded")).status;
      result.always = (await until("always restarted", async () => ((await get("always")).status?.containerStatuses?.[0]?.restartCount ?? 0) >= 2 ? get("always") : undefined, 60_000)).status;
      result.webEvents = await events("web");
      result.alwaysEvents = await until("BackOff", async () => ((await events("always")).some((e) => e.includes("BackOff")) ? events("always") : undefined));
      const uids = await Promise.all(["web", "never", "onfailure", "always"].map(async (n) => (await get(n)).metadata.uid!));
      const t1 = Date.now();
      await client.delete(Pods, { namespace: NS, name: "web" }, { gracePeriodSeconds: 5 });
      await gone("web");
      result.deleteMs = Date.now() - t1;
      result.webEventsAfterDelete = await events("web");
      for (const n of ["never", "onfailure", "always"]) await client.delete(Pods, { namespace: NS, name: n });
      for (const n of ["never", "onfailure", "always"]) await gone(n);
      result.uids = uids;
      result.leftovers = await until("cleanup", async () => {
        const l = leftovers();
        return l.netns.length === 0 && l.pods.length === 0 ? l : undefined;
      }).catch(() => leftovers());
      await agentRef.stop();
      break;
    }
    case "restart": {
      const first = await binaryAgent();
      await client.create(Pods, pod("survivor", { command: ["sleep", "600"] }));
      await client.create(Pods, pod("doomed", { command: ["sleep", "600"] }));
      const before = (await phase("survivor", "Running")).status!.containerStatuses![0]!;
      const doomed = (await phase("doomed", "Running")).metadata.uid!;
      // The status is written as soon as the container runs, its events right after: the first agent's
      // Started must be in the API before the SIGKILL, or there is no event to not repeat.
      await until("survivor's Started event", async () => ((await events("survivor")).some((e) => e.includes("Started")) ? true : undefined));
      first.kill("SIGKILL");
      await new Promise((r) => first.once("exit", r));
      // While no kubelet runs: one pod is force-deleted from the API.
      await client.delete(Pods, { namespace: NS, name: "doomed" }, { gracePeriodSeconds: 0 });
      result.recordedWhileDown = leftovers().pods.length;
      const second = await binaryAgent();
      result.doomedCleaned = await until("doomed cleaned up", () => Promise.resolve(leftovers().pods.includes(doomed) ? undefined : true)).catch(() => false);
      await sleep(1500);
      const after = (await get("survivor")).status!.containerStatuses![0]!;
      result.survivor = { before: { id: before.containerID, restarts: before.restartCount }, after: { id: after.containerID, restarts: after.restartCount, running: after.state?.running !== undefined } };
      result.startedEvents = (await events("survivor")).filter((e) => e.includes("Started")).length;
      await client.delete(Pods, { namespace: NS, name: "survivor" }, { gracePeriodSeconds: 5 });
      await gone("survivor");
      result.leftovers = await until("cleanup", async () => {
        const l = leftovers();
        return l.netns.length === 0 && l.pods.length === 0 ? l : undefined;
      }).catch(() => leftovers());
      second.kill("SIGTERM");
      await new Promise((r) => second.once("exit", r));
      result.processes = podProcesses();
      break;
    }
    default:
      throw new Error(`unknown scenario ${scenario}`);
  }
  result.mounts = (await mountPoints()).filter((m) => m.startsWith(STATE) || m.startsWith("/run/netns/gk-pod"));
} catch (err) {
  result.error = String((err as Error).stack ?? err);
  result.leftoversAtError = leftovers();
}
client.close();
await server.stop();
rmSync(dir, { recursive: true, force: true });
process.stdout.write(`${JSON.stringify(result)}\n`);
process.exit(0);
