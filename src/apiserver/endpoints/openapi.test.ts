import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ResourceRegistry } from "../registry/registry.ts";
import { minimalOpenAPIV2Protobuf, OpenAPIService, openAPIV2Document, openAPIV3Document } from "./openapi.ts";
import { schemaName } from "./openapi-schemas.ts";
import { configMapDef, widgetDef } from "./testing.ts";

type Op = { parameters?: { name: string; in: string }[]; requestBody?: { content: Record<string, unknown> }; "x-kubernetes-group-version-kind"?: unknown; consumes?: string[] };
type Doc = { paths: Record<string, Record<string, Op>>; components: { schemas: Record<string, Record<string, unknown>> } };

void describe("OpenAPI v2 protobuf", () => {
  void it("encodes the minimal gnostic document byte for byte", () => {
    const bytes = minimalOpenAPIV2Protobuf("Kubernetes", "v1.30.0");
    const expected = Buffer.concat([
      Buffer.from([0x0a, 0x03, 0x32, 0x2e, 0x30, 0x12, 0x15, 0x0a, 0x0a]),
      Buffer.from("Kubernetes"),
      Buffer.from([0x12, 0x07]),
      Buffer.from("v1.30.0"),
    ]);
    assert.deepEqual(bytes, expected);
    assert.deepEqual([...bytes.subarray(0, 9)], [0x0a, 0x03, 0x32, 0x2e, 0x30, 0x12, 0x15, 0x0a, 0x0a]);
  });

  void it("uses multi-byte varints for long fields", () => {
    const bytes = minimalOpenAPIV2Protobuf("t".repeat(200), "v");
    // info length = 2 + 1 + 200 (title field with 2-byte length) + 3 = 206 -> varint ce 01
    assert.deepEqual([...bytes.subarray(5, 8)], [0x12, 0xce, 0x01]);
    assert.deepEqual([...bytes.subarray(8, 11)], [0x0a, 0xc8, 0x01]);
  });
});

void describe("OpenAPI v3", () => {
  const doc = openAPIV3Document([widgetDef()], { title: "Kubernetes", version: "v1.30.0" }) as unknown as Doc;

  void it("gives PATCH operations the GVK and the fieldValidation and dryRun query parameters", () => {
    const item = doc.paths["/apis/demo.io/v1/namespaces/{namespace}/widgets/{name}"];
    const patch = item?.patch;
    assert.ok(patch);
    assert.deepEqual(patch["x-kubernetes-group-version-kind"], { group: "demo.io", version: "v1", kind: "Widget" });
    const query = (patch.parameters ?? []).filter((p) => p.in === "query").map((p) => p.name);
    assert.ok(query.includes("fieldValidation"));
    assert.ok(query.includes("dryRun"));
    assert.ok(query.includes("fieldManager"));
    const status = doc.paths["/apis/demo.io/v1/namespaces/{namespace}/widgets/{name}/status"]?.patch;
    assert.ok((status?.parameters ?? []).some((p) => p.name === "fieldValidation" && p.in === "query"));
  });

  void it("advertises SMP only for kinds that implement it", () => {
    const patch = doc.paths["/apis/demo.io/v1/namespaces/{namespace}/widgets/{name}"]?.patch;
    assert.deepEqual(Object.keys(patch?.requestBody?.content ?? {}), ["application/json-patch+json", "application/merge-patch+json", "application/apply-patch+yaml"]);
    const cm = openAPIV3Document([configMapDef()], { title: "K", version: "v" }) as unknown as Doc;
    const cmPatch = cm.paths["/api/v1/namespaces/{namespace}/configmaps/{name}"]?.patch;
    assert.ok(Object.keys(cmPatch?.requestBody?.content ?? {}).includes("application/strategic-merge-patch+json"));
    assert.ok(cm.components.schemas["io.k8s.api.core.v1.ConfigMap"]);
  });

  void it("names component schemas and tags them with their GVK", () => {
    const widget = doc.components.schemas["io.demo.v1.Widget"];
    assert.ok(widget);
    assert.deepEqual(widget["x-kubernetes-group-version-kind"], [{ group: "demo.io", kind: "Widget", version: "v1" }]);
    const props = widget.properties as Record<string, Record<string, unknown>>;
    assert.deepEqual(props.metadata?.allOf, [{ $ref: "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta" }]);
    assert.ok(doc.components.schemas["io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"]);
    assert.deepEqual(doc.components.schemas["io.demo.v1.WidgetList"]?.["x-kubernetes-group-version-kind"], [{ group: "demo.io", kind: "WidgetList", version: "v1" }]);
    assert.equal(schemaName("operations.gardener.cloud", "v1alpha1", "Bastion"), "cloud.gardener.operations.v1alpha1.Bastion");
    assert.equal(schemaName("rbac.authorization.k8s.io", "v1", "Role"), "io.k8s.api.rbac.v1.Role");
  });

  void it("lists only the operations the verbs allow", () => {
    const review = openAPIV3Document([widgetDef({ plural: "reviews", kind: "Review", verbs: ["create"], namespaced: false, hasStatus: false })], { title: "K", version: "v" }) as unknown as Doc;
    assert.deepEqual(Object.keys(review.paths), ["/apis/demo.io/v1/reviews"]);
    assert.ok(review.paths["/apis/demo.io/v1/reviews"]?.post);
    assert.equal(review.paths["/apis/demo.io/v1/reviews"]?.get, undefined);
  });

  void it("builds a swagger 2.0 JSON document without v3-only keywords", () => {
    const v2 = openAPIV2Document([widgetDef()], { title: "K", version: "v" }) as { swagger: string; definitions: Record<string, unknown>; paths: Record<string, Record<string, Op>> };
    assert.equal(v2.swagger, "2.0");
    assert.ok(!JSON.stringify(v2.definitions).includes("nullable"));
    const patch = v2.paths["/apis/demo.io/v1/namespaces/{namespace}/widgets/{name}"]?.patch;
    assert.deepEqual(patch?.consumes, ["application/json-patch+json", "application/merge-patch+json", "application/apply-patch+yaml"]);
    assert.ok(patch?.parameters?.some((p) => p.name === "dryRun" && p.in === "query"));
  });

  void it("indexes group-versions with content hashes that change with the registry", () => {
    const registry = new ResourceRegistry();
    registry.add(configMapDef());
    registry.add(widgetDef());
    const svc = new OpenAPIService(registry, { title: "Kubernetes", version: "v1.30.0" });
    const index = svc.v3Index() as { paths: Record<string, { serverRelativeURL: string }> };
    assert.deepEqual(Object.keys(index.paths), ["api/v1", "apis/demo.io/v1"]);
    const before = index.paths["apis/demo.io/v1"]?.serverRelativeURL;
    assert.match(before ?? "", /^\/openapi\/v3\/apis\/demo\.io\/v1\?hash=[0-9A-F]{128}$/);
    registry.add(widgetDef({ plural: "gizmos", kind: "Gizmo", listKind: "GizmoList", singular: "gizmo" }));
    const after = (svc.v3Index() as { paths: Record<string, { serverRelativeURL: string }> }).paths["apis/demo.io/v1"]?.serverRelativeURL;
    assert.notEqual(after, before);
    assert.equal((svc.v3Index() as { paths: Record<string, unknown> }).paths["api/v1"] !== undefined, true);
    registry.remove("demo.io", "v1", "widgets");
    registry.remove("demo.io", "v1", "gizmos");
    assert.deepEqual(Object.keys((svc.v3Index() as { paths: Record<string, unknown> }).paths), ["api/v1"]);
  });
});
