import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Pod } from "../../apis/core/v1/pod.ts";
import { podDefinition } from "../registry/core/pod/definition.ts";
import { serviceAccountDefinition } from "../registry/core/serviceaccount/definition.ts";
import { rejects } from "../registry/generic/testing/assert.ts";
import { newTestServer } from "../registry/generic/testing/server.ts";
import { NamespaceLifecycle } from "./namespace-lifecycle.ts";
import { PodDefaultsAdmission } from "./pod-defaults.ts";
import { DEFAULT_API_TOKEN_MOUNT_PATH, ServiceAccountAdmission, tokenVolume } from "./serviceaccount.ts";

const PODS = { group: "", resource: "pods" };
const SAS = { group: "", resource: "serviceaccounts" };
const NS = { group: "", resource: "namespaces" };

async function setup() {
  const s = newTestServer([podDefinition, serviceAccountDefinition], [new NamespaceLifecycle(), new ServiceAccountAdmission(() => "kube-api-access-abcde"), new PodDefaultsAdmission()]);
  await s.client.create(NS, { metadata: { name: "dev" } });
  await s.client.create(SAS, { metadata: { name: "default", namespace: "dev" } });
  return s;
}

const pod = (name: string, spec: Record<string, unknown>) => ({ apiVersion: "v1", kind: "Pod", metadata: { name, namespace: "dev" }, spec });

describe("ServiceAccount admission", () => {
  it("runs pods as default with the kube-api-access token volume in every container, tolerations and priority", async () => {
    const s = await setup();
    const created = (await s.client.create(PODS, pod("p", { initContainers: [{ name: "i", image: "x" }], containers: [{ name: "c", image: "x" }] }))) as Pod;
    const spec = created.spec!;
    assert.equal(spec.serviceAccountName, "default");
    assert.deepEqual(spec.volumes, [tokenVolume("kube-api-access-abcde")]);
    for (const c of [...spec.initContainers!, ...spec.containers]) {
      assert.deepEqual(c.volumeMounts, [{ name: "kube-api-access-abcde", readOnly: true, mountPath: DEFAULT_API_TOKEN_MOUNT_PATH }]);
    }
    assert.deepEqual(spec.tolerations!.map((t) => [t.key, t.effect, t.tolerationSeconds]), [
      ["node.kubernetes.io/not-ready", "NoExecute", 300],
      ["node.kubernetes.io/unreachable", "NoExecute", 300],
    ]);
    assert.equal(spec.priority, 0);
  });

  it("refuses a missing service account with 403 and respects automountServiceAccountToken", async () => {
    const s = await setup();
    await rejects(
      s.client.create(PODS, pod("q", { serviceAccountName: "ghost", containers: [{ name: "c", image: "x" }] })),
      403,
      "Forbidden",
      'pods "q" is forbidden: error looking up service account dev/ghost: serviceaccount "ghost" not found',
    );
    const off = (await s.client.create(PODS, pod("r", { automountServiceAccountToken: false, containers: [{ name: "c", image: "x" }] }))) as Pod;
    assert.equal(off.spec!.volumes, undefined);
    await s.client.create(SAS, { metadata: { name: "quiet", namespace: "dev" }, automountServiceAccountToken: false, imagePullSecrets: [{ name: "reg" }] });
    const quiet = (await s.client.create(PODS, pod("t", { serviceAccountName: "quiet", containers: [{ name: "c", image: "x" }] }))) as Pod;
    assert.equal(quiet.spec!.volumes, undefined);
    assert.deepEqual(quiet.spec!.imagePullSecrets, [{ name: "reg" }]);
    const own = (await s.client.create(PODS, pod("u", { containers: [{ name: "c", image: "x", volumeMounts: [{ name: "mine", mountPath: DEFAULT_API_TOKEN_MOUNT_PATH }] }], volumes: [{ name: "mine", emptyDir: {} }] }))) as Pod;
    assert.deepEqual(own.spec!.volumes!.map((v) => v.name), ["mine"], "a container that mounts its own token directory gets no second volume");
  });
});
