// Real kubectl (1.33 and 1.27) against the real server binary: pods that stay Pending (no kubelet
// in this slice), get -o wide, describe, a scheduler's binding, graceful deletion, Services and
// cluster-info, a namespace's default objects, Pod Security
// refusals and warnings, and a pod-bound token that dies with its pod.
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { startApiServerProcess, type ApiServerProcess } from "../../support/apiserver.ts";
import { eventually } from "../../support/http.ts";
import { writeTokenKubeconfig } from "../../support/kubeconfig.ts";
import { kubectl, kubectlFor, type Kubectl, type KubectlVersion } from "../../support/kubectl.ts";
import { parseTable } from "../../support/table.ts";

const versions: KubectlVersion[] = ["1.33", "1.27"];

interface PodJson {
  metadata: { name: string; deletionTimestamp?: string; deletionGracePeriodSeconds?: number; labels?: Record<string, string> };
  spec: { nodeName?: string; serviceAccountName?: string; volumes?: { name: string; projected?: unknown }[]; containers: { volumeMounts?: { mountPath: string }[] }[] };
  status: { phase: string; conditions?: { type: string; status: string }[] };
}

void describe("kubectl: workloads", { timeout: 300_000 }, () => {
  let server: ApiServerProcess;
  let k: Kubectl;

  before(async () => {
    server = await startApiServerProcess({ storage: "sqlite" });
    k = kubectlFor(server.kubeconfig);
  });
  after(async () => {
    await server?.dispose();
  });

  for (const version of versions) {
    const ns = `wl-${version.replace(".", "-")}`;
    const v = { version };

    void it(`${version}: a new namespace gets its label, default ServiceAccount and kube-root-ca.crt`, async () => {
      await k.ok(["create", "namespace", ns], v);
      const labels = (await k.json<{ metadata: { labels: Record<string, string> } }>(["get", "ns", ns], v)).metadata.labels;
      assert.equal(labels["kubernetes.io/metadata.name"], ns);
      await eventually("default objects", async () => {
        const sa = await k.run(["get", "sa", "default", "-n", ns], v);
        const cm = await k.run(["get", "cm", "kube-root-ca.crt", "-n", ns], v);
        return sa.code === 0 && cm.code === 0 ? true : undefined;
      });
      const cm = await k.json<{ data: Record<string, string> }>(["get", "cm", "kube-root-ca.crt", "-n", ns], v);
      assert.equal(cm.data["ca.crt"], server.caPem);
    });

    void it(`${version}: kubectl run creates a Pending pod with the service-account volume; get -o wide and describe show it`, async () => {
      assert.match(await k.ok(["run", "web", "--image=nginx", "-l", "app=web", "-n", ns], v), /pod\/web created/);
      const pod = await k.json<PodJson>(["get", "pod", "web", "-n", ns], v);
      assert.equal(pod.status.phase, "Pending");
      assert.equal(pod.spec.serviceAccountName, "default");
      assert.match(pod.spec.volumes?.[0]?.name ?? "", /^kube-api-access-[a-z0-9]{5}$/);
      assert.equal(pod.spec.containers[0]!.volumeMounts?.[0]?.mountPath, "/var/run/secrets/kubernetes.io/serviceaccount");
      const table = parseTable(await k.ok(["get", "pods", "-o", "wide", "-n", ns], v));
      assert.deepEqual(table.header, ["NAME", "READY", "STATUS", "RESTARTS", "AGE", "IP", "NODE", "NOMINATED NODE", "READINESS GATES"]);
      assert.deepEqual(
        ["NAME", "READY", "STATUS", "RESTARTS", "IP", "NODE"].map((c) => table.records[0]![c]),
        ["web", "0/1", "Pending", "0", "<none>", "<none>"],
      );
      const described = await k.ok(["describe", "pod", "web", "-n", ns], v);
      assert.match(described, /Service Account:\s+default/);
      assert.match(described, /Status:\s+Pending/);
      assert.match(described, /kube-api-access-\w+:\s+Type:\s+Projected/);
      assert.match(described, /node\.kubernetes\.io\/not-ready:NoExecute op=Exists for 300s/);
    });

    void it(`${version}: a scheduler's binding sets the node once; deleting a bound pod only marks it until grace 0`, async () => {
      const binding = JSON.stringify({ apiVersion: "v1", kind: "Binding", metadata: { name: "web" }, target: { kind: "Node", name: "worker-1" } });
      const path = `/api/v1/namespaces/${ns}/pods/web/binding`;
      await k.ok(["create", "--raw", path, "-f", "-"], { ...v, input: binding });
      const again = await k.run(["create", "--raw", path, "-f", "-"], { ...v, input: binding });
      assert.notEqual(again.code, 0);
      assert.match(again.stderr, /pod web is already assigned to node "worker-1"/);
      const bound = await k.json<PodJson>(["get", "pod", "web", "-n", ns], v);
      assert.equal(bound.spec.nodeName, "worker-1");
      assert.deepEqual(bound.status.conditions?.map((c) => [c.type, c.status]), [["PodScheduled", "True"]]);

      await k.ok(["delete", "pod", "web", "-n", ns, "--wait=false"], v);
      const marked = await k.json<PodJson>(["get", "pod", "web", "-n", ns], v);
      assert.ok(marked.metadata.deletionTimestamp);
      assert.equal(marked.metadata.deletionGracePeriodSeconds, 30);
      assert.match(await k.ok(["get", "pod", "web", "-n", ns], v), /Terminating/);
      // What the kubelet does once the containers are gone.
      await k.ok(["delete", "pod", "web", "-n", ns, "--grace-period=0", "--force"], v);
      assert.match((await k.run(["get", "pod", "web", "-n", ns], v)).stderr, /NotFound/);
    });

    void it(`${version}: create service clusterip, endpoints from ready pods, and cluster-info`, async () => {
      await k.ok(["create", "service", "clusterip", "web", "--tcp=80:8080", "-n", ns], v);
      const table = parseTable(await k.ok(["get", "svc", "web", "-o", "wide", "-n", ns], v));
      assert.deepEqual(table.header, ["NAME", "TYPE", "CLUSTER-IP", "EXTERNAL-IP", "PORT(S)", "AGE", "SELECTOR"]);
      assert.match(table.records[0]!["CLUSTER-IP"]!, /^10\.(9[6-9]|10\d|11[01])\.\d+\.\d+$/);
      assert.equal(table.records[0]!["PORT(S)"], "80/TCP");
      await k.ok(["run", "backend", "--image=nginx", "-l", "app=web", "-n", ns], v);
      const status = { status: { podIP: "10.1.0.7", podIPs: [{ ip: "10.1.0.7" }], conditions: [{ type: "Ready", status: "True" }] } };
      const patched = await kubectl(version, ["patch", "pod", "backend", "-n", ns, "--subresource=status", "--type=merge", "-p", JSON.stringify(status)], { kubeconfig: server.kubeconfig });
      if (version !== "1.27") assert.equal(patched.code, 0, patched.stderr);
      else await patchStatus(ns, "backend", status);
      await eventually("endpoints", async () => ((await k.ok(["get", "endpoints", "web", "-n", ns], v)).includes("10.1.0.7:8080") ? true : undefined));
      assert.match(await k.ok(["get", "endpointslices", "-l", "kubernetes.io/service-name=web", "-n", ns], v), /IPv4\s+8080\s+10\.1\.0\.7/);
      const info = await k.ok(["cluster-info"], v);
      assert.match(info, new RegExp(`Kubernetes control plane.* is running at .*${server.url.replace(/[.]/g, "\\.")}`));
      assert.match(await k.ok(["get", "endpoints", "kubernetes", "-n", "default"], v), new RegExp(`127\\.0\\.0\\.1:${server.port}`));
    });

    void it(`${version}: Pod Security refuses with upstream's message and warns`, async () => {
      const secure = `${ns}-psa`;
      await k.ok(["create", "namespace", secure], v);
      await k.ok(["label", "namespace", secure, "pod-security.kubernetes.io/enforce=baseline", "pod-security.kubernetes.io/warn=restricted"], v);
      await eventually("default sa", async () => ((await k.run(["get", "sa", "default", "-n", secure], v)).code === 0 ? true : undefined));
      const privileged = `apiVersion: v1\nkind: Pod\nmetadata: {name: root, namespace: ${secure}}\nspec:\n  containers:\n  - name: c\n    image: busybox\n    securityContext: {privileged: true}\n`;
      const refused = await k.run(["apply", "-f", "-"], { ...v, input: privileged });
      assert.notEqual(refused.code, 0);
      assert.match(refused.stderr, /pods "root" is forbidden: violates PodSecurity "baseline:latest": privileged \(container "c" must not set securityContext\.privileged=true\)/);
      const warned = await k.run(["run", "plain", "--image=busybox", "-n", secure], v);
      assert.equal(warned.code, 0, warned.stderr);
      assert.match(warned.stderr, /Warning: would violate PodSecurity "restricted:latest": allowPrivilegeEscalation != false/);
    });

    void it(`${version}: a pod-bound token is refused once its pod is deleted`, async () => {
      await k.ok(["run", "holder", "--image=busybox", "-n", ns], v);
      const token = (await k.ok(["create", "token", "default", "-n", ns, "--bound-object-kind", "Pod", "--bound-object-name", "holder"], v)).trim();
      const tokenConfig = writeTokenKubeconfig(server.kubeconfig, join(server.dataDir, `bound-${version}.kubeconfig`), "bound", token, ns);
      const who = await kubectl(version, ["auth", "can-i", "get", "pods"], { kubeconfig: tokenConfig });
      assert.match(who.stdout + who.stderr, /^(no|yes)/m, "the token authenticates while its pod exists");
      await k.ok(["delete", "pod", "holder", "-n", ns], v);
      const after = await kubectl(version, ["auth", "can-i", "get", "pods"], { kubeconfig: tokenConfig });
      assert.match(after.stderr, /Unauthorized|provide credentials/);
    });
  }

  async function patchStatus(ns: string, name: string, status: object): Promise<void> {
    const r = await kubectl("1.33", ["patch", "pod", name, "-n", ns, "--subresource=status", "--type=merge", "-p", JSON.stringify(status)], { kubeconfig: server.kubeconfig });
    assert.equal(r.code, 0, r.stderr);
  }
});
