// Real kubectl (1.33 and 1.27) on the details users notice: `kubectl scale` of a custom resource,
// no metadata.generation on kinds Kubernetes gives none, a create carrying resourceVersion refused,
// remainingItemCount on paged lists, deprecated CRD versions warned about on every request,
// `kubectl explain --output=plaintext-openapiv2` (the gnostic protobuf /openapi/v2), and on a
// garden: `kubectl delete shoot` only when confirmed, `kubectl get seeds` with Gardener's columns.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { startApiServerProcess, type ApiServerProcess } from "../../support/apiserver.ts";
import { kubectlFor, type Kubectl, type KubectlVersion } from "../../support/kubectl.ts";
import { parseTable, rowWhere } from "../../support/table.ts";
import { namespaceYaml } from "./manifests.ts";

const ns = "fid";
const versions: KubectlVersion[] = ["1.33", "1.27"];

const gizmoCrd = JSON.stringify({
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  metadata: { name: "gizmos.example.com" },
  spec: {
    group: "example.com",
    scope: "Namespaced",
    names: { plural: "gizmos", singular: "gizmo", kind: "Gizmo", listKind: "GizmoList" },
    versions: ["v1", "v1beta1", "v1alpha1"].map((name) => ({
      name,
      served: true,
      storage: name === "v1",
      ...(name === "v1beta1" ? { deprecated: true, deprecationWarning: "gizmo v1beta1 is going away, use v1" } : {}),
      ...(name === "v1alpha1" ? { deprecated: true } : {}),
      subresources: { status: {}, scale: { specReplicasPath: ".spec.replicas", statusReplicasPath: ".status.replicas", labelSelectorPath: ".status.selector" } },
      schema: {
        openAPIV3Schema: {
          type: "object",
          description: "A Gizmo scales.",
          properties: {
            spec: { type: "object", description: "What the gizmo should be.", properties: { replicas: { type: "integer", description: "How many gizmos." } } },
            status: { type: "object", properties: { replicas: { type: "integer" }, selector: { type: "string" } } },
          },
        },
      },
    })),
  },
});

interface Obj {
  metadata: { name: string; generation?: number; resourceVersion?: string };
  spec?: { replicas?: number };
}

void describe("kubectl fidelity", { timeout: 300_000 }, () => {
  let server: ApiServerProcess;
  let k: Kubectl;

  before(async () => {
    server = await startApiServerProcess({ storage: "sqlite" });
    k = kubectlFor(server.kubeconfig);
    await k.ok(["create", "-f", "-"], { input: namespaceYaml(ns) });
    await k.ok(["create", "-f", "-"], { input: gizmoCrd });
    await k.ok(["wait", "--for", "condition=established", "--timeout=30s", "crd/gizmos.example.com"]);
  });
  after(async () => {
    await server?.dispose();
  });

  for (const version of versions) {
    const v = version.replace(".", "");

    void it(`${version}: kubectl scale a custom resource through its scale subresource`, async () => {
      const name = `g-${v}`;
      const manifest = { apiVersion: "example.com/v1", kind: "Gizmo", metadata: { name, namespace: ns }, spec: { replicas: 1 } };
      await k.ok(["create", "-f", "-"], { version, input: JSON.stringify(manifest) });
      await k.ok(["patch", "gizmo", name, "-n", ns, "--subresource=status", "--type=merge", "-p", '{"status":{"replicas":1,"selector":"app=gizmo"}}'], { version });
      assert.equal((await k.ok(["scale", "gizmo", name, "-n", ns, "--replicas=3"], { version })).trim(), `gizmo.example.com/${name} scaled`);
      const g = await k.json<Obj>(["get", "gizmo", name, "-n", ns], { version });
      assert.equal(g.spec?.replicas, 3);
      assert.equal(g.metadata.generation, 2, "the scale is a spec change");
      const scale = JSON.parse(await k.ok(["get", "--raw", `/apis/example.com/v1/namespaces/${ns}/gizmos/${name}/scale`], { version })) as Record<string, unknown>;
      assert.deepEqual({ apiVersion: scale.apiVersion, kind: scale.kind, spec: scale.spec, status: scale.status }, {
        apiVersion: "autoscaling/v1",
        kind: "Scale",
        spec: { replicas: 3 },
        status: { replicas: 1, selector: "app=gizmo" },
      });
      // --current-replicas is a precondition kubectl checks against the Scale it reads.
      const pre = await k.run(["scale", "gizmo", name, "-n", ns, "--current-replicas=2", "--replicas=5"], { version });
      assert.notEqual(pre.code, 0);
      assert.match(pre.stderr, /Expected replicas to be 2, was 3/);
      assert.equal((await k.ok(["scale", "gizmo", name, "-n", ns, "--current-replicas=3", "--replicas=0"], { version })).trim(), `gizmo.example.com/${name} scaled`);
      const bad = await k.run(["patch", "gizmo", name, "-n", ns, "--subresource=scale", "--type=merge", "-p", '{"spec":{"replicas":-1}}'], { version });
      assert.notEqual(bad.code, 0);
      assert.match(bad.stderr, /spec.replicas: Invalid value: -1: must be greater than or equal to 0/);
      assert.equal((await k.json<Obj>(["get", "gizmo", name, "-n", ns], { version })).spec?.replicas, 0);
    });

    void it(`${version}: ConfigMaps, Secrets and Namespaces carry no generation; custom resources do`, async () => {
      await k.ok(["create", "configmap", `cm-${v}`, "-n", ns, "--from-literal=a=1"], { version });
      await k.ok(["create", "secret", "generic", `s-${v}`, "-n", ns, "--from-literal=a=1"], { version });
      await k.ok(["create", "namespace", `ns-${v}`], { version });
      await k.ok(["patch", "configmap", `cm-${v}`, "-n", ns, "--type=merge", "-p", '{"data":{"a":"2"}}'], { version });
      await k.ok(["patch", "secret", `s-${v}`, "-n", ns, "--type=merge", "-p", '{"stringData":{"a":"2"}}'], { version });
      for (const [kind, name, namespaced] of [["configmap", `cm-${v}`, true], ["secret", `s-${v}`, true], ["namespace", `ns-${v}`, false]] as const) {
        const o = await k.json<Obj>(["get", kind, name, ...(namespaced ? ["-n", ns] : [])], { version });
        assert.equal(o.metadata.generation, undefined, `${kind} has no generation`);
      }
    });

    void it(`${version}: a create carrying metadata.resourceVersion is refused`, async () => {
      const manifest = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: `rv-${v}`, namespace: ns, resourceVersion: "12" }, data: { a: "1" } };
      // kubectl create -f clears resourceVersion itself; --raw sends the manifest as it is.
      const r = await k.run(["create", "--raw", `/api/v1/namespaces/${ns}/configmaps`, "-f", "-"], { version, input: JSON.stringify(manifest) });
      assert.notEqual(r.code, 0);
      assert.match(r.stderr, /resourceVersion should not be set on objects to be created/);
      assert.equal((await k.run(["get", "configmap", `rv-${v}`, "-n", ns], { version })).code, 1);
    });

    void it(`${version}: every request to a deprecated CRD version gets the Warning (deprecationWarning or the default text)`, async () => {
      const custom = await k.run(["get", "gizmos.v1beta1.example.com", "-n", ns], { version });
      assert.equal(custom.code, 0, custom.stderr);
      assert.match(custom.stderr, /^Warning: gizmo v1beta1 is going away, use v1$/m);
      const dflt = await k.run(["get", "gizmos.v1alpha1.example.com", "-n", ns, "-o", "name"], { version });
      assert.match(dflt.stderr, /^Warning: example.com\/v1alpha1 Gizmo is deprecated$/m);
      const missing = await k.run(["get", "gizmos.v1beta1.example.com", "nothere", "-n", ns], { version });
      assert.match(missing.stderr, /^Warning: gizmo v1beta1 is going away, use v1$/m, "errors carry it too");
      const current = await k.run(["get", "gizmos.v1.example.com", "-n", ns], { version });
      assert.doesNotMatch(current.stderr, /Warning/);
    });

    void it(`${version}: kubectl explain --output=plaintext-openapiv2 reads the protobuf /openapi/v2`, async () => {
      const cm = await k.ok(["explain", "configmap", "--output=plaintext-openapiv2"], { version });
      assert.match(cm, /KIND:\s+ConfigMap/);
      assert.match(cm, /VERSION:\s+v1/);
      assert.match(cm, /^\s+data\s+<map\[string\]string>/m);
      const gizmo = await k.ok(["explain", "gizmo.spec", "--output=plaintext-openapiv2"], { version });
      assert.match(gizmo, /KIND:\s+Gizmo/);
      assert.match(gizmo, /What the gizmo should be\./);
      assert.match(gizmo, /^\s+replicas\s+<integer>/m);
    });
  }

  void it("paged lists carry remainingItemCount (and not when a selector filters)", async () => {
    for (const n of ["p1", "p2", "p3", "p4"]) await k.ok(["create", "configmap", n, "-n", "default", "--from-literal=a=1"]);
    const total = (await k.json<{ items: unknown[] }>(["get", "configmaps", "-n", "default"])).items.length;
    const page = JSON.parse(await k.ok(["get", "--raw", "/api/v1/namespaces/default/configmaps?limit=1"])) as { metadata: { continue?: string; remainingItemCount?: number } };
    assert.ok(page.metadata.continue);
    assert.equal(page.metadata.remainingItemCount, total - 1);
    const filtered = JSON.parse(await k.ok(["get", "--raw", "/api/v1/namespaces/default/configmaps?limit=1&labelSelector=x!=y"])) as { metadata: { remainingItemCount?: number } };
    assert.equal(filtered.metadata.remainingItemCount, undefined);
  });
});

void describe("kubectl fidelity on a garden", { timeout: 240_000 }, () => {
  let server: ApiServerProcess;
  let k: Kubectl;
  const project = "garden-dev";

  before(async () => {
    server = await startApiServerProcess({ storage: "sqlite", extraArgs: ["--enable-gardener-apis"] });
    k = kubectlFor(server.kubeconfig);
    await k.ok(["create", "-f", "-"], { input: namespaceYaml(project) });
  });
  after(async () => {
    await server?.dispose();
  });

  for (const version of versions) {
    const shoot = `s-${version.replace(".", "")}`;

    void it(`${version}: kubectl delete shoot is refused until confirmation.gardener.cloud/deletion=true`, async () => {
      const manifest = { apiVersion: "core.gardener.cloud/v1beta1", kind: "Shoot", metadata: { name: shoot, namespace: project }, spec: { seedName: "a", provider: { type: "local", workers: [{ name: "w", minimum: 1, maximum: 1 }] } } };
      await k.ok(["create", "-f", "-"], { version, input: JSON.stringify(manifest) });
      const refused = await k.run(["delete", "shoot", shoot, "-n", project], { version });
      assert.notEqual(refused.code, 0);
      assert.equal(refused.stderr.trim(), `Error from server (Forbidden): shoots.core.gardener.cloud "${shoot}" is forbidden: must have a "confirmation.gardener.cloud/deletion" annotation to delete`);
      await k.ok(["annotate", "shoot", shoot, "-n", project, "confirmation.gardener.cloud/deletion=true"], { version });
      assert.equal((await k.ok(["delete", "shoot", shoot, "-n", project], { version })).trim(), `shoot.core.gardener.cloud "${shoot}" deleted`);
    });
  }

  void it("kubectl get seeds: Gardener's columns, STATUS from GardenletReady, ExtensionsReady and friends", async () => {
    const seed = { apiVersion: "core.gardener.cloud/v1beta1", kind: "Seed", metadata: { name: "s1" }, spec: { provider: { type: "local", region: "local" } } };
    await k.ok(["create", "-f", "-"], { input: JSON.stringify(seed) });
    const status = async (): Promise<Record<string, string>> => rowWhere(parseTable(await k.ok(["get", "seeds"])), "NAME", "s1");
    const t = parseTable(await k.ok(["get", "seeds"]));
    assert.deepEqual(t.header, ["NAME", "STATUS", "LAST OPERATION", "PROVIDER", "REGION", "AGE", "VERSION", "K8S VERSION"]);
    assert.equal((await status()).STATUS, "NotReady", "no gardenlet has reported");
    const setConditions = (conditions: Record<string, string>) => {
      const list = Object.entries(conditions).map(([type, s]) => ({ type, status: s, reason: "Test", message: "test", lastTransitionTime: "2026-01-01T00:00:00Z", lastUpdateTime: "2026-01-01T00:00:00Z" }));
      return k.ok(["patch", "seed", "s1", "--subresource=status", "--type=merge", "-p", JSON.stringify({ status: { conditions: list } })]);
    };
    await setConditions({ GardenletReady: "True" });
    assert.equal((await status()).STATUS, "NotReady", "ExtensionsReady is required");
    await setConditions({ GardenletReady: "True", ExtensionsReady: "True", SeedSystemComponentsHealthy: "True" });
    const ready = await status();
    assert.deepEqual([ready.STATUS, ready.PROVIDER, ready.REGION, ready["LAST OPERATION"], ready.VERSION], ["Ready", "local", "local", "<pending>", "<unknown>"]);
    await setConditions({ GardenletReady: "Unknown", ExtensionsReady: "True" });
    assert.equal((await status()).STATUS, "Unknown");
    await setConditions({ GardenletReady: "True", ExtensionsReady: "True", SeedSystemComponentsHealthy: "False" });
    assert.equal((await status()).STATUS, "NotReady");
  });
});
