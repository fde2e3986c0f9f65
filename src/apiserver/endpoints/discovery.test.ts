import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { aggregatedDiscovery, apiGroup, apiGroupList, apiResourceList, apiVersions, compareVersions } from "./discovery.ts";
import { configMapDef, widgetDef } from "./testing.ts";

const token = {
  verbs: ["create"],
  responseKind: { group: "authentication.k8s.io", version: "v1", kind: "TokenRequest" },
  handle: () => Promise.resolve({ status: 201, body: {} }),
};
const defs = [
  configMapDef(),
  widgetDef(),
  widgetDef({ version: "v1alpha1" }),
  widgetDef({ version: "v2beta1" }),
  { ...configMapDef(), kind: "ServiceAccount", listKind: "ServiceAccountList", plural: "serviceaccounts", singular: "serviceaccount", shortNames: ["sa"], subresources: { token } },
];

void describe("legacy discovery", () => {
  void it("lists the core versions in APIVersions", () => {
    assert.deepEqual(apiVersions(defs, "10.0.0.1:6443"), {
      kind: "APIVersions",
      versions: ["v1"],
      serverAddressByClientCIDRs: [{ clientCIDR: "0.0.0.0/0", serverAddress: "10.0.0.1:6443" }],
    });
    assert.equal(apiVersions([widgetDef()], "x"), undefined);
  });

  void it("lists groups with versions in preference order", () => {
    const list = apiGroupList(defs) as { kind: string; apiVersion: string; groups: { name: string; versions: unknown[]; preferredVersion: unknown }[] };
    assert.equal(list.kind, "APIGroupList");
    assert.equal(list.apiVersion, "v1");
    assert.deepEqual(
      list.groups.map((g) => g.name),
      ["demo.io"],
    );
    assert.deepEqual(list.groups[0]?.versions, [
      { groupVersion: "demo.io/v1", version: "v1" },
      { groupVersion: "demo.io/v2beta1", version: "v2beta1" },
      { groupVersion: "demo.io/v1alpha1", version: "v1alpha1" },
    ]);
    assert.deepEqual(list.groups[0]?.preferredVersion, { groupVersion: "demo.io/v1", version: "v1" });
    assert.equal((apiGroup(defs, "demo.io") as { kind: string }).kind, "APIGroup");
    assert.equal(apiGroup(defs, "nope.io"), undefined);
  });

  void it("orders versions like kube", () => {
    assert.deepEqual(["v1alpha1", "foo", "v2", "v1beta2", "v1", "v1beta1", "v11alpha2"].sort(compareVersions), [
      "v2",
      "v1",
      "v1beta2",
      "v1beta1",
      "v11alpha2",
      "v1alpha1",
      "foo",
    ]);
  });

  void it("lists resources with subresources as <r>/<sub>", () => {
    const list = apiResourceList(defs, "demo.io", "v1") as { groupVersion: string; resources: Record<string, unknown>[] };
    assert.equal(list.groupVersion, "demo.io/v1");
    const [main, status] = list.resources;
    assert.deepEqual({ ...main, storageVersionHash: undefined }, {
      name: "widgets",
      singularName: "widget",
      namespaced: true,
      kind: "Widget",
      verbs: ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"],
      shortNames: ["wd"],
      categories: ["all"],
      storageVersionHash: undefined,
    });
    assert.equal(typeof main?.storageVersionHash, "string");
    assert.deepEqual(status, { name: "widgets/status", singularName: "", namespaced: true, kind: "Widget", verbs: ["get", "patch", "update"] });
    const core = apiResourceList(defs, "", "v1") as { groupVersion: string; resources: Record<string, unknown>[] };
    assert.equal(core.groupVersion, "v1");
    assert.deepEqual(
      core.resources.map((r) => r.name),
      ["configmaps", "serviceaccounts", "serviceaccounts/token"],
    );
    assert.deepEqual(core.resources[2], {
      name: "serviceaccounts/token",
      singularName: "",
      namespaced: true,
      group: "authentication.k8s.io",
      version: "v1",
      kind: "TokenRequest",
      verbs: ["create"],
    });
    assert.equal(apiResourceList(defs, "demo.io", "v9"), undefined);
  });
});

void describe("aggregated discovery", () => {
  void it("answers /apis with every non-core group and /api with the core group", () => {
    const apis = aggregatedDiscovery(defs, "v2", false) as { apiVersion: string; kind: string; items: { metadata: { name: string }; versions: { version: string; freshness: string; resources: Record<string, unknown>[] }[] }[] };
    assert.equal(apis.kind, "APIGroupDiscoveryList");
    assert.equal(apis.apiVersion, "apidiscovery.k8s.io/v2");
    assert.deepEqual(apis.items.map((i) => i.metadata.name), ["demo.io"]);
    assert.deepEqual(apis.items[0]?.versions.map((v) => v.version), ["v1", "v2beta1", "v1alpha1"]);
    const widget = apis.items[0]?.versions[0]?.resources[0];
    assert.deepEqual(widget, {
      resource: "widgets",
      responseKind: { group: "demo.io", version: "v1", kind: "Widget" },
      scope: "Namespaced",
      singularResource: "widget",
      verbs: ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"],
      shortNames: ["wd"],
      categories: ["all"],
      subresources: [{ subresource: "status", responseKind: { group: "demo.io", version: "v1", kind: "Widget" }, verbs: ["get", "patch", "update"] }],
    });
    assert.equal(apis.items[0]?.versions[0]?.freshness, "Current");

    const api = aggregatedDiscovery(defs, "v2beta1", true) as { apiVersion: string; items: { metadata: { name: string }; versions: { resources: { resource: string; subresources?: unknown[] }[] }[] }[] };
    assert.equal(api.apiVersion, "apidiscovery.k8s.io/v2beta1");
    assert.deepEqual(api.items.map((i) => i.metadata.name), [""]);
    const sa = api.items[0]?.versions[0]?.resources.find((r) => r.resource === "serviceaccounts");
    assert.deepEqual(sa?.subresources, [{ subresource: "token", responseKind: token.responseKind, verbs: ["create"] }]);
  });
});
