import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { configMapDefinition } from "../registry/core/configmap/definition.ts";
import { serviceAccountDefinition } from "../registry/core/serviceaccount/definition.ts";
import { untilAsync } from "../registry/generic/testing/sink.ts";
import { newTestServer } from "../registry/generic/testing/server.ts";
import { NAMESPACES } from "./namespace-deletion.ts";
import { NamespaceDefaultsController, ROOT_CA_CONFIGMAP } from "./namespace-defaults.ts";

const SAS = { group: "", resource: "serviceaccounts" };
const CMS = { group: "", resource: "configmaps" };
const CA = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n";

describe("NamespaceDefaultsController", () => {
  it("gives every namespace its default ServiceAccount, kube-root-ca.crt and name label, and restores them", async () => {
    const s = newTestServer([serviceAccountDefinition, configMapDefinition]);
    const errors: unknown[] = [];
    const c = new NamespaceDefaultsController({ client: s.client, clock: s.clock, caPem: CA, onError: (e) => errors.push(e) });
    await s.client.create(NAMESPACES, { metadata: { name: "before" } });
    await c.start();
    await s.client.create(NAMESPACES, { metadata: { generateName: "gen-" } });
    await untilAsync(async () => (await s.client.list(SAS, undefined)).items.length === 2, "default service accounts");
    await c.idle();
    for (const ns of (await s.client.list(NAMESPACES, undefined)).items) {
      const name = ns.metadata.name!;
      assert.equal(ns.metadata.labels?.["kubernetes.io/metadata.name"], name, "a generateName namespace is labelled too");
      assert.ok(await s.client.get(SAS, name, "default"));
      const cm = await s.client.get(CMS, name, ROOT_CA_CONFIGMAP);
      assert.deepEqual(cm?.data, { "ca.crt": CA });
      assert.match(cm?.metadata.annotations?.["kubernetes.io/description"] ?? "", /^Contains a CA bundle/);
    }

    await s.client.delete(SAS, "before", "default");
    await s.client.patch(CMS, "before", ROOT_CA_CONFIGMAP, "merge", { data: { "ca.crt": "tampered" } });
    await untilAsync(async () => Boolean(await s.client.get(SAS, "before", "default")), "default recreated");
    await untilAsync(async () => ((await s.client.get(CMS, "before", ROOT_CA_CONFIGMAP))?.data as Record<string, string> | undefined)?.["ca.crt"] === CA, "CA restored");
    assert.deepEqual(errors, []);
    c.stop();
  });
});
