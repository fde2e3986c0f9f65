import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { compileSchema } from "../schema/compile.ts";
import { builtinDefinitions } from "./builtin.ts";

describe("builtinDefinitions", () => {
  const defs = builtinDefinitions();

  it("lists every built-in kind once", () => {
    const ids = defs.map((d) => `${d.group}/${d.version}/${d.plural}`);
    assert.deepEqual(ids.sort(), [
      "/v1/configmaps",
      "/v1/endpoints",
      "/v1/events",
      "/v1/namespaces",
      "/v1/nodes",
      "/v1/persistentvolumeclaims",
      "/v1/persistentvolumes",
      "/v1/pods",
      "/v1/replicationcontrollers",
      "/v1/secrets",
      "/v1/serviceaccounts",
      "/v1/services",
      "admissionregistration.k8s.io/v1/mutatingwebhookconfigurations",
      "admissionregistration.k8s.io/v1/validatingwebhookconfigurations",
      "apiextensions.k8s.io/v1/customresourcedefinitions",
      "apps/v1/daemonsets",
      "apps/v1/deployments",
      "apps/v1/replicasets",
      "apps/v1/statefulsets",
      "batch/v1/cronjobs",
      "batch/v1/jobs",
      "coordination.k8s.io/v1/leases",
      "discovery.k8s.io/v1/endpointslices",
      "networking.k8s.io/v1/ingresses",
      "rbac.authorization.k8s.io/v1/clusterrolebindings",
      "rbac.authorization.k8s.io/v1/clusterroles",
      "rbac.authorization.k8s.io/v1/rolebindings",
      "rbac.authorization.k8s.io/v1/roles",
    ]);
  });

  it("gives every kind a whole-object schema, a table and strategic merge patch", () => {
    for (const d of defs) {
      const props = d.schema.properties ?? {};
      assert.equal(d.schema.type, "object", d.kind);
      for (const f of ["apiVersion", "kind", "metadata"]) assert.ok(props[f], `${d.kind}.${f}`);
      assert.equal(d.strategicMergePatch, true, d.kind);
      assert.ok(d.table && d.table.columns.length > 0, d.kind);
      assert.equal(d.listKind, `${d.kind}List`);
      // Every schema compiles and accepts a minimal object of its kind.
      const errs = compileSchema(d.schema).validate({ apiVersion: d.group ? `${d.group}/v1` : "v1", kind: d.kind, metadata: { name: "x" } });
      const allowed = new Set(["involvedObject", "roleRef", "spec", "addressType", "endpoints"]);
      assert.ok(errs.every((e) => allowed.has(e.field)), `${d.kind}: ${JSON.stringify(errs)}`);
    }
  });

  it("returns cells matching the columns for an empty object", () => {
    for (const d of defs) {
      const cells = d.table!.cells({ metadata: { name: "x" } }, new Date());
      assert.equal(cells.length, d.table!.columns.length, d.kind);
    }
  });
});
