// `kubectl apply --prune -l <selector>` without --prune-allowlist (kubectl 1.33 and 1.27): kubectl
// then lists every kind of its default allowlist (ConfigMaps, Endpoints, Namespaces, PVCs, PVs,
// Pods, ReplicationControllers, Secrets, Services, Jobs, CronJobs, Ingresses, DaemonSets,
// Deployments, ReplicaSets, StatefulSets), so each must be served; objects with the label that the
// manifest no longer names are deleted, the others kept. The kinds this server runs no controller
// for are listable (always empty) but refuse creation with 405 (docs/kubernetes-api.md).
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { startApiServerProcess, type ApiServerProcess } from "../../support/apiserver.ts";
import { kubectlFor, type Kubectl, type KubectlVersion } from "../../support/kubectl.ts";
import { configMapYaml, namespaceYaml } from "./manifests.ts";

const versions: KubectlVersion[] = ["1.33", "1.27"];

function serviceYaml(ns: string, name: string, labels: Record<string, string>): string {
  const l = Object.entries(labels).map(([k, v]) => `\n    ${k}: "${v}"`).join("");
  return `apiVersion: v1
kind: Service
metadata:
  name: ${name}
  namespace: ${ns}
  labels:${l}
spec:
  ports:
  - port: 80
    targetPort: 8080
`;
}

const names = (out: string) => out.split("\n").filter(Boolean).sort();

void describe("kubectl apply --prune", { timeout: 180_000 }, () => {
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
    const ns = `prune-${version.replace(".", "")}`;
    const app = { app: "pruned" };

    void it(`${version}: without --prune-allowlist prunes what the manifest dropped and keeps the rest`, async () => {
      await k.ok(["create", "-f", "-"], { version, input: namespaceYaml(ns) });
      // Not labelled: the selector keeps it out of pruning.
      await k.ok(["create", "-f", "-"], { version, input: configMapYaml(ns, "bystander", { x: "1" }) });
      const full = [configMapYaml(ns, "keep", { a: "1" }, app), configMapYaml(ns, "drop", { b: "2" }, app), serviceYaml(ns, "web", app)].join("---\n");
      const first = await k.ok(["apply", "--prune", "-l", "app=pruned", "-n", ns, "-f", "-"], { version, input: full });
      assert.match(first, /configmap\/keep created/);
      assert.match(first, /service\/web created/);

      const smaller = configMapYaml(ns, "keep", { a: "2" }, app);
      const res = await k.run(["apply", "--prune", "-l", "app=pruned", "-n", ns, "-f", "-"], { version, input: smaller });
      assert.equal(res.code, 0, res.stderr);
      assert.match(res.stdout, /configmap\/keep configured/);
      assert.match(res.stdout, /configmap\/drop pruned/);
      assert.match(res.stdout, /service\/web pruned/);
      assert.doesNotMatch(res.stderr, /doesn't have a resource type|the server could not find/i);

      assert.deepEqual(names(await k.ok(["get", "configmaps", "-n", ns, "-o", "name"], { version })), [
        "configmap/bystander",
        "configmap/keep",
        "configmap/kube-root-ca.crt",
      ]);
      assert.equal((await k.ok(["get", "services", "-n", ns, "-o", "name"], { version })).trim(), "");
    });

    void it(`${version}: a kind without a controller (apps/v1 Deployment) lists empty and refuses creation with 405`, async () => {
      const deployment = { apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "web", namespace: ns, labels: app }, spec: { replicas: 1 } };
      const res = await k.run(["apply", "--prune", "-l", "app=pruned", "-n", ns, "-f", "-"], { version, input: JSON.stringify(deployment) });
      assert.notEqual(res.code, 0);
      assert.match(res.stderr, /MethodNotAllowed|create is not supported on resources of kind "deployments\.apps"/);
      const list = await k.run(["get", "deployments,jobs,ingresses,pvc", "-n", ns], { version });
      assert.equal(list.code, 0, list.stderr);
      assert.match(list.stderr, /No resources found/);
      // The other prunable objects were not touched by the failed apply.
      assert.match(await k.ok(["get", "configmap", "keep", "-n", ns, "-o", "name"], { version }), /configmap\/keep/);
    });
  }
});
