import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { formatFieldError } from "../../apimachinery/field/errors.ts";
import { crdDefinition } from "../../apiserver/registry/apiextensions/customresourcedefinition/definition.ts";
import { simulateCreate } from "../../apiserver/registry/core/testing.ts";
import { compileSchema } from "../../apiserver/schema/compile.ts";
import { readExtensionCRDs } from "./crds.ts";
import { bastionUserDataBase64 } from "./userdata.ts";

const [bastions, clusters] = readExtensionCRDs();

describe("seed CRD manifests (docs/bastion.md#cluster, docs/bastion.md#the-seed-bastion)", () => {
  it("define bastions and clusters of extensions.gardener.cloud with Gardener's names", () => {
    assert.equal(bastions!.metadata.name, "bastions.extensions.gardener.cloud");
    assert.deepEqual(bastions!.spec.names, { kind: "Bastion", listKind: "BastionList", plural: "bastions", singular: "bastion" });
    assert.equal(bastions!.spec.scope, "Namespaced");
    assert.deepEqual(bastions!.metadata.labels, { "gardener.cloud/deletion-protected": "true" });
    const v = bastions!.spec.versions[0]!;
    assert.deepEqual([v.name, v.served, v.storage, v.subresources], ["v1alpha1", true, true, { status: {} }]);
    assert.deepEqual(v.additionalPrinterColumns?.map((c) => [c.name, c.type, c.jsonPath]), [
      ["IP", "string", ".status.ingress.ip"],
      ["Hostname", "string", ".status.ingress.hostname"],
      ["Age", "date", ".metadata.creationTimestamp"],
    ]);
    assert.deepEqual(v.schema?.openAPIV3Schema?.properties?.spec?.properties?.class?.["x-kubernetes-validations"], [{ rule: "self == oldSelf", message: "Value is immutable" }]);

    assert.equal(clusters!.metadata.name, "clusters.extensions.gardener.cloud");
    assert.equal(clusters!.spec.scope, "Cluster");
    assert.equal(clusters!.spec.versions[0]!.subresources, undefined);
  });

  it("are accepted by our own API server's CRD validation", () => {
    for (const crd of [bastions!, clusters!]) assert.deepEqual(simulateCreate(crdDefinition, crd).errors, [], crd.metadata.name);
  });

  it("validate extension Bastions and keep Clusters' embedded objects", () => {
    const bastionSchema = compileSchema(bastions!.spec.versions[0]!.schema!.openAPIV3Schema!);
    const ok = {
      apiVersion: "extensions.gardener.cloud/v1alpha1",
      kind: "Bastion",
      metadata: { name: "b", namespace: "shoot--dev--local" },
      spec: { type: "local", userData: bastionUserDataBase64("ssh-ed25519 AAAA"), ingress: [{ ipBlock: { cidr: "1.2.3.4/32", except: ["1.2.3.4/32"] } }] },
      status: { providerStatus: { sshHostKeys: ["ssh-ed25519 AAAA"] }, lastOperation: { description: "d", lastUpdateTime: "2026-01-01T00:00:00Z", progress: 100, state: "Succeeded", type: "Create" } },
    };
    assert.deepEqual(bastionSchema.prune(structuredClone(ok)), []);
    assert.deepEqual(bastionSchema.validate(ok), []);
    const bad = { ...ok, spec: { type: "local", userData: "not base64!", class: "other" } };
    assert.deepEqual(bastionSchema.validate(bad).map(formatFieldError), [
      "spec.ingress: Required value",
      'spec.userData: Invalid value: "<value omitted>": spec.userData in body must be of type byte',
      'spec.class: Unsupported value: "other": supported values: "garden", "seed", "shoot"',
    ]);

    const clusterSchema = compileSchema(clusters!.spec.versions[0]!.schema!.openAPIV3Schema!);
    const cluster = { metadata: { name: "shoot--dev--local" }, spec: { cloudProfile: {}, seed: { metadata: { name: "local" } }, shoot: { metadata: { name: "local", namespace: "garden-dev" }, spec: { provider: { type: "local" } } } } };
    assert.deepEqual(clusterSchema.prune(structuredClone(cluster)), []);
    assert.deepEqual(clusterSchema.validate(cluster), []);
  });
});
