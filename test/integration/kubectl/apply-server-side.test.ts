// Server-side apply against the real server binary: kubectl 1.33 and 1.27 `apply --server-side`
// (create, no-op, conflict with another manager, --force-conflicts, removal of fields no longer
// applied), `diff --server-side`, managedFields as `get --show-managed-fields` shows them, the move
// from client-side apply, a CRD whose list is a map by keys, and client-node's ServerSideApply patch.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { ApiException, KubernetesObjectApi, PatchStrategy, type KubernetesObject } from "@kubernetes/client-node";
import { parse } from "yaml";
import type { KubeObject, ManagedFieldsEntry } from "../../../src/apis/meta/v1/types.ts";
import { startApiServerProcess, type ApiServerProcess } from "../../support/apiserver.ts";
import { rawClient } from "../../support/http.ts";
import { kubectlFor, type Kubectl, type KubectlVersion } from "../../support/kubectl.ts";
import { kubeConfigFrom } from "../client-node/helpers.ts";
import { configMapYaml, namespaceYaml } from "./manifests.ts";

const ns = "ssa";

const gizmoCrd = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: gizmos.example.com
spec:
  group: example.com
  scope: Namespaced
  names: {plural: gizmos, singular: gizmo, kind: Gizmo, listKind: GizmoList}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              ports:
                type: array
                x-kubernetes-list-type: map
                x-kubernetes-list-map-keys: [port, protocol]
                items:
                  type: object
                  required: [port]
                  properties:
                    port: {type: integer}
                    protocol: {type: string, default: TCP}
                    name: {type: string}
              tags:
                type: array
                x-kubernetes-list-type: set
                items: {type: string}
`;

function gizmo(name: string, spec: string): string {
  return `apiVersion: example.com/v1\nkind: Gizmo\nmetadata:\n  name: ${name}\n  namespace: ${ns}\nspec:\n${spec}`;
}

type Entry = Omit<ManagedFieldsEntry, "time"> & { time?: string };

/**
 * managedFields without times, in the server's order. A time, where there is one (an entry gets
 * one when it changed the object), is RFC 3339 with seconds (client-node gives a Date).
 */
function withoutTimes(obj: KubeObject): Entry[] {
  return (obj.metadata.managedFields ?? []).map(({ time, ...e }) => {
    const t: unknown = time;
    if (t instanceof Date) assert.equal(t.getUTCMilliseconds(), 0);
    else if (t !== undefined) assert.match(String(t), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    return e;
  });
}

void describe("server-side apply with real kubectl and client-node", { timeout: 300_000 }, () => {
  let server: ApiServerProcess;
  let k: Kubectl;
  const getCm = (name: string): Promise<KubeObject> => k.json<KubeObject>(["get", "configmap", name, "-n", ns, "--show-managed-fields"]);

  before(async () => {
    server = await startApiServerProcess({ storage: "sqlite" });
    k = kubectlFor(server.kubeconfig);
    await k.ok(["create", "-f", "-"], { input: namespaceYaml(ns) });
  });
  after(async () => {
    await server?.dispose();
  });

  for (const version of ["1.33", "1.27"] as KubectlVersion[]) {
    const name = `cm-${version.replace(".", "-")}`;
    const apply = (data: Record<string, string>, extra: string[] = []) =>
      k.run(["apply", "--server-side", ...extra, "-f", "-"], { version, input: configMapYaml(ns, name, data, { app: "demo" }) });

    void it(`${version}: apply --server-side creates, then a repeated apply changes nothing`, async () => {
      const first = await apply({ a: "1", b: "2" });
      assert.equal(first.code, 0, first.stderr);
      assert.equal(first.stdout.trim(), `configmap/${name} serverside-applied`);
      const created = await getCm(name);
      assert.deepEqual(withoutTimes(created), [
        {
          manager: "kubectl",
          operation: "Apply",
          apiVersion: "v1",
          fieldsType: "FieldsV1",
          fieldsV1: { "f:data": { "f:a": {}, "f:b": {} }, "f:metadata": { "f:labels": { "f:app": {} } } },
        },
      ]);
      const again = await apply({ a: "1", b: "2" });
      assert.equal(again.code, 0, again.stderr);
      const same = await getCm(name);
      assert.equal(same.metadata.resourceVersion, created.metadata.resourceVersion, "a no-op apply does not write");
      assert.deepEqual(same.metadata.managedFields, created.metadata.managedFields);
    });

    void it(`${version}: a field another manager changed is a conflict; --force-conflicts takes it`, async () => {
      await k.ok(["patch", "configmap", name, "-n", ns, "--type", "merge", "-p", '{"data":{"a":"patched"}}'], { version });
      const patched = await getCm(name);
      assert.deepEqual(
        withoutTimes(patched).map((e) => [e.manager, e.operation, e.fieldsV1]),
        [
          ["kubectl", "Apply", { "f:data": { "f:b": {} }, "f:metadata": { "f:labels": { "f:app": {} } } }],
          ["kubectl-patch", "Update", { "f:data": { "f:a": {} } }],
        ],
      );
      const conflict = await apply({ a: "mine", b: "2" });
      assert.notEqual(conflict.code, 0);
      assert.match(conflict.stderr, /Apply failed with 1 conflict: conflict with "kubectl-patch" using v1: \.data\.a/);
      assert.equal(((await getCm(name)).data as Record<string, string>).a, "patched", "a conflict changes nothing");
      const forced = await apply({ a: "mine", b: "2" }, ["--force-conflicts"]);
      assert.equal(forced.code, 0, forced.stderr);
      const now = await getCm(name);
      assert.deepEqual(now.data, { a: "mine", b: "2" });
      assert.deepEqual(
        withoutTimes(now).map((e) => e.manager),
        ["kubectl"],
        "kubectl-patch lost its only field",
      );
    });

    void it(`${version}: diff --server-side shows the change without making it; fields no longer applied are removed`, async () => {
      const diff = await k.run(["diff", "--server-side", "-f", "-"], { version, input: configMapYaml(ns, name, { a: "mine" }, { app: "demo" }) });
      assert.equal(diff.code, 1, diff.stderr);
      assert.match(diff.stdout, /^-\s+b: "2"$/m);
      assert.deepEqual((await getCm(name)).data, { a: "mine", b: "2" }, "diff is a dry run");
      const dropped = await apply({ a: "mine" });
      assert.equal(dropped.code, 0, dropped.stderr);
      assert.deepEqual((await getCm(name)).data, { a: "mine" });
    });
  }

  void it("get -o yaml --show-managed-fields shows managedFields as Kubernetes does; plain get hides them", async () => {
    const yaml = await k.ok(["get", "configmap", "cm-1-33", "-n", ns, "-o", "yaml", "--show-managed-fields"]);
    assert.match(yaml, /^ {2}managedFields:\n {2}- apiVersion: v1\n {4}fieldsType: FieldsV1\n {4}fieldsV1:\n {6}f:data:\n {8}f:a: \{\}\n/m);
    assert.match(yaml, /^ {4}manager: kubectl\n {4}operation: Apply\n {4}time: "\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ"$/m);
    assert.doesNotMatch(await k.ok(["get", "configmap", "cm-1-33", "-n", ns, "-o", "yaml"]), /managedFields/);
  });

  void it("client-side apply, then server-side apply: takes over without conflicts and keeps the last-applied annotation current", async () => {
    await k.ok(["apply", "-f", "-"], { input: configMapYaml(ns, "csa", { a: "1" }) });
    const csa = await getCm("csa");
    assert.deepEqual(
      withoutTimes(csa).map((e) => [e.manager, e.operation]),
      [["kubectl-client-side-apply", "Update"]],
    );
    const ssa = await k.run(["apply", "--server-side", "-f", "-"], { input: configMapYaml(ns, "csa", { a: "2" }) });
    assert.equal(ssa.code, 0, ssa.stderr);
    const after = await getCm("csa");
    assert.deepEqual(after.data, { a: "2" });
    const kubectlEntry = withoutTimes(after).find((e) => e.manager === "kubectl");
    assert.deepEqual(kubectlEntry?.fieldsV1, { "f:data": { "f:a": {} } });
    assert.equal(after.metadata.managedFields?.find((e) => e.manager === "kubectl")?.time !== undefined, true, "the apply changed the object");
    // kubectl 1.33 then moves the client-side entry over to its own (a JSON patch of managedFields the server accepts).
    assert.equal(withoutTimes(after).find((e) => e.manager === "kubectl-client-side-apply"), undefined);
    const annotation = JSON.parse(after.metadata.annotations?.["kubectl.kubernetes.io/last-applied-configuration"] ?? "{}") as KubeObject;
    assert.deepEqual(annotation.data, { a: "2" }, "the last-applied annotation follows server-side applies");
  });

  void it("a CRD list with x-kubernetes-list-map-keys merges by key across managers and removes only the applier's items", async () => {
    await k.ok(["apply", "--server-side", "-f", "-"], { input: gizmoCrd });
    await k.ok(["wait", "--for", "condition=established", "--timeout=30s", "crd/gizmos.example.com"]);
    await k.ok(["apply", "--server-side", "-f", "-"], { input: gizmo("g1", "  ports:\n  - port: 80\n    name: http\n  tags: [a]\n") });
    await k.ok(["apply", "--server-side", "--field-manager", "other", "-f", "-"], { input: gizmo("g1", "  ports:\n  - port: 443\n    name: https\n  tags: [b]\n") });
    const both = await k.json<KubeObject>(["get", "gizmo", "g1", "-n", ns, "--show-managed-fields"]);
    assert.deepEqual(both.spec, {
      ports: [
        { port: 80, name: "http", protocol: "TCP" },
        { port: 443, name: "https", protocol: "TCP" },
      ],
      tags: ["a", "b"],
    });
    assert.deepEqual(
      withoutTimes(both).map((e) => [e.manager, e.fieldsV1]),
      [
        ["kubectl", { "f:spec": { "f:ports": { 'k:{"port":80,"protocol":"TCP"}': { ".": {}, "f:name": {}, "f:port": {} } }, "f:tags": { 'v:"a"': {} } } }],
        ["other", { "f:spec": { "f:ports": { 'k:{"port":443,"protocol":"TCP"}': { ".": {}, "f:name": {}, "f:port": {} } }, "f:tags": { 'v:"b"': {} } } }],
      ],
    );
    await k.ok(["apply", "--server-side", "-f", "-"], { input: gizmo("g1", "  ports:\n  - port: 8080\n") });
    const moved = await k.json<KubeObject>(["get", "gizmo", "g1", "-n", ns]);
    assert.deepEqual(moved.spec, { ports: [{ port: 443, name: "https", protocol: "TCP" }, { port: 8080, protocol: "TCP" }], tags: ["b"] });
    const conflict = await k.run(["apply", "--server-side", "-f", "-"], { input: gizmo("g1", "  ports:\n  - port: 443\n    name: mine\n") });
    assert.notEqual(conflict.code, 0);
    assert.match(conflict.stderr, /conflict with "other": \.spec\.ports\[port=443,protocol="TCP"\]\.name/);
  });

  void it("client-node ServerSideApply: creates, conflicts as a 409 Status, force takes over", async () => {
    const objects = KubernetesObjectApi.makeApiClient(kubeConfigFrom(server.kubeconfig));
    const spec = (data: Record<string, string>): KubernetesObject & { data: Record<string, string> } => ({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "cn", namespace: ns }, data });
    const created = (await objects.patch(spec({ x: "1" }), undefined, undefined, "tool-a", undefined, PatchStrategy.ServerSideApply)) as unknown as KubeObject;
    assert.deepEqual(created.data, { x: "1" });
    assert.deepEqual(withoutTimes(created).map((e) => [e.manager, e.operation]), [["tool-a", "Apply"]]);
    let status: { code?: number; reason?: string; message?: string; details?: { causes?: unknown[] } } | undefined;
    try {
      await objects.patch(spec({ x: "2" }), undefined, undefined, "tool-b", undefined, PatchStrategy.ServerSideApply);
    } catch (e) {
      assert.ok(e instanceof ApiException);
      status = (typeof e.body === "string" ? JSON.parse(e.body) : e.body) as typeof status;
    }
    assert.equal(status?.code, 409);
    assert.equal(status?.reason, "Conflict");
    assert.equal(status?.message, 'Apply failed with 1 conflict: conflict with "tool-a": .data.x');
    assert.deepEqual(status?.details?.causes, [{ reason: "FieldManagerConflict", message: 'conflict with "tool-a"', field: ".data.x" }]);
    const forced = (await objects.patch(spec({ x: "2" }), undefined, undefined, "tool-b", true, PatchStrategy.ServerSideApply)) as unknown as KubeObject;
    assert.deepEqual(forced.data, { x: "2" });
    assert.deepEqual(withoutTimes(forced).map((e) => e.manager), ["tool-b"]);
  });

  void it("creates record an Update entry for their ?fieldManager, or else for the User-Agent's prefix", async () => {
    await k.ok(["create", "configmap", "created", "-n", ns, "--from-literal=a=1"]);
    const yaml = parse(await k.ok(["get", "configmap", "created", "-n", ns, "-o", "yaml", "--show-managed-fields"])) as KubeObject;
    assert.deepEqual(withoutTimes(yaml), [{ manager: "kubectl-create", operation: "Update", apiVersion: "v1", fieldsType: "FieldsV1", fieldsV1: { "f:data": { ".": {}, "f:a": {} } } }]);
    const res = await createWithUA(server, `/api/v1/namespaces/${ns}/configmaps`, "my-tool/1.2 (linux)");
    assert.deepEqual(res.metadata.managedFields?.map((e) => e.manager), ["my-tool"]);
  });
});

async function createWithUA(server: ApiServerProcess, path: string, userAgent: string): Promise<KubeObject> {
  const c = rawClient(server.kubeconfig);
  try {
    const body = JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "ua" }, data: { k: "v" } });
    const res = await c.request({ method: "POST", path, headers: { "content-type": "application/json", "user-agent": userAgent }, body });
    assert.equal(res.status, 201, res.body);
    return res.json<KubeObject>();
  } finally {
    c.close();
  }
}
