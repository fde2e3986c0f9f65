import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { exactFieldMatch, parseBool, parseRequestInfo } from "./requestinfo.ts";

function pick(method: string, url: string) {
  const i = parseRequestInfo(method, url);
  return {
    isResourceRequest: i.isResourceRequest,
    verb: i.verb,
    apiPrefix: i.apiPrefix,
    apiGroup: i.apiGroup,
    apiVersion: i.apiVersion,
    namespace: i.namespace,
    resource: i.resource,
    subresource: i.subresource,
    name: i.name,
  };
}

const base = { isResourceRequest: true, apiPrefix: "api", apiGroup: "", apiVersion: "v1", namespace: "", subresource: "", name: "" };

void describe("parseRequestInfo", () => {
  void it("treats /api/v1/namespaces/x as the namespace resource named x", () => {
    assert.deepEqual(pick("GET", "/api/v1/namespaces/x"), { ...base, verb: "get", namespace: "x", resource: "namespaces", name: "x" });
  });

  void it("parses namespace subresources", () => {
    assert.deepEqual(pick("PUT", "/api/v1/namespaces/x/status"), {
      ...base,
      verb: "update",
      namespace: "x",
      resource: "namespaces",
      name: "x",
      subresource: "status",
    });
    assert.equal(pick("PUT", "/api/v1/namespaces/x/finalize").subresource, "finalize");
  });

  void it("lists namespaces and creates them", () => {
    assert.deepEqual(pick("GET", "/api/v1/namespaces"), { ...base, verb: "list", resource: "namespaces" });
    assert.deepEqual(pick("POST", "/api/v1/namespaces"), { ...base, verb: "create", resource: "namespaces" });
  });

  void it("parses a namespaced group resource with a subresource", () => {
    assert.deepEqual(pick("PATCH", "/apis/g.io/v1/namespaces/n/widgets/w1/status"), {
      isResourceRequest: true,
      verb: "patch",
      apiPrefix: "apis",
      apiGroup: "g.io",
      apiVersion: "v1",
      namespace: "n",
      resource: "widgets",
      subresource: "status",
      name: "w1",
    });
  });

  void it("maps methods to verbs", () => {
    assert.equal(pick("GET", "/api/v1/namespaces/n/configmaps/c").verb, "get");
    assert.equal(pick("HEAD", "/api/v1/namespaces/n/configmaps/c").verb, "get");
    assert.equal(pick("GET", "/api/v1/namespaces/n/configmaps").verb, "list");
    assert.equal(pick("GET", "/api/v1/namespaces/n/configmaps?watch=true").verb, "watch");
    assert.equal(pick("GET", "/api/v1/namespaces/n/configmaps?watch=1").verb, "watch");
    assert.equal(pick("GET", "/api/v1/namespaces/n/configmaps?watch=false").verb, "list");
    assert.equal(pick("GET", "/api/v1/namespaces/n/configmaps?watch=0").verb, "list");
    assert.equal(pick("POST", "/api/v1/namespaces/n/configmaps").verb, "create");
    assert.equal(pick("PUT", "/api/v1/namespaces/n/configmaps/c").verb, "update");
    assert.equal(pick("PATCH", "/api/v1/namespaces/n/configmaps/c").verb, "patch");
    assert.equal(pick("DELETE", "/api/v1/namespaces/n/configmaps/c").verb, "delete");
    assert.equal(pick("DELETE", "/api/v1/namespaces/n/configmaps").verb, "deletecollection");
  });

  void it("lists across all namespaces", () => {
    assert.deepEqual(pick("GET", "/api/v1/configmaps"), { ...base, verb: "list", resource: "configmaps" });
  });

  void it("handles the legacy watch prefix", () => {
    assert.deepEqual(pick("GET", "/api/v1/watch/namespaces/n/configmaps"), { ...base, verb: "watch", namespace: "n", resource: "configmaps" });
    assert.deepEqual(pick("GET", "/apis/g.io/v1/watch/namespaces/n/widgets/w1"), {
      ...base,
      apiPrefix: "apis",
      apiGroup: "g.io",
      verb: "watch",
      namespace: "n",
      resource: "widgets",
      name: "w1",
    });
  });

  void it("sets the name from a metadata.name field selector for list and watch", () => {
    const list = parseRequestInfo("GET", "/api/v1/namespaces/n/configmaps?fieldSelector=metadata.name%3Dc1");
    assert.equal(list.verb, "list");
    assert.equal(list.name, "c1");
    assert.equal(list.nameInPath, false);
    const watch = pick("GET", "/api/v1/namespaces/n/configmaps?watch=true&fieldSelector=metadata.name%3D%3Dc2,metadata.namespace%3Dn");
    assert.equal(watch.verb, "watch");
    assert.equal(watch.name, "c2");
    assert.equal(pick("GET", "/api/v1/namespaces/n/configmaps?fieldSelector=metadata.name!%3Dc1").name, "");
    assert.equal(pick("GET", "/api/v1/namespaces/n/configmaps?fieldSelector=metadata.name%3D..").name, "");
  });

  void it("does not let a field selector turn deletecollection into delete", () => {
    assert.equal(pick("DELETE", "/api/v1/namespaces/n/configmaps?fieldSelector=metadata.name%3Dc1").verb, "deletecollection");
  });

  void it("returns non-resource requests for other paths", () => {
    for (const p of ["/healthz", "/version", "/api", "/api/v1", "/apis", "/apis/g.io", "/apis/g.io/v1", "/openapi/v3/apis/g/v1"]) {
      const i = parseRequestInfo("GET", p);
      assert.equal(i.isResourceRequest, false, p);
      assert.equal(i.verb, "get", p);
      assert.equal(i.path, p);
    }
    assert.equal(parseRequestInfo("POST", "/foo/bar/baz").verb, "post");
  });

  void it("needs something after a special verb", () => {
    assert.equal(parseRequestInfo("GET", "/api/v1/watch").isResourceRequest, false);
  });

  void it("keeps extra parts", () => {
    const i = parseRequestInfo("GET", "/api/v1/namespaces/n/pods/p/exec?command=ls");
    assert.equal(i.subresource, "exec");
    assert.deepEqual(i.parts, ["pods", "p", "exec"]);
  });
});

void describe("exactFieldMatch", () => {
  void it("unescapes values", () => {
    assert.equal(exactFieldMatch("metadata.name=a\\,b", "metadata.name"), "a,b");
    assert.equal(exactFieldMatch("spec.x=1,metadata.name==y", "metadata.name"), "y");
    assert.equal(exactFieldMatch("spec.x=1", "metadata.name"), undefined);
  });
});

void describe("parseBool", () => {
  void it("follows strconv.ParseBool", () => {
    assert.equal(parseBool("T"), true);
    assert.equal(parseBool("False"), false);
    assert.equal(parseBool("yes"), undefined);
    assert.equal(parseBool(null), undefined);
  });
});
