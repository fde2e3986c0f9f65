import { test } from "node:test";
import assert from "node:assert/strict";
import { ApiException } from "@kubernetes/client-node";
import { StatusError, isConflict, isNotFound } from "../apimachinery/errors.ts";
import { ConfigMaps, Namespaces } from "./builtins.ts";
import { Client } from "./client.ts";
import { fromApiException, statusErrorFromResponse } from "./errors.ts";
import { resourceType } from "./resource.ts";
import { sendJson, startFakeApi, statusBody } from "./testing.ts";

test("a 404 Status becomes a StatusError that isNotFound recognises, with details kept", async (t) => {
  const api = await startFakeApi((_req, res) =>
    sendJson(res, 404, statusBody(404, "NotFound", 'configmaps "x" not found', { name: "x", kind: "configmaps" })),
  );
  t.after(() => api.close());
  const c = new Client(api.kubeConfig);
  const err = await c.get(ConfigMaps, { namespace: "ns", name: "x" }).catch((e: unknown) => e);
  assert.ok(err instanceof StatusError);
  assert.equal(isNotFound(err), true);
  assert.equal(err.code, 404);
  assert.equal(err.message, 'configmaps "x" not found');
  assert.equal(err.details?.name, "x");
  assert.equal(api.requests[0]!.url, "/api/v1/namespaces/ns/configmaps/x");
  assert.equal(api.requests[0]!.headers.authorization, "Bearer test-token");
  c.close();
});

test("answers without a Status body still get the reason of their code", () => {
  const e1 = statusErrorFromResponse(503, "<html>upstream down</html>");
  assert.equal(e1.reason, "ServiceUnavailable");
  assert.equal(e1.code, 503);
  const e2 = statusErrorFromResponse(409, "");
  assert.equal(isConflict(e2), true);
  const e3 = statusErrorFromResponse(410, JSON.stringify({ kind: "Status", code: 410, message: "too old" }));
  assert.equal(e3.reason, "Gone", "a Status without reason gets the code's reason");
});

test("client-node ApiExceptions map to StatusErrors with the exception as cause", () => {
  const body = JSON.stringify(statusBody(409, "Conflict", "the object has been modified"));
  const mapped = fromApiException(new ApiException(409, "Conflict", body, {}));
  assert.ok(mapped instanceof StatusError);
  assert.equal(isConflict(mapped), true);
  assert.ok(mapped.cause instanceof ApiException);
  const other = new Error("x");
  assert.equal(fromApiException(other), other);
});

test("writes go to the right paths with type meta, field manager, dry run and patch content types", async (t) => {
  const api = await startFakeApi((req, res) => {
    const body = req.body ? (JSON.parse(req.body) as Record<string, unknown>) : {};
    sendJson(res, req.method === "POST" ? 201 : 200, { ...body, metadata: { name: "x", namespace: "ns", resourceVersion: "2" } });
  });
  t.after(() => api.close());
  const c = new Client(api.kubeConfig, { fieldManager: "tester" });
  await c.create(ConfigMaps, { metadata: { name: "x", namespace: "ns" }, data: { a: "1" } });
  await c.update(ConfigMaps, { metadata: { name: "x", namespace: "ns", resourceVersion: "2" } }, { dryRun: true });
  const Widgets = resourceType({ group: "demo.io", version: "v1", kind: "Widget", plural: "widgets", namespaced: true });
  await c.updateStatus(Widgets, { metadata: { name: "w", namespace: "ns" }, status: { ok: true } });
  for (const type of ["merge", "json", "strategic", "apply"] as const) {
    await c.patch(ConfigMaps, { namespace: "ns", name: "x" }, { type, body: type === "json" ? [] : { data: { b: "2" } } }, { force: true });
  }
  await c.patchStatus(Widgets, { namespace: "ns", name: "w" }, { type: "merge", body: { status: { ok: false } } });
  await c.create(Namespaces, { metadata: { name: "team-a" } });
  await c.delete(ConfigMaps, { namespace: "ns", name: "x" }, { propagationPolicy: "Foreground", gracePeriodSeconds: 0 });
  const seen = api.requests.map((r) => `${r.method} ${r.url} ${r.headers["content-type"] ?? ""}`);
  assert.deepEqual(seen, [
    "POST /api/v1/namespaces/ns/configmaps?fieldManager=tester application/json",
    "PUT /api/v1/namespaces/ns/configmaps/x?fieldManager=tester&dryRun=All application/json",
    "PUT /apis/demo.io/v1/namespaces/ns/widgets/w/status?fieldManager=tester application/json",
    "PATCH /api/v1/namespaces/ns/configmaps/x?fieldManager=tester application/merge-patch+json",
    "PATCH /api/v1/namespaces/ns/configmaps/x?fieldManager=tester application/json-patch+json",
    "PATCH /api/v1/namespaces/ns/configmaps/x?fieldManager=tester application/strategic-merge-patch+json",
    "PATCH /api/v1/namespaces/ns/configmaps/x?fieldManager=tester&force=true application/apply-patch+yaml",
    "PATCH /apis/demo.io/v1/namespaces/ns/widgets/w/status?fieldManager=tester application/merge-patch+json",
    "POST /api/v1/namespaces?fieldManager=tester application/json",
    "DELETE /api/v1/namespaces/ns/configmaps/x application/json",
  ]);
  const created = JSON.parse(api.requests[0]!.body) as Record<string, unknown>;
  assert.equal(created.apiVersion, "v1");
  assert.equal(created.kind, "ConfigMap");
  assert.deepEqual(JSON.parse(api.requests[2]!.body), { apiVersion: "demo.io/v1", kind: "Widget", metadata: { name: "w", namespace: "ns" }, status: { ok: true } });
  assert.deepEqual(JSON.parse(api.requests.at(-1)!.body), { apiVersion: "v1", kind: "DeleteOptions", gracePeriodSeconds: 0, propagationPolicy: "Foreground" });
  await assert.rejects(() => c.create(ConfigMaps, { metadata: { name: "no-namespace" } }), /needs a namespace/);
  c.close();
});

test("listAll follows continue tokens and fills in apiVersion and kind of items", async (t) => {
  const api = await startFakeApi((req, res) => {
    const u = new URL(req.url ?? "", "http://x");
    const cont = u.searchParams.get("continue");
    assert.equal(u.searchParams.get("limit"), "2");
    assert.equal(u.searchParams.get("labelSelector"), "app=x");
    if (!cont) return sendJson(res, 200, { metadata: { resourceVersion: "50", continue: "p2" }, items: [{ metadata: { name: "a" } }, { metadata: { name: "b" } }] });
    assert.equal(u.searchParams.get("resourceVersion"), null, "continue requests carry no resourceVersion");
    sendJson(res, 200, { metadata: { resourceVersion: "50" }, items: [{ metadata: { name: "c" } }] });
  });
  t.after(() => api.close());
  const c = new Client(api.kubeConfig);
  const l = await c.listAll(ConfigMaps, { namespace: "ns", labelSelector: "app=x", pageSize: 2 });
  assert.deepEqual(l.items.map((i) => i.metadata.name), ["a", "b", "c"]);
  assert.equal(l.metadata.resourceVersion, "50");
  assert.equal(l.metadata.continue, undefined);
  assert.equal(l.items[2]!.kind, "ConfigMap");
  assert.equal(api.requests.length, 2);
  c.close();
});
