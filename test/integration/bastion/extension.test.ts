// The extension library's generic Bastion reconciler against a real seed API server with the
// extension CRDs (docs/bastion.md#extension-contract): which objects it takes, the operation annotation,
// lastOperation/lastError for validation and actuator errors (with codes), a missing Cluster.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { pino } from "pino";
import type { CustomResourceDefinition } from "../../../src/apis/apiextensions/v1/types.ts";
import type { ExtensionBastion } from "../../../src/apis/extensions/v1alpha1/types.ts";
import { invalid } from "../../../src/apimachinery/field/errors.ts";
import { readExtensionCRDs } from "../../../src/api/extensions/crds.ts";
import { Namespaces } from "../../../src/client/builtins.ts";
import { Client } from "../../../src/client/client.ts";
import { resourceType } from "../../../src/client/resource.ts";
import type { Controller } from "../../../src/controllerruntime/controller.ts";
import { Manager } from "../../../src/controllerruntime/manager.ts";
import { addBastionController } from "../../../src/extensions/controller/bastion/add.ts";
import { Clusters, ExtensionBastions } from "../../../src/extensions/resources.ts";
import { eventually } from "../../support/http.ts";
import { type InProcessServer, startInProcessApiServer } from "../../support/inprocess.ts";
import { HOST_KEY, TestActuator, TestValidator } from "./actuator.ts";

const CRDs = resourceType<CustomResourceDefinition>({ group: "apiextensions.k8s.io", version: "v1", kind: "CustomResourceDefinition", plural: "customresourcedefinitions", namespaced: false });
const NS = "shoot--p--x";

function ext(name: string, mut: (e: ExtensionBastion) => void = () => undefined): ExtensionBastion {
  const e: ExtensionBastion = {
    metadata: { name, namespace: NS, annotations: { "gardener.cloud/operation": "reconcile" } },
    spec: { type: "local", userData: Buffer.from("#!/bin/bash\n").toString("base64"), ingress: [{ ipBlock: { cidr: "0.0.0.0/0" } }] },
  };
  mut(e);
  return e;
}

describe("generic bastion reconciler", () => {
  let seed: InProcessServer;
  let client: Client;
  let mgr: Manager;
  const validator = new TestValidator();
  let actuator: TestActuator;
  let controller: Controller;
  const get = (name: string) => client.get(ExtensionBastions, { namespace: NS, name });
  const lastOp = (name: string, state: string) =>
    eventually(`${name} ${state}`, async () => {
      const b = await get(name);
      return b.status?.lastOperation?.state === state ? b : undefined;
    });

  before(async () => {
    seed = await startInProcessApiServer();
    client = seed.admin;
    for (const crd of readExtensionCRDs()) await client.create(CRDs, crd);
    // Every CRD the test writes to must be served, not only the first one (they are established one by one).
    await eventually("CRDs served", async () => ((await client.list(ExtensionBastions, { limit: 1 })) && (await client.list(Clusters, { limit: 1 })) ? true : undefined));
    await client.create(Namespaces, { metadata: { name: NS } });
    await client.create(Clusters, { metadata: { name: NS }, spec: { cloudProfile: {}, seed: {}, shoot: { metadata: { name: "x", namespace: "garden-p" } } } });
    mgr = new Manager({ client, server: false, defaultMetrics: false, logger: pino({ level: process.env.BASTION_LOG_LEVEL ?? "silent" }) });
    actuator = new TestActuator(client);
    ({ controller } = addBastionController(mgr, { type: "local", actuator, configValidator: validator }));
    await mgr.start();
  });
  after(async () => {
    await mgr?.stop();
    await seed?.stop();
  });

  test("takes only its type and class; consumes the reconcile request; records Create then Reconcile", async () => {
    await client.create(ExtensionBastions, ext("other-type", (e) => (e.spec.type = "aws")));
    await client.create(ExtensionBastions, ext("seed-class", (e) => (e.spec.class = "seed")));
    await client.create(ExtensionBastions, ext("ok"));
    const b = await lastOp("ok", "Succeeded");
    assert.deepEqual(b.metadata.finalizers, ["extensions.gardener.cloud/bastion"]);
    assert.equal(b.metadata.annotations?.["gardener.cloud/operation"], undefined);
    assert.deepEqual({ ...b.status?.lastOperation, lastUpdateTime: "" }, { type: "Create", state: "Succeeded", progress: 100, description: "Successfully reconciled Bastion", lastUpdateTime: "" });
    assert.equal(b.status?.observedGeneration, b.metadata.generation);
    assert.deepEqual(b.status?.providerStatus, { sshHostKeys: [HOST_KEY] });
    for (const n of ["other-type", "seed-class"]) {
      const other = await get(n);
      assert.equal(other.status?.lastOperation, undefined, `${n} is not ours`);
      assert.equal(other.metadata.finalizers, undefined);
    }
    await client.patch(ExtensionBastions, { namespace: NS, name: "ok" }, { type: "merge", body: { metadata: { annotations: { "gardener.cloud/operation": "reconcile" } }, spec: { ingress: [{ ipBlock: { cidr: "10.0.0.0/8" } }] } } });
    const again = await eventually("reconciled again", async () => {
      const x = await get("ok");
      return x.status?.lastOperation?.type === "Reconcile" && x.status.lastOperation.state === "Succeeded" ? x : undefined;
    });
    assert.equal(again.status?.observedGeneration, 2);
  });

  test("wait-for-state skips the object until the operation changes", async () => {
    await client.create(ExtensionBastions, ext("waiting", (e) => (e.metadata.annotations = { "gardener.cloud/operation": "wait-for-state" })));
    await client.create(ExtensionBastions, ext("marker"));
    await lastOp("marker", "Succeeded");
    assert.equal((await get("waiting")).status?.lastOperation, undefined);
    await client.patch(ExtensionBastions, { namespace: NS, name: "waiting" }, { type: "merge", body: { metadata: { annotations: { "gardener.cloud/operation": "reconcile" } } } });
    await lastOp("waiting", "Succeeded");
  });

  test("ConfigValidator errors fail the reconcile with ERR_CONFIGURATION_PROBLEM; the actuator is not called", async () => {
    validator.errors.set(`${NS}/badcfg`, [invalid("spec.providerConfig", { a: 1 }, "providerConfig is not supported")]);
    await client.create(ExtensionBastions, ext("badcfg"));
    const b = await lastOp("badcfg", "Error");
    const description = 'Error checking bastion config: spec.providerConfig: Invalid value: {"a":1}: providerConfig is not supported';
    assert.equal(b.status?.lastOperation?.description, description);
    assert.equal(b.status?.lastOperation?.progress, 50);
    assert.equal(b.status?.lastOperation?.type, "Create");
    assert.equal(b.status?.lastError?.description, description);
    assert.deepEqual(b.status?.lastError?.codes, ["ERR_CONFIGURATION_PROBLEM"]);
    assert.equal(b.status?.observedGeneration, 1);
    assert.equal(actuator.count("reconcile", `${NS}/badcfg`), 0);
    validator.errors.delete(`${NS}/badcfg`);
    const fixed = await lastOp("badcfg", "Succeeded"); // retried with backoff
    assert.equal(fixed.status?.lastError, undefined);
  });

  test("actuator errors carry their codes; a missing Cluster is an error until it appears", async () => {
    actuator.fail(`${NS}/coded`, "the quota is exhausted", ["ERR_INFRA_QUOTA_EXCEEDED"]);
    await client.create(ExtensionBastions, ext("coded"));
    const b = await lastOp("coded", "Error");
    assert.equal(b.status?.lastError?.description, "Error reconciling Bastion: the quota is exhausted");
    assert.deepEqual(b.status?.lastError?.codes, ["ERR_INFRA_QUOTA_EXCEEDED"]);
    actuator.clearFailure(`${NS}/coded`);
    await lastOp("coded", "Succeeded");

    const orphanNs = "shoot--p--orphan";
    await client.create(Namespaces, { metadata: { name: orphanNs } });
    await client.create(ExtensionBastions, ext("orphan", (e) => (e.metadata.namespace = orphanNs)));
    // A reconcile that failed is requeued with backoff: once the key counts a requeue, at least one
    // attempt has run to its end without a Cluster.
    await eventually("an attempt without a Cluster to fail", () => (controller.queue.numRequeues(`${orphanNs}/orphan`) > 0 ? true : undefined));
    const waiting = await client.get(ExtensionBastions, { namespace: orphanNs, name: "orphan" });
    assert.equal(waiting.status?.lastOperation, undefined, "nothing recorded without a Cluster");
    assert.equal(waiting.metadata.annotations?.["gardener.cloud/operation"], undefined, "the request was consumed before the Cluster was read");
    await client.create(Clusters, { metadata: { name: orphanNs }, spec: { cloudProfile: {}, seed: {}, shoot: {} } });
    await eventually("orphan reconciled", async () => ((await client.get(ExtensionBastions, { namespace: orphanNs, name: "orphan" })).status?.lastOperation?.state === "Succeeded" ? true : undefined));
  });
});
