import assert from "node:assert/strict";
import { after, before, beforeEach, describe, it } from "node:test";
import type { KubeObject, Status, Table } from "../../apis/meta/v1/types.ts";
import { type FakeStore, type TestServer, configMapDef, pb, startTestServer, widgetDef } from "./testing.ts";

let s: TestServer;
let cms: FakeStore;
let widgets: FakeStore;
const token = {
  verbs: ["create"],
  responseKind: { group: "authentication.k8s.io", version: "v1", kind: "TokenRequest" },
  handle: (r: { name: string; body?: unknown; namespace?: string }) => Promise.resolve({ status: 201, body: { kind: "TokenRequest", sa: r.name, ns: r.namespace, spec: (r.body as { spec?: unknown }).spec } }),
};

before(async () => {
  s = await startTestServer([configMapDef(), widgetDef({ subresources: { token } })], { maxBodyBytes: 1024 });
  cms = s.store(configMapDef());
  widgets = s.store(s.registry.get("demo.io", "v1", "widgets")!);
});
after(() => s.close());
beforeEach(() => {
  cms.objects.clear();
  widgets.objects.clear();
  cms.warnings = [];
});

const json = (body: unknown, contentType = "application/json") => ({ body: typeof body === "string" ? body : JSON.stringify(body), headers: { "content-type": contentType } });
const post = (path: string, body: unknown, contentType?: string) => s.fetch(path, { method: "POST", ...json(body, contentType) });
async function st(res: Response): Promise<Status> {
  assert.equal(res.headers.get("content-type"), "application/json");
  return (await res.json()) as Status;
}
const cm = (name: string, extra: Partial<KubeObject> = {}): KubeObject => ({ apiVersion: "v1", kind: "ConfigMap", metadata: { name }, data: { a: "1" }, ...extra });

void describe("create", () => {
  void it("answers 201 with the stored object, namespace filled in from the URL", async () => {
    const res = await post("/api/v1/namespaces/dev/configmaps", cm("c1"));
    assert.equal(res.status, 201);
    const obj = (await res.json()) as KubeObject;
    assert.equal(obj.metadata.namespace, "dev");
    assert.equal(obj.metadata.resourceVersion, String(cms.rv));
    assert.equal(cms.lastCall("create")?.ctx.namespace, "dev");
  });

  void it("accepts YAML bodies and fills in a missing apiVersion/kind", async () => {
    const res = await post("/api/v1/namespaces/dev/configmaps", "metadata:\n  name: y1\ndata:\n  k: v\n", "application/yaml");
    assert.equal(res.status, 201);
    const obj = (await res.json()) as KubeObject;
    assert.deepEqual([obj.apiVersion, obj.kind, obj.data], ["v1", "ConfigMap", { k: "v" }]);
  });

  void it("rejects mismatched apiVersion, kind and namespace with 400", async () => {
    const v = await st(await post("/api/v1/namespaces/dev/configmaps", cm("c", { apiVersion: "apps/v1" })));
    assert.deepEqual([v.code, v.reason, v.message], [400, "BadRequest", "the API version in the data (apps/v1) does not match the expected API version (v1)"]);
    const k = await st(await post("/api/v1/namespaces/dev/configmaps", cm("c", { kind: "Secret" })));
    assert.equal(k.code, 400);
    assert.match(k.message ?? "", /kind in the data \(Secret\)/);
    const ns = await st(await post("/api/v1/namespaces/dev/configmaps", cm("c", { metadata: { name: "c", namespace: "prod" } })));
    assert.deepEqual([ns.code, ns.message], [400, "the namespace of the provided object does not match the namespace sent on the request"]);
  });

  void it("rejects malformed bodies with 400 and protobuf with 415", async () => {
    const bad = await st(await post("/api/v1/namespaces/dev/configmaps", "{not json"));
    assert.equal(bad.code, 400);
    assert.match(bad.message ?? "", /json parse error/);
    const yaml = await st(await post("/api/v1/namespaces/dev/configmaps", "a: [", "application/yaml"));
    assert.equal(yaml.code, 400);
    const arr = await st(await post("/api/v1/namespaces/dev/configmaps", [1]));
    assert.equal(arr.code, 400);
    const cbor = await st(await post("/api/v1/namespaces/dev/configmaps", "x", "application/cbor"));
    assert.deepEqual([cbor.code, cbor.reason], [415, "UnsupportedMediaType"]);
  });

  void it("decodes protobuf bodies of the kinds kubectl's typed clients send", async () => {
    const body = pb.k8sProtobuf("v1", "ConfigMap", pb.ld(1, pb.s(1, "proto")), pb.entry(2, "k", "v"));
    const res = await s.fetch("/api/v1/namespaces/dev/configmaps", { method: "POST", body, headers: { "content-type": "application/vnd.kubernetes.protobuf", accept: "application/vnd.kubernetes.protobuf,application/json" } });
    assert.equal(res.status, 201);
    assert.equal(res.headers.get("content-type"), "application/json");
    assert.deepEqual(((await res.json()) as KubeObject).data, { k: "v" });
    const other = pb.k8sProtobuf("apps/v1", "Deployment", pb.ld(1, pb.s(1, "d")));
    const unknown = await st(await s.fetch("/api/v1/namespaces/dev/configmaps", { method: "POST", body: other, headers: { "content-type": "application/vnd.kubernetes.protobuf" } }));
    assert.equal(unknown.code, 415);
  });

  void it("rejects bodies over the limit with 413, declared or streamed", async () => {
    const big = cm("big", { data: { a: "x".repeat(2000) } });
    const declared = await st(await post("/api/v1/namespaces/dev/configmaps", big));
    assert.deepEqual([declared.code, declared.reason], [413, "RequestEntityTooLarge"]);
    const chunks = new ReadableStream({
      start(c) {
        c.enqueue(new TextEncoder().encode(JSON.stringify(big)));
        c.close();
      },
    });
    const streamed = await s.fetch("/api/v1/namespaces/dev/configmaps", { method: "POST", body: chunks, headers: { "content-type": "application/json" }, duplex: "half" } as RequestInit);
    assert.equal(streamed.status, 413);
    assert.equal(cms.objects.size, 0);
  });

  void it("validates dryRun and fieldValidation and passes them on", async () => {
    const dry = await st(await post("/api/v1/namespaces/dev/configmaps?dryRun=Foo", cm("c")));
    assert.deepEqual([dry.code, dry.reason], [422, "Invalid"]);
    const fv = await st(await post("/api/v1/namespaces/dev/configmaps?fieldValidation=Loose", cm("c")));
    assert.equal(fv.code, 400);
    const ok = await post("/api/v1/namespaces/dev/configmaps?dryRun=All&fieldValidation=Strict&fieldManager=kubectl-create", cm("c"));
    assert.equal(ok.status, 201);
    const call = cms.lastCall("create");
    assert.equal(call?.ctx.dryRun, true);
    assert.deepEqual(call?.args[1], { dryRun: true, fieldValidation: "Strict", fieldManager: "kubectl-create", bodyOwned: true });
    assert.equal(cms.objects.size, 0);
  });

  void it("sends store warnings as Warning headers", async () => {
    cms.warnings = ['unknown field "spec.x"'];
    const res = await post("/api/v1/namespaces/dev/configmaps?fieldValidation=Warn", cm("w"));
    assert.equal(res.headers.get("warning"), '299 - "unknown field \\"spec.x\\""');
  });

  void it("refuses creates without a namespace for namespaced kinds", async () => {
    assert.equal((await post("/api/v1/configmaps", cm("c"))).status, 405);
  });
});

void describe("read", () => {
  void it("gets, lists and 404s with kube's message", async () => {
    await post("/api/v1/namespaces/dev/configmaps", cm("c1"));
    await post("/api/v1/namespaces/prod/configmaps", cm("c2"));
    const one = (await (await s.fetch("/api/v1/namespaces/dev/configmaps/c1")).json()) as KubeObject;
    assert.equal(one.metadata.name, "c1");
    const list = (await (await s.fetch("/api/v1/namespaces/dev/configmaps")).json()) as { kind: string; apiVersion: string; items: KubeObject[]; metadata: { resourceVersion: string } };
    assert.deepEqual([list.kind, list.apiVersion, list.items.length], ["ConfigMapList", "v1", 1]);
    const all = (await (await s.fetch("/api/v1/configmaps")).json()) as { items: unknown[] };
    assert.equal(all.items.length, 2);
    const nf = await st(await s.fetch("/api/v1/namespaces/dev/configmaps/zz"));
    assert.deepEqual([nf.code, nf.message], [404, 'configmaps "zz" not found']);
    assert.equal((await s.fetch("/api/v1/configmaps/c1")).status, 404);
    s.registry.add(widgetDef({ plural: "clusterwidgets", kind: "ClusterWidget", listKind: "ClusterWidgetList", namespaced: false }));
    assert.equal((await s.fetch("/apis/demo.io/v1/clusterwidgets")).status, 200);
    assert.equal((await s.fetch("/apis/demo.io/v1/namespaces/dev/clusterwidgets")).status, 404);
  });

  void it("passes list options and rejects bad combinations", async () => {
    await s.fetch("/api/v1/namespaces/dev/configmaps?labelSelector=a%3Db&fieldSelector=metadata.name%3Dc&limit=500&resourceVersion=0");
    assert.deepEqual(cms.lastCall("list")?.args[0], { labelSelector: "a=b", fieldSelector: "metadata.name=c", limit: 500, resourceVersion: "0" });
    const rvm = await st(await s.fetch("/api/v1/namespaces/dev/configmaps?resourceVersionMatch=Exact"));
    assert.deepEqual([rvm.code, rvm.reason], [422, "Invalid"]);
    const sie = await st(await s.fetch("/api/v1/namespaces/dev/configmaps?sendInitialEvents=true"));
    assert.equal(sie.code, 422);
    const cont = await st(await s.fetch("/api/v1/namespaces/dev/configmaps?continue=abc&resourceVersion=5"));
    assert.equal(cont.code, 400);
  });

  void it("serves Tables when kubectl asks, with the list RV and continue", async () => {
    await post("/apis/demo.io/v1/namespaces/dev/widgets", { metadata: { name: "w1", labels: { x: "y" } }, spec: { color: "red" } });
    const accept = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json";
    const res = await s.fetch("/apis/demo.io/v1/namespaces/dev/widgets?limit=500", { headers: { accept } });
    assert.equal(res.headers.get("content-type"), "application/json;as=Table;v=v1;g=meta.k8s.io");
    const t = (await res.json()) as Table;
    assert.deepEqual(t.metadata, { resourceVersion: String(widgets.rv), continue: "tok" });
    assert.deepEqual(t.rows[0]?.cells, ["w1", "2026-01-01T00:00:00Z"]);
    assert.equal(t.rows[0]?.object?.kind, "PartialObjectMetadata");
    assert.deepEqual(t.rows[0]?.object?.metadata.labels, { x: "y" });
    const single = (await (await s.fetch("/apis/demo.io/v1/namespaces/dev/widgets/w1?includeObject=None", { headers: { accept } })).json()) as Table;
    assert.equal(single.rows.length, 1);
    assert.equal(single.rows[0]?.object, undefined);
    assert.equal(single.metadata.resourceVersion, String(widgets.rv));
  });

  void it("serves YAML and PartialObjectMetadata on request", async () => {
    await post("/api/v1/namespaces/dev/configmaps", cm("c1"));
    const yaml = await s.fetch("/api/v1/namespaces/dev/configmaps/c1", { headers: { accept: "application/yaml" } });
    assert.equal(yaml.headers.get("content-type"), "application/yaml");
    assert.match(await yaml.text(), /^apiVersion: v1\nkind: ConfigMap\n/);
    const partial = (await (await s.fetch("/api/v1/namespaces/dev/configmaps", { headers: { accept: "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json" } })).json()) as { kind: string; items: KubeObject[] };
    assert.equal(partial.kind, "PartialObjectMetadataList");
    assert.equal(partial.items[0]?.data, undefined);
  });
});

void describe("update and patch", () => {
  void it("updates with 200 and creates with 201", async () => {
    await post("/api/v1/namespaces/dev/configmaps", cm("c1"));
    const upd = await s.fetch("/api/v1/namespaces/dev/configmaps/c1", { method: "PUT", ...json(cm("c1", { data: { b: "2" } })) });
    assert.equal(upd.status, 200);
    const created = await s.fetch("/api/v1/namespaces/dev/configmaps/c9", { method: "PUT", ...json(cm("c9")) });
    assert.equal(created.status, 201);
    const mismatch = await st(await s.fetch("/api/v1/namespaces/dev/configmaps/c1", { method: "PUT", ...json(cm("other")) }));
    assert.deepEqual([mismatch.code, mismatch.message], [400, "the name of the object (other) does not match the name on the URL (c1)"]);
  });

  void it("maps patch content types to patch types", async () => {
    await post("/api/v1/namespaces/dev/configmaps", cm("c1"));
    const cases: [string, string, unknown][] = [
      ["application/json-patch+json", "json", [{ op: "add", path: "/data/x", value: "1" }]],
      ["application/merge-patch+json", "merge", { data: { x: "1" } }],
      ["application/strategic-merge-patch+json", "strategic", { data: { x: "1" } }],
    ];
    for (const [ct, type, body] of cases) {
      const res = await s.fetch("/api/v1/namespaces/dev/configmaps/c1?fieldManager=kubectl-patch", { method: "PATCH", ...json(body, ct) });
      assert.equal(res.status, 200, ct);
      assert.equal(cms.lastCall("patch")?.args[1], type);
    }
    const apply = await s.fetch("/api/v1/namespaces/dev/configmaps/c1?fieldManager=kubectl&force=true", { method: "PATCH", ...json("data:\n  x: '2'\n", "application/apply-patch+yaml") });
    assert.equal(apply.status, 200);
    assert.deepEqual(cms.lastCall("patch")?.args.slice(1, 4), ["apply", { data: { x: "2" } }, { fieldManager: "kubectl", force: true }]);
    const noManager = await st(await s.fetch("/api/v1/namespaces/dev/configmaps/c1", { method: "PATCH", ...json("data: {}", "application/apply-patch+yaml") }));
    assert.equal(noManager.code, 422);
    const forceMerge = await st(await s.fetch("/api/v1/namespaces/dev/configmaps/c1?force=true", { method: "PATCH", ...json({}, "application/merge-patch+json") }));
    assert.equal(forceMerge.code, 422);
  });

  void it("answers 415 for SMP on kinds without it and unknown patch types", async () => {
    await post("/apis/demo.io/v1/namespaces/dev/widgets", { metadata: { name: "w1" } });
    const smp = await st(await s.fetch("/apis/demo.io/v1/namespaces/dev/widgets/w1", { method: "PATCH", ...json({}, "application/strategic-merge-patch+json") }));
    assert.deepEqual([smp.code, smp.reason], [415, "UnsupportedMediaType"]);
    assert.doesNotMatch(smp.message ?? "", /strategic/);
    const other = await st(await s.fetch("/apis/demo.io/v1/namespaces/dev/widgets/w1", { method: "PATCH", ...json({}, "application/json") }));
    assert.equal(other.code, 415);
  });

  void it("routes the status subresource to the store with subresource status", async () => {
    await post("/apis/demo.io/v1/namespaces/dev/widgets", { metadata: { name: "w1" } });
    const get = (await (await s.fetch("/apis/demo.io/v1/namespaces/dev/widgets/w1/status")).json()) as KubeObject;
    assert.equal(get.metadata.name, "w1");
    await s.fetch("/apis/demo.io/v1/namespaces/dev/widgets/w1/status", { method: "PUT", ...json({ metadata: { name: "w1" }, status: { phase: "Ready" } }) });
    assert.equal(widgets.lastCall("update")?.args[3], "status");
    await s.fetch("/apis/demo.io/v1/namespaces/dev/widgets/w1/status", { method: "PATCH", ...json({ status: { phase: "X" } }, "application/merge-patch+json") });
    assert.equal(widgets.lastCall("patch")?.args[4], "status");
    assert.equal((await s.fetch("/apis/demo.io/v1/namespaces/dev/widgets/w1/status", { method: "DELETE" })).status, 405);
    assert.equal((await s.fetch("/apis/demo.io/v1/namespaces/dev/widgets/w1/scale")).status, 404);
    assert.equal((await s.fetch("/api/v1/namespaces/dev/configmaps/c1/status")).status, 404);
  });

  void it("dispatches custom subresources to their handler", async () => {
    const res = await post("/apis/demo.io/v1/namespaces/dev/widgets/w1/token", { spec: { audiences: ["a"] } });
    assert.equal(res.status, 201);
    assert.deepEqual(await res.json(), { kind: "TokenRequest", sa: "w1", ns: "dev", spec: { audiences: ["a"] } });
    assert.equal((await s.fetch("/apis/demo.io/v1/namespaces/dev/widgets/w1/token")).status, 405);
  });
});

void describe("delete", () => {
  void it("deletes with an empty body, a DeleteOptions body or query parameters", async () => {
    await post("/api/v1/namespaces/dev/configmaps", cm("c1"));
    const res = await s.fetch("/api/v1/namespaces/dev/configmaps/c1", { method: "DELETE" });
    assert.equal(res.status, 200);
    const body = (await res.json()) as Status;
    assert.deepEqual([body.kind, body.status, body.details?.name, body.details?.kind], ["Status", "Success", "c1", "configmaps"]);
    await post("/api/v1/namespaces/dev/configmaps", cm("c2"));
    await s.fetch("/api/v1/namespaces/dev/configmaps/c2?gracePeriodSeconds=0", { method: "DELETE", ...json({ propagationPolicy: "Background" }) });
    assert.deepEqual(cms.lastCall("delete")?.args[1], { gracePeriodSeconds: 0, propagationPolicy: "Background" });
    const bad = await st(await s.fetch("/api/v1/namespaces/dev/configmaps/c2", { method: "DELETE", ...json({ propagationPolicy: "Sideways" }) }));
    assert.equal(bad.code, 422);
  });

  void it("returns the object for CRDs and while finalizers hold it, 202 with orphanDependents=false", async () => {
    await post("/apis/demo.io/v1/namespaces/dev/widgets", { metadata: { name: "w1", finalizers: ["f"] } });
    const held = await s.fetch("/apis/demo.io/v1/namespaces/dev/widgets/w1", { method: "DELETE" });
    assert.equal(held.status, 200);
    assert.equal(((await held.json()) as KubeObject).metadata.deletionTimestamp, "2026-01-01T00:00:00Z");
    const accepted = await s.fetch("/apis/demo.io/v1/namespaces/dev/widgets/w1?orphanDependents=false", { method: "DELETE" });
    assert.equal(accepted.status, 202);
    s.registry.add(widgetDef({ crdName: "widgets.demo.io" }));
    await post("/apis/demo.io/v1/namespaces/dev/widgets", { metadata: { name: "w2" } });
    const gone = (await (await s.fetch("/apis/demo.io/v1/namespaces/dev/widgets/w2", { method: "DELETE" })).json()) as KubeObject;
    assert.equal(gone.kind, "Widget");
  });

  void it("treats DELETE on a collection as deletecollection, with dryRun from the body", async () => {
    await post("/api/v1/namespaces/dev/configmaps", cm("c1"));
    const res = await s.fetch("/api/v1/namespaces/dev/configmaps?labelSelector=a", { method: "DELETE", ...json({ dryRun: ["All"] }) });
    assert.equal(res.status, 200);
    assert.equal(((await res.json()) as { kind: string }).kind, "ConfigMapList");
    const call = cms.lastCall("deleteCollection");
    assert.deepEqual(call?.args[0], { labelSelector: "a" });
    assert.equal(call?.ctx.dryRun, true);
  });

  void it("refuses verbs a resource does not serve", async () => {
    s.registry.add(widgetDef({ plural: "reviews", kind: "Review", listKind: "ReviewList", verbs: ["create"], hasStatus: false, virtualCreate: (_ctx, obj) => Promise.resolve({ ...obj, status: { allowed: true } }) }));
    const created = await post("/apis/demo.io/v1/namespaces/dev/reviews", { spec: {} });
    assert.equal(created.status, 201);
    assert.deepEqual(((await created.json()) as KubeObject).status, { allowed: true });
    const list = await st(await s.fetch("/apis/demo.io/v1/namespaces/dev/reviews"));
    assert.deepEqual([list.code, list.reason], [405, "MethodNotAllowed"]);
  });
});
