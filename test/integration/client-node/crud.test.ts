// @kubernetes/client-node 1.4 against the real server binary: typed CoreV1Api CRUD, Watch,
// CustomObjectsApi on a CRD, and KubernetesObjectApi (strategic merge patch by default).
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import {
  ApiextensionsV1Api,
  CoreV1Api,
  CustomObjectsApi,
  KubernetesObjectApi,
  PatchStrategy,
  Watch,
  setHeaderOptions,
  type KubernetesObject,
  type V1ConfigMap,
} from "@kubernetes/client-node";
import { startApiServerProcess, type ApiServerProcess } from "../../support/apiserver.ts";
import { eventually } from "../../support/http.ts";
import { createEstablishedCrd, expectApiError, kubeConfigFrom, widgetCrdObject } from "./helpers.ts";

const ns = "cn";

interface Gadget extends KubernetesObject {
  spec?: { size?: number; tags?: string[] };
  status?: { phase?: string };
}

void describe("@kubernetes/client-node CRUD", { timeout: 180_000 }, () => {
  let server: ApiServerProcess;
  let core: CoreV1Api;
  let custom: CustomObjectsApi;
  let objects: KubernetesObjectApi;
  let watch: Watch;
  const cm = (name: string, data: Record<string, string>, labels?: Record<string, string>): V1ConfigMap => ({
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name, namespace: ns, ...(labels ? { labels } : {}) },
    data,
  });

  before(async () => {
    server = await startApiServerProcess({ storage: "sqlite" });
    const kc = kubeConfigFrom(server.kubeconfig);
    core = kc.makeApiClient(CoreV1Api);
    custom = kc.makeApiClient(CustomObjectsApi);
    objects = KubernetesObjectApi.makeApiClient(kc);
    watch = new Watch(kc);
    await core.createNamespace({ body: { metadata: { name: ns } } });
    await createEstablishedCrd(kc.makeApiClient(ApiextensionsV1Api), widgetCrdObject);
  });
  after(async () => {
    await server?.dispose();
  });

  void it("CoreV1Api: create, read, list with selectors and pages, replace, conflict, delete", async () => {
    const created = await core.createNamespacedConfigMap({ namespace: ns, body: cm("c1", { a: "1" }, { app: "x" }) });
    assert.match(created.metadata?.resourceVersion ?? "", /^[1-9]\d*$/);
    assert.match(created.metadata?.uid ?? "", /^[0-9a-f-]{36}$/);
    assert.ok(created.metadata?.creationTimestamp instanceof Date);
    await core.createNamespacedConfigMap({ namespace: ns, body: cm("c2", { b: "2" }, { app: "y" }) });
    await core.createNamespacedConfigMap({ namespace: ns, body: cm("c3", { c: "3" }) });

    const read = await core.readNamespacedConfigMap({ name: "c1", namespace: ns });
    assert.deepEqual(read.data, { a: "1" });
    const dup = await expectApiError(core.createNamespacedConfigMap({ namespace: ns, body: cm("c1", {}) }), 409);
    assert.equal(dup.reason, "AlreadyExists");

    const selected = await core.listNamespacedConfigMap({ namespace: ns, labelSelector: "app in (x,y)" });
    assert.deepEqual(selected.items.map((i) => i.metadata?.name).sort(), ["c1", "c2"]);
    assert.match(selected.metadata?.resourceVersion ?? "", /^[1-9]\d*$/);
    const byName = await core.listNamespacedConfigMap({ namespace: ns, fieldSelector: "metadata.name=c3" });
    assert.deepEqual(byName.items.map((i) => i.metadata?.name), ["c3"]);

    const pages: string[] = [];
    let token: string | undefined;
    let firstRv: string | undefined;
    do {
      const page = await core.listNamespacedConfigMap({ namespace: ns, limit: 1, _continue: token });
      pages.push(...page.items.map((i) => i.metadata!.name!));
      firstRv ??= page.metadata?.resourceVersion;
      assert.equal(page.metadata?.resourceVersion, firstRv, "every page reflects the first page's snapshot");
      token = page.metadata?._continue || undefined;
      assert.ok(pages.length <= 10, "pagination does not end");
    } while (token);
    // Every namespace also holds the cluster's CA bundle, as in Kubernetes.
    assert.deepEqual(pages, ["c1", "c2", "c3", "kube-root-ca.crt"]);

    const replaced = await core.replaceNamespacedConfigMap({ name: "c1", namespace: ns, body: { ...read, data: { a: "changed" } } });
    assert.notEqual(replaced.metadata?.resourceVersion, read.metadata?.resourceVersion);
    const conflict = await expectApiError(core.replaceNamespacedConfigMap({ name: "c1", namespace: ns, body: { ...read, data: { a: "stale" } } }), 409);
    assert.equal(conflict.reason, "Conflict");
    assert.match(conflict.message ?? "", /the object has been modified/);

    await core.deleteNamespacedConfigMap({ name: "c1", namespace: ns });
    const missing = await expectApiError(core.readNamespacedConfigMap({ name: "c1", namespace: ns }), 404);
    assert.equal(missing.reason, "NotFound");
    assert.equal(missing.message, 'configmaps "c1" not found');
  });

  void it("CoreV1Api: patch types (json patch by default, merge and strategic via headers), dry run, secrets", async () => {
    await core.createNamespacedConfigMap({ namespace: ns, body: cm("p1", { keep: "1" }) });
    const j = await core.patchNamespacedConfigMap({ name: "p1", namespace: ns, body: [{ op: "add", path: "/data/j", value: "2" }] });
    assert.deepEqual(j.data, { keep: "1", j: "2" });
    const merge = setHeaderOptions("Content-Type", PatchStrategy.MergePatch);
    const m = await core.patchNamespacedConfigMap({ name: "p1", namespace: ns, body: { data: { j: null, m: "3" } } }, merge);
    assert.deepEqual(m.data, { keep: "1", m: "3" });
    const smp = setHeaderOptions("Content-Type", PatchStrategy.StrategicMergePatch);
    const s = await core.patchNamespacedConfigMap({ name: "p1", namespace: ns, body: { metadata: { labels: { s: "4" } } } }, smp);
    assert.deepEqual(s.metadata?.labels, { s: "4" });
    const bad = await expectApiError(core.patchNamespacedConfigMap({ name: "p1", namespace: ns, body: [{ op: "test", path: "/data/keep", value: "no" }] }), 422);
    assert.equal(bad.status, "Failure");

    const dry = await core.createNamespacedConfigMap({ namespace: ns, body: cm("dry", { a: "1" }), dryRun: "All" });
    assert.equal(dry.metadata?.name, "dry");
    await expectApiError(core.readNamespacedConfigMap({ name: "dry", namespace: ns }), 404);

    await core.createNamespacedSecret({ namespace: ns, body: { metadata: { name: "s1" }, stringData: { user: "admin" } } });
    const secret = await core.readNamespacedSecret({ name: "s1", namespace: ns });
    assert.equal(secret.type, "Opaque");
    assert.deepEqual(secret.data, { user: Buffer.from("admin").toString("base64") });
  });

  void it("Watch: ADDED, MODIFIED and DELETED; DELETED carries the deletion's resourceVersion", async () => {
    const list = await core.listNamespacedConfigMap({ namespace: ns });
    const events: { type: string; name: string; rv: string; data?: Record<string, string> }[] = [];
    let ended: unknown = "running";
    const controller = await watch.watch(
      `/api/v1/namespaces/${ns}/configmaps`,
      { resourceVersion: list.metadata?.resourceVersion },
      (type: string, obj: V1ConfigMap) => {
        events.push({ type, name: obj.metadata?.name ?? "", rv: obj.metadata?.resourceVersion ?? "", data: obj.data });
      },
      (err: unknown) => (ended = err),
    );
    try {
      await core.createNamespacedConfigMap({ namespace: ns, body: cm("w1", { v: "1" }) });
      const modified = await core.patchNamespacedConfigMap({ name: "w1", namespace: ns, body: { data: { v: "2" } } }, setHeaderOptions("Content-Type", PatchStrategy.MergePatch));
      await core.deleteNamespacedConfigMap({ name: "w1", namespace: ns });
      await eventually("three watch events", () => (events.length >= 3 ? true : undefined));
      assert.deepEqual(events.map((e) => `${e.type} ${e.name}`), ["ADDED w1", "MODIFIED w1", "DELETED w1"]);
      assert.deepEqual(events[1]!.data, { v: "2" });
      assert.equal(events[1]!.rv, modified.metadata?.resourceVersion);
      assert.ok(Number(events[2]!.rv) > Number(events[1]!.rv), `DELETED must carry the deletion revision, got ${events[2]!.rv} after ${events[1]!.rv}`);
      assert.equal(ended, "running", "the watch must stay open");
    } finally {
      controller.abort();
    }
  });

  void it("CustomObjectsApi: CRUD, patch types, status subresource, conditional updates", async () => {
    const g = { group: "example.com", version: "v1", namespace: ns, plural: "gadgets" };
    const body: Gadget = { apiVersion: "example.com/v1", kind: "Gadget", metadata: { name: "g1", labels: { t: "a" } }, spec: { size: 1, tags: ["x"] } };
    const created = (await custom.createNamespacedCustomObject({ ...g, body })) as Gadget;
    assert.equal(created.metadata?.namespace, ns);
    assert.equal((created.metadata as { generation?: number }).generation, 1);

    const got = (await custom.getNamespacedCustomObject({ ...g, name: "g1" })) as Gadget;
    assert.deepEqual(got.spec, { size: 1, tags: ["x"] });
    const list = (await custom.listNamespacedCustomObject({ ...g, labelSelector: "t=a" })) as { items: Gadget[]; kind: string };
    assert.equal(list.kind, "GadgetList");
    assert.deepEqual(list.items.map((i) => i.metadata?.name), ["g1"]);

    const jp = (await custom.patchNamespacedCustomObject({ ...g, name: "g1", body: [{ op: "replace", path: "/spec/size", value: 2 }] })) as Gadget;
    assert.equal(jp.spec?.size, 2);
    const mp = (await custom.patchNamespacedCustomObject({ ...g, name: "g1", body: { spec: { tags: ["y", "z"] } } }, setHeaderOptions("Content-Type", PatchStrategy.MergePatch))) as Gadget;
    assert.deepEqual(mp.spec, { size: 2, tags: ["y", "z"] });
    const smp = setHeaderOptions("Content-Type", PatchStrategy.StrategicMergePatch);
    const refused = await expectApiError(custom.patchNamespacedCustomObject({ ...g, name: "g1", body: { spec: { size: 3 } } }, smp), 415);
    assert.equal(refused.reason, "UnsupportedMediaType");

    const st = (await custom.patchNamespacedCustomObjectStatus(
      { ...g, name: "g1", body: { status: { phase: "Ready" }, spec: { size: 99 } } },
      setHeaderOptions("Content-Type", PatchStrategy.MergePatch),
    )) as Gadget;
    assert.equal(st.status?.phase, "Ready");
    assert.equal(st.spec?.size, 2, "the status endpoint must ignore spec changes");

    const current = (await custom.getNamespacedCustomObject({ ...g, name: "g1" })) as Gadget;
    const replaced = (await custom.replaceNamespacedCustomObject({ ...g, name: "g1", body: { ...current, spec: { size: 5 } } })) as Gadget;
    assert.equal(replaced.spec?.size, 5);
    assert.equal(replaced.status?.phase, "Ready", "a main-endpoint update keeps the old status");
    const noRv = { ...current, metadata: { ...current.metadata, resourceVersion: undefined } };
    const invalid = await expectApiError(custom.replaceNamespacedCustomObject({ ...g, name: "g1", body: noRv }), 422);
    assert.match(invalid.message ?? "", /metadata\.resourceVersion/);
    await expectApiError(custom.replaceNamespacedCustomObject({ ...g, name: "g1", body: current }), 409);

    const all = (await custom.listClusterCustomObject({ group: g.group, version: g.version, plural: g.plural })) as { items: Gadget[] };
    assert.deepEqual(all.items.map((i) => `${i.metadata?.namespace}/${i.metadata?.name}`), [`${ns}/g1`]);
    await custom.deleteNamespacedCustomObject({ ...g, name: "g1" });
    await expectApiError(custom.getNamespacedCustomObject({ ...g, name: "g1" }), 404);
  });

  void it("KubernetesObjectApi: create, read, strategic-merge patch by default, replace, list, delete", async () => {
    const spec = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "o1", namespace: ns }, data: { a: "1" } };
    const created = await objects.create(spec);
    assert.equal(created.metadata?.name, "o1");
    const patched = (await objects.patch({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "o1", namespace: ns, labels: { p: "1" } }, data: { b: "2" } } as KubernetesObject)) as V1ConfigMap;
    assert.deepEqual(patched.data, { a: "1", b: "2" });
    assert.deepEqual(patched.metadata?.labels, { p: "1" });
    const read = (await objects.read({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "o1", namespace: ns } })) as V1ConfigMap;
    const replaced = (await objects.replace({ ...read, data: { only: "this" } } as KubernetesObject)) as V1ConfigMap;
    assert.deepEqual(replaced.data, { only: "this" });
    const list = await objects.list("v1", "ConfigMap", ns);
    assert.ok(list.items.some((i) => i.metadata?.name === "o1"));

    const role = {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "Role",
      metadata: { name: "r1", namespace: ns },
      rules: [{ apiGroups: [""], resources: ["configmaps"], verbs: ["get"] }],
    };
    await objects.create(role);
    const rolePatched = (await objects.patch({ ...role, rules: [{ apiGroups: [""], resources: ["secrets"], verbs: ["list"] }] })) as typeof role;
    assert.deepEqual(JSON.parse(JSON.stringify(rolePatched.rules)), [{ apiGroups: [""], resources: ["secrets"], verbs: ["list"] }], "RBAC lists have no merge key: SMP replaces them");

    const gadget = { apiVersion: "example.com/v1", kind: "Gadget", metadata: { name: "og", namespace: ns }, spec: { size: 1 } };
    await objects.create(gadget);
    await expectApiError(objects.patch({ ...gadget, spec: { size: 2 } }), 415);
    const merged = (await objects.patch({ ...gadget, spec: { size: 2 } }, undefined, undefined, undefined, undefined, PatchStrategy.MergePatch)) as Gadget;
    assert.equal(merged.spec?.size, 2);

    await objects.delete({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "o1", namespace: ns } });
    await expectApiError(objects.read({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "o1", namespace: ns } }), 404);
  });
});
