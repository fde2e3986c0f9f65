// The world of the exec/attach/logs e2e test: an in-process API server, a real PodRuntime on this host
// (pods with hostNetwork, so no pod network is made), the kubelet server on 127.0.0.1 serving the pods
// this file syncs (a stand-in for the kubelet loop), a Node whose InternalIP is 127.0.0.1, and a user
// "viewer" who may read pods and their logs but not exec.
import { mkdir, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import type { Pod as ApiPod } from "../../../src/apis/core/v1/pod.ts";
import type { KubeObject } from "../../../src/apis/meta/v1/types.ts";
import { issueClientCertificate } from "../../../src/apiserver/certs/issue.ts";
import { writeKubeletServingCertificate } from "../../../src/apiserver/certs/kubelet.ts";
import { writeKubeconfig } from "../../../src/apiserver/certs/kubeconfig.ts";
import { parseOptions } from "../../../src/apiserver/server/options.ts";
import { startApiServer, type RunningServer } from "../../../src/apiserver/server/server.ts";
import { gardenAdmissionPlugins } from "../../../src/plugins/garden.ts";
import { PodRuntime } from "../../../src/nodeagent/kubelet/runtime/runtime.ts";
import type { Pod, PodRuntimeStatus } from "../../../src/nodeagent/kubelet/runtime/types.ts";
import { startKubeletServer, type KubeletServer } from "../../../src/nodeagent/kubelet/server/server.ts";
import { cleanUpAndAssertNoLeaks, newTestHost, type TestHost } from "../host/support.ts";

const PODS = { group: "", resource: "pods" };
export const NS = "e2e";

export interface Fixture {
  dir: string;
  server: RunningServer;
  kubelet: KubeletServer;
  runtime: PodRuntime;
  admin: string;
  viewer: string;
  kubeletTls: { ca: string; cert: string; key: string };
  adminCert: { cert: string; key: string };
  /** Creates the pod through the API (bound to node n1 unless unscheduled), runs it, reports its status. */
  run(name: string, spec: Record<string, unknown>, opts?: { unscheduled?: boolean }): Promise<PodRuntimeStatus | undefined>;
  /** Writes the runtime's status to the API pod. */
  report(name: string): Promise<PodRuntimeStatus>;
  until(name: string, ok: (s: PodRuntimeStatus) => boolean, timeoutMs?: number): Promise<PodRuntimeStatus>;
  stop(): Promise<void>;
}

async function waitFor<T>(f: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await f();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** `gardenApis`: the API server also serves the Gardener kinds (the garden), as the dashboard's pages need. */
export async function startFixture(o: { gardenApis?: boolean } = {}): Promise<Fixture> {
  const dir = await mkdtemp(join(tmpdir(), "kexec-e2e-"));
  const parsed = parseOptions(["--data-dir", dir, "--secure-port", "0", "--etcd-compaction-interval", "0", ...(o.gardenApis ? ["--enable-gardener-apis"] : [])]);
  if (parsed.kind !== "options") throw new Error(parsed.stderr);
  const server = await startApiServer(parsed.options, { logger: pino({ level: "silent" }), ...(o.gardenApis ? { gardenAdmission: gardenAdmissionPlugins() } : {}) });
  const pkiDir = join(dir, "pki");
  const files = await writeKubeletServingCertificate(pkiDir, join(dir, "kubelet"), { nodeName: "n1", hosts: ["127.0.0.1"] });
  const t: TestHost = await newTestHost();
  const runtime = new PodRuntime({ host: t.host, podCIDR: "10.231.7.0/24", pollMs: 100, backoff: { initialMs: 300, maxMs: 600, resetAfterMs: 60_000 } });
  const pods = new Map<string, Pod>();
  const kubelet = await startKubeletServer({
    kubelet: { podByName: (ns, name) => pods.get(`${ns}/${name}`), runtime },
    certPem: await readFile(files.certFile, "utf8"),
    keyPem: await readFile(files.keyFile, "utf8"),
    clientCAPem: await readFile(files.clientCAFile, "utf8"),
    address: "127.0.0.1",
    port: 0,
  });
  const c = server.client;
  const ca = { certPem: await readFile(join(pkiDir, "ca.crt"), "utf8"), keyPem: await readFile(join(pkiDir, "ca.key"), "utf8") };

  await c.create({ group: "", resource: "namespaces" }, { apiVersion: "v1", kind: "Namespace", metadata: { name: NS } });
  await waitFor(() => c.get({ group: "", resource: "serviceaccounts" }, NS, "default"));
  const node = await c.create({ group: "", resource: "nodes" }, { apiVersion: "v1", kind: "Node", metadata: { name: "n1" } });
  await c.update({ group: "", resource: "nodes" }, { ...node, status: { addresses: [{ type: "InternalIP", address: "127.0.0.1" }, { type: "Hostname", address: "n1" }], daemonEndpoints: { kubeletEndpoint: { Port: kubelet.port } } } } as KubeObject, "status");
  const rules = [{ apiGroups: [""], resources: ["pods", "pods/log"], verbs: ["get", "list", "watch"] }];
  await c.create({ group: "rbac.authorization.k8s.io", resource: "roles" }, { apiVersion: "rbac.authorization.k8s.io/v1", kind: "Role", metadata: { name: "viewer", namespace: NS }, rules } as KubeObject);
  await c.create({ group: "rbac.authorization.k8s.io", resource: "rolebindings" }, {
    apiVersion: "rbac.authorization.k8s.io/v1", kind: "RoleBinding", metadata: { name: "viewer", namespace: NS },
    roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: "viewer" }, subjects: [{ kind: "User", name: "viewer", apiGroup: "rbac.authorization.k8s.io" }],
  } as KubeObject);
  const viewerCert = await issueClientCertificate(ca, { commonName: "viewer" });
  await mkdir(join(dir, "viewer"));
  await mkdir(join(dir, "admin"));
  const viewer = join(dir, "viewer", "kubeconfig");
  await writeKubeconfig(viewer, { server: server.url, caPem: server.caPem, clusterName: "e2e", userName: "viewer", user: viewerCert });
  const admin = join(dir, "admin", "kubeconfig");
  await writeKubeconfig(admin, { server: server.url, caPem: server.caPem, clusterName: "e2e", userName: "admin", user: { certPem: await readFile(join(pkiDir, "admin.crt"), "utf8"), keyPem: await readFile(join(pkiDir, "admin.key"), "utf8") } });

  const report = async (name: string) => {
    const rp = pods.get(`${NS}/${name}`)!;
    const s = await runtime.status(rp);
    const stored = (await c.get(PODS, NS, name)) as ApiPod;
    await c.update(PODS, { ...stored, status: { ...stored.status, phase: s.phase, containerStatuses: s.containerStatuses, initContainerStatuses: s.initContainerStatuses } } as KubeObject, "status");
    return s;
  };
  const fixture: Fixture = {
    dir, server, kubelet, runtime, admin, viewer,
    kubeletTls: { ca: ca.certPem, cert: await readFile(join(pkiDir, "apiserver-kubelet-client.crt"), "utf8"), key: await readFile(join(pkiDir, "apiserver-kubelet-client.key"), "utf8") },
    adminCert: { cert: await readFile(join(pkiDir, "admin.crt"), "utf8"), key: await readFile(join(pkiDir, "admin.key"), "utf8") },
    async run(name, spec, opts = {}) {
      const body = { apiVersion: "v1", kind: "Pod", metadata: { name, namespace: NS }, spec: { automountServiceAccountToken: false, hostNetwork: true, ...(opts.unscheduled ? {} : { nodeName: "n1" }), ...spec } };
      const created = (await c.create(PODS, body as KubeObject)) as ApiPod;
      if (opts.unscheduled) return undefined;
      const rp = { metadata: { name, namespace: NS, uid: created.metadata.uid! }, spec: created.spec } as unknown as Pod;
      pods.set(`${NS}/${name}`, rp);
      await runtime.sync(rp);
      return report(name);
    },
    report,
    async until(name, ok, timeoutMs = 20_000) {
      return waitFor(async () => {
        const s = await report(name);
        return ok(s) ? s : undefined;
      }, timeoutMs);
    },
    async stop() {
      await kubelet.close();
      for (const p of pods.values()) await runtime.kill(p, 0).catch(() => undefined);
      for (const p of pods.values()) await runtime.cleanup(p.metadata.uid).catch(() => undefined);
      runtime.close();
      await server.stop();
      await cleanUpAndAssertNoLeaks(t);
      await rm(dir, { recursive: true, force: true });
    },
  };
  return fixture;
}
