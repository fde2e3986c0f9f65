import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Status } from "../../apis/meta/v1/types.ts";
import { type TestServer, configMapDef, startTestServer, widgetDef } from "./testing.ts";

let s: TestServer;
let healthy = true;
before(async () => {
  s = await startTestServer([configMapDef(), widgetDef()], {
    healthChecks: () => Promise.resolve([{ name: "storage", ok: healthy, message: "database is locked" }]),
  });
});
after(() => s.close());

async function status(res: Response): Promise<Status> {
  assert.equal(res.headers.get("content-type"), "application/json");
  return (await res.json()) as Status;
}

void describe("pipeline", () => {
  void it("answers 401 Status without credentials", async () => {
    const res = await s.fetch("/api/v1/namespaces/default/configmaps", { user: "" });
    assert.equal(res.status, 401);
    const st = await status(res);
    assert.deepEqual([st.kind, st.apiVersion, st.status, st.reason, st.code, st.message], ["Status", "v1", "Failure", "Unauthorized", 401, "Unauthorized"]);
  });

  void it("answers 403 with kube's message for resource requests", async () => {
    const res = await s.fetch("/apis/demo.io/v1/namespaces/dev/widgets/w1/status", { user: "nobody" });
    assert.equal(res.status, 403);
    const st = await status(res);
    assert.equal(st.reason, "Forbidden");
    assert.equal(st.message, 'widgets.demo.io "w1" is forbidden: User "nobody" cannot get resource "widgets/status" in API group "demo.io" in the namespace "dev"');
    assert.deepEqual(st.details, { name: "w1", group: "demo.io", kind: "widgets" });
  });

  void it("answers 403 for cluster-scope and non-resource requests", async () => {
    const list = await status(await s.fetch("/api/v1/configmaps", { user: "nobody" }));
    assert.equal(list.message, 'configmaps is forbidden: User "nobody" cannot list resource "configmaps" in API group "" at the cluster scope');
    const path = await status(await s.fetch("/healthz", { user: "nobody" }));
    assert.equal(path.message, 'forbidden: User "nobody" cannot get path "/healthz"');
  });

  void it("authorizes with the request attributes, including the name from a field selector", async () => {
    s.authorizer.seen.length = 0;
    await s.fetch("/api/v1/namespaces/n1/configmaps?watch=1&fieldSelector=metadata.name%3Dc1&timeoutSeconds=1").then((r) => r.body?.cancel());
    const a = s.authorizer.seen[0];
    assert.deepEqual({ ...a, user: undefined }, {
      user: undefined,
      verb: "watch",
      resourceRequest: true,
      apiGroup: "",
      apiVersion: "v1",
      resource: "configmaps",
      subresource: "",
      namespace: "n1",
      name: "c1",
      fieldSelector: "metadata.name=c1",
    });
    assert.equal(a?.user.username, "admin");
  });

  void it("refuses impersonation when no impersonator is configured", async () => {
    const res = await s.fetch("/version", { headers: { "Impersonate-User": "bob" } });
    assert.equal(res.status, 403);
  });

  void it("answers unknown paths with 404 Status", async () => {
    for (const p of ["/nope", "/apis/demo.io/v1/namespaces/x/gizmos", "/apis/nope.io/v1", "/api/v2", "/openapi/v3/apis/nope/v1"]) {
      const res = await s.fetch(p);
      assert.equal(res.status, 404, p);
      const st = await status(res);
      assert.equal(st.reason, "NotFound");
      if (p === "/nope") assert.equal(st.message, "the server could not find the requested resource");
    }
  });

  void it("answers 405 for methods a path does not support", async () => {
    assert.equal((await s.fetch("/version", { method: "POST" })).status, 405);
    const res = await s.fetch("/api/v1/namespaces/n/configmaps", { method: "PUT", body: "{}" });
    assert.equal(res.status, 405);
    assert.equal((await status(res)).reason, "MethodNotAllowed");
  });

  void it("turns unexpected exceptions into 500 without a stack", async () => {
    const store = s.store(configMapDef());
    const orig = store.get.bind(store);
    store.get = () => Promise.reject(new TypeError("boom at /secret/path.ts:1"));
    try {
      const res = await s.fetch("/api/v1/namespaces/n/configmaps/c");
      assert.equal(res.status, 500);
      const st = await status(res);
      assert.equal(st.reason, "InternalError");
      assert.ok(!JSON.stringify(st).includes("    at "));
    } finally {
      store.get = orig;
    }
  });

  void it("sets an Audit-Id", async () => {
    const res = await s.fetch("/version");
    assert.match(res.headers.get("audit-id") ?? "", /^[0-9a-f-]{36}$/);
  });
});

void describe("non-resource endpoints", () => {
  void it("serves /version", async () => {
    const res = await s.fetch("/version");
    assert.equal(res.headers.get("content-type"), "application/json");
    const v = (await res.json()) as Record<string, string>;
    assert.equal(v.major, "1");
    assert.match(v.gitVersion ?? "", /^v1\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/);
    assert.equal(v.gitVersion?.split(".")[1], v.minor);
  });

  void it("serves health endpoints, verbose listings and failures", async () => {
    for (const p of ["/healthz", "/livez", "/readyz"]) {
      const res = await s.fetch(p);
      assert.equal(res.status, 200);
      assert.equal(await res.text(), "ok");
    }
    const verbose = await (await s.fetch("/readyz?verbose")).text();
    assert.match(verbose, /\[\+\]ping ok\n\[\+\]storage ok\n\[\+\]shutdown ok\nreadyz check passed\n/);
    assert.equal(await (await s.fetch("/healthz/storage")).text(), "ok");
    healthy = false;
    try {
      const res = await s.fetch("/healthz");
      assert.equal(res.status, 500);
      assert.match(await res.text(), /\[-\]storage failed: reason withheld\n.*healthz check failed/s);
      assert.equal((await s.fetch("/healthz?exclude=storage")).status, 200);
      assert.equal((await s.fetch("/healthz/storage")).status, 500);
    } finally {
      healthy = true;
    }
    assert.equal((await s.fetch("/healthz/nope")).status, 404);
  });

  void it("counts requests in /metrics", async () => {
    await s.fetch("/api/v1/namespaces/m/configmaps");
    const text = await (await s.fetch("/metrics")).text();
    assert.match(text, /apiserver_request_total\{verb="LIST",group="",resource="configmaps",subresource="",code="200"\} \d+/);
    assert.match(text, /apiserver_request_duration_seconds_bucket\{le="0.005",verb="LIST"/);
  });
});

void describe("discovery over HTTP", () => {
  void it("answers /apis legacy unless the exact aggregated type is asked for", async () => {
    const legacy = await s.fetch("/apis", { headers: { accept: "application/json;g=apidiscovery.k8s.io;v=v3;as=APIGroupDiscoveryList,application/json" } });
    assert.equal(legacy.headers.get("content-type"), "application/json");
    assert.equal(((await legacy.json()) as { kind: string }).kind, "APIGroupList");
    for (const v of ["v2", "v2beta1"]) {
      const res = await s.fetch("/apis", { headers: { accept: `application/json;g=apidiscovery.k8s.io;v=${v};as=APIGroupDiscoveryList,application/json` } });
      assert.equal(res.headers.get("content-type"), `application/json;g=apidiscovery.k8s.io;v=${v};as=APIGroupDiscoveryList`);
      const body = (await res.json()) as { apiVersion: string; items: unknown[] };
      assert.equal(body.apiVersion, `apidiscovery.k8s.io/${v}`);
      assert.equal(body.items.length, 1);
    }
    const api = (await (await s.fetch("/api")).json()) as { kind: string; versions: string[] };
    assert.deepEqual([api.kind, api.versions], ["APIVersions", ["v1"]]);
  });

  void it("reflects registry changes at once", async () => {
    s.registry.add(widgetDef({ group: "extra.io", plural: "gizmos", kind: "Gizmo", listKind: "GizmoList", singular: "gizmo" }));
    const with_ = (await (await s.fetch("/apis")).json()) as { groups: { name: string }[] };
    assert.deepEqual(with_.groups.map((g) => g.name), ["demo.io", "extra.io"]);
    assert.equal((await s.fetch("/apis/extra.io/v1")).status, 200);
    s.registry.remove("extra.io", "v1", "gizmos");
    const without = (await (await s.fetch("/apis")).json()) as { groups: { name: string }[] };
    assert.deepEqual(without.groups.map((g) => g.name), ["demo.io"]);
    assert.equal((await s.fetch("/apis/extra.io/v1")).status, 404);
    assert.equal((await s.fetch("/apis/extra.io/v1/namespaces/n/gizmos")).status, 404);
  });
});

void describe("OpenAPI over HTTP", () => {
  void it("serves v2 as protobuf with the dotted content type when kubectl asks for it", async () => {
    const res = await s.fetch("/openapi/v2", { headers: { accept: "application/com.github.proto-openapi.spec.v2@v1.0+protobuf" } });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("content-type"), "application/com.github.proto-openapi.spec.v2.v1.0+protobuf");
    const bytes = Buffer.from(await res.arrayBuffer());
    assert.deepEqual([...bytes.subarray(0, 5)], [0x0a, 0x03, 0x32, 0x2e, 0x30]);
    const json = await s.fetch("/openapi/v2", { headers: { accept: "application/json" } });
    assert.equal(((await json.json()) as { swagger: string }).swagger, "2.0");
  });

  void it("serves the v3 index and documents with hash caching", async () => {
    const index = (await (await s.fetch("/openapi/v3")).json()) as { paths: Record<string, { serverRelativeURL: string }> };
    const url = index.paths["apis/demo.io/v1"]?.serverRelativeURL ?? "";
    const doc = await s.fetch(url);
    assert.equal(doc.status, 200);
    assert.equal(doc.headers.get("cache-control"), "public, immutable");
    const etag = doc.headers.get("etag") ?? "";
    assert.equal(((await doc.json()) as { openapi: string }).openapi, "3.0.0");
    assert.equal((await s.fetch(url, { headers: { "if-none-match": etag } })).status, 304);
    const stale = await s.fetch("/openapi/v3/apis/demo.io/v1?hash=ABC", { redirect: "manual" });
    assert.equal(stale.status, 301);
    assert.equal(stale.headers.get("location"), url);
    assert.equal((await s.fetch("/openapi/v3/apis/demo.io/v1")).headers.get("cache-control"), "no-cache, private");
  });
});
