import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { WatchEvent } from "../../apis/meta/v1/types.ts";
import type { StatusError } from "../../apimachinery/errors.ts";
import type { AdmissionPlugin } from "../admission/types.ts";
import { rejects } from "./generic/testing/assert.ts";
import { widget, widgetDefinition } from "./generic/testing/fixtures.ts";
import { until } from "./generic/testing/sink.ts";
import { newTestServer } from "./generic/testing/server.ts";
import { SYSTEM_APISERVER_USER } from "./internal-client.ts";

const WIDGETS = { group: "demo.io", resource: "widgets" };
const NAMESPACES = { group: "", resource: "namespaces" };

async function serverWithNamespace(plugins?: AdmissionPlugin[]) {
  const s = newTestServer([widgetDefinition(), widgetDefinition({ version: "v2" })], plugins);
  await s.client.create(NAMESPACES, { metadata: { name: "ns1" } });
  return s;
}

describe("LocalClient", () => {
  it("creates, reads, updates, patches and deletes through the stores, in the preferred version", async () => {
    const s = await serverWithNamespace();
    const created = await s.client.create(WIDGETS, widget("w1", { replicas: 1 }, { namespace: "ns1" }));
    assert.equal(created.apiVersion, "demo.io/v1", "the first registered version is preferred");
    assert.equal(await s.client.get(WIDGETS, "ns1", "missing"), undefined);
    const got = (await s.client.get(WIDGETS, "ns1", "w1"))!;
    assert.equal(got.metadata.uid, created.metadata.uid);
    const updated = await s.client.update(WIDGETS, { ...got, spec: { replicas: 2 } });
    assert.equal((updated.spec as { replicas: number }).replicas, 2);
    const status = await s.client.update(WIDGETS, { ...updated, status: { phase: "Ready" } }, "status");
    assert.deepEqual(status.status, { phase: "Ready" });
    const patched = await s.client.patch(WIDGETS, "ns1", "w1", "merge", { metadata: { labels: { a: "b" } } });
    assert.deepEqual(patched.metadata.labels, { a: "b" });
    assert.equal((await s.client.list(WIDGETS, "ns1")).items.length, 1);
    await s.client.delete(WIDGETS, "ns1", "w1");
    await s.client.delete(WIDGETS, "ns1", "w1");
    assert.equal(await s.client.get(WIDGETS, "ns1", "w1"), undefined);
  });

  it("answers 404 for resources the server does not serve, and for unknown subresources", async () => {
    const s = await serverWithNamespace();
    await rejects(s.client.list({ group: "nope.io", resource: "things" }, undefined), 404, "NotFound", 'the server doesn\'t have a resource type "things.nope.io"');
    const w = await s.client.create(WIDGETS, widget("w1", {}, { namespace: "ns1" }));
    await rejects(s.client.update(WIDGETS, w, "scale"), 404, "NotFound");
  });

  it("acts as system:apiserver in system:masters", async () => {
    const users: string[] = [];
    const s = await serverWithNamespace([{ name: "who", validate: async (a) => void users.push(`${a.user.username}:${a.user.groups.join(",")}`) }]);
    await s.client.create(WIDGETS, widget("w1", {}, { namespace: "ns1" }));
    assert.equal(users.at(-1), `${SYSTEM_APISERVER_USER.username}:system:masters,system:authenticated`);
  });

  it("watch delivers ADDED for existing objects first, then changes; errors go to onError", async () => {
    const s = await serverWithNamespace();
    await s.client.create(WIDGETS, widget("a", {}, { namespace: "ns1" }));
    const events: WatchEvent[] = [];
    const errors: StatusError[] = [];
    const h = await s.client.watch(WIDGETS, "ns1", (e) => events.push(e), (e) => errors.push(e));
    assert.deepEqual(events.map((e) => `${e.type} ${e.object.metadata.name}`), ["ADDED a"]);
    await s.client.create(WIDGETS, widget("b", {}, { namespace: "ns1" }));
    await until(() => events.length === 2, "ADDED b");
    h.stop();

    await s.storage.compact(await s.storage.currentRevision());
    await s.client.watch(WIDGETS, "ns1", () => undefined, (e) => errors.push(e), { resourceVersion: "1" });
    await until(() => errors.length === 1, "410");
    assert.equal(errors[0]!.code, 410);
  });

  it("routes other subresources to the definition's handler (namespaces/finalize)", async () => {
    const s = await serverWithNamespace();
    const ns = (await s.client.get(NAMESPACES, undefined, "ns1"))!;
    assert.deepEqual((ns.spec as { finalizers: string[] }).finalizers, ["kubernetes"]);
    const res = await s.client.update(NAMESPACES, { ...ns, metadata: { ...ns.metadata, labels: { ignored: "yes" } }, spec: { finalizers: ["kubernetes", "x.io/y"] } }, "finalize");
    assert.deepEqual((res.spec as { finalizers: string[] }).finalizers, ["kubernetes", "x.io/y"]);
    assert.deepEqual(res.metadata.labels, ns.metadata.labels, "finalize changes only spec.finalizers");
    assert.equal(res.metadata.labels?.ignored, undefined);
  });
});
