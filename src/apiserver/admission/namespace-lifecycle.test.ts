import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { rejects } from "../registry/generic/testing/assert.ts";
import { gadgetDefinition, widget, widgetDefinition } from "../registry/generic/testing/fixtures.ts";
import { newTestServer } from "../registry/generic/testing/server.ts";
import type { InternalClient } from "../registry/client.ts";
import type { AdmissionAttributes } from "./types.ts";
import { NAMESPACES, NamespaceLifecycle } from "./namespace-lifecycle.ts";

const WIDGETS = { group: "demo.io", resource: "widgets" };

describe("NamespaceLifecycle", () => {
  it("rejects objects in a namespace that does not exist with 404", async () => {
    const s = newTestServer([widgetDefinition(), gadgetDefinition()]);
    const err = await rejects(s.client.create(WIDGETS, widget("w1", {}, { namespace: "missing" })), 404, "NotFound", 'namespaces "missing" not found');
    assert.equal(err.details?.kind, "namespaces");
    // Cluster-scoped objects do not need a namespace.
    await s.client.create({ group: "", resource: "gadgets" }, { metadata: { name: "g" } });
    await s.client.create(NAMESPACES, { metadata: { name: "ns1" } });
    const w = await s.client.create(WIDGETS, widget("w1", {}, { namespace: "ns1" }));
    assert.equal(w.metadata.namespace, "ns1");
  });

  it("rejects new objects in a terminating namespace with 403, but allows updates and deletes there", async () => {
    const s = newTestServer([widgetDefinition()]);
    await s.client.create(NAMESPACES, { metadata: { name: "ns1" } });
    await s.client.create(WIDGETS, widget("w1", {}, { namespace: "ns1" }));
    await s.client.delete(NAMESPACES, undefined, "ns1");
    const ns = await s.client.get(NAMESPACES, undefined, "ns1");
    assert.ok(ns?.metadata.deletionTimestamp, "spec.finalizers keep the namespace");
    const err = await rejects(
      s.client.create(WIDGETS, widget("w2", {}, { namespace: "ns1" })),
      403,
      "Forbidden",
      'widgets.demo.io "w2" is forbidden: unable to create new content in namespace ns1 because it is being terminated',
    );
    assert.equal(err.details?.causes?.[0]?.reason, "NamespaceTerminating");
    await s.client.patch(WIDGETS, "ns1", "w1", "merge", { spec: { replicas: 1 } });
    await s.client.delete(WIDGETS, "ns1", "w1");
    assert.equal(await s.client.get(WIDGETS, "ns1", "w1"), undefined);
  });

  it("forbids deleting default, kube-system and kube-public", async () => {
    const s = newTestServer([]);
    for (const name of ["default", "kube-system", "kube-public", "kube-node-lease"]) await s.client.create(NAMESPACES, { metadata: { name } });
    for (const name of ["default", "kube-system", "kube-public"]) {
      await rejects(s.client.delete(NAMESPACES, undefined, name), 403, "Forbidden", `namespaces "${name}" is forbidden: this namespace may not be deleted`);
    }
    await s.client.delete(NAMESPACES, undefined, "kube-node-lease");
    assert.ok((await s.client.get(NAMESPACES, undefined, "kube-node-lease"))?.metadata.deletionTimestamp);
  });

  it("reads the namespace from the watch cache as it is, and looks it up consistently only when the cache does not have it", async () => {
    const terminating = { metadata: { name: "ns1", deletionTimestamp: "2026-01-01T00:00:00Z" } };
    const active = { metadata: { name: "ns1" } };
    const reads: string[] = [];
    let cached: object | undefined;
    let stored: object | undefined;
    const client = {
      get: async (_gr: unknown, _ns: unknown, _name: string, options?: { allowStale?: boolean }) => {
        reads.push(options?.allowStale ? "stale" : "consistent");
        return options?.allowStale ? cached : stored;
      },
    } as unknown as InternalClient;
    const attrs = {
      operation: "CREATE",
      resource: { ...widgetDefinition(), plural: "widgets" },
      subresource: "",
      namespace: "ns1",
      name: "w",
      dryRun: false,
    } as unknown as AdmissionAttributes;
    const plugin = new NamespaceLifecycle();

    [cached, stored] = [active, terminating];
    await plugin.validate(attrs, client);
    assert.deepEqual(reads.splice(0), ["stale"], "the cache's copy decides; no round trip");

    [cached, stored] = [undefined, active];
    await plugin.validate(attrs, client);
    assert.deepEqual(reads.splice(0), ["stale", "consistent"], "a namespace the cache has not seen yet");

    [cached, stored] = [undefined, undefined];
    await rejects(plugin.validate(attrs, client), 404, "NotFound", 'namespaces "ns1" not found');
    [cached, stored] = [undefined, terminating];
    await rejects(plugin.validate(attrs, client), 403, "Forbidden");
    [cached, stored] = [terminating, active];
    await rejects(plugin.validate(attrs, client), 403, "Forbidden");
  });
});
