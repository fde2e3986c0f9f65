import { test } from "node:test";
import assert from "node:assert/strict";
import type { KubeObject } from "../../apis/meta/v1/types.ts";
import { isNotFound } from "../../apimachinery/errors.ts";
import { ConfigMaps } from "../../client/builtins.ts";
import { Client } from "../../client/client.ts";
import { resourceType } from "../../client/resource.ts";
import { sendJson, startFakeApi } from "../../client/testing.ts";
import { pollUntil } from "../../utils/poll.ts";
import { Cache } from "./cache.ts";
import { Store, fieldIndexFunc } from "./store.ts";

const Bastions = resourceType({ group: "operations.gardener.cloud", version: "v1alpha1", kind: "Bastion", plural: "bastions", namespaced: true });

function bastion(ns: string, name: string, seed: string, shoot: string, labels?: Record<string, string>): KubeObject {
  return { metadata: { namespace: ns, name, resourceVersion: "1", ...(labels ? { labels } : {}) }, spec: { seedName: seed, shootRef: { name: shoot } } };
}

test("the store keeps its indexes in step with sets and deletes", () => {
  const s = new Store<KubeObject>();
  s.addIndexer("seed", fieldIndexFunc("spec.seedName"));
  s.set("a/x", bastion("a", "x", "s1", "shoot"));
  s.set("b/y", bastion("b", "y", "s1", "shoot"));
  assert.deepEqual(s.byIndex("seed", "s1").map((o) => o.metadata.name).sort(), ["x", "y"]);
  s.set("a/x", bastion("a", "x", "s2", "shoot"));
  assert.deepEqual(s.byIndex("seed", "s1").map((o) => o.metadata.name), ["y"]);
  assert.deepEqual(s.byIndex("seed", "s2").map((o) => o.metadata.name), ["x"]);
  s.delete("b/y");
  assert.deepEqual(s.byIndex("seed", "s1"), []);
  assert.deepEqual(s.byIndex("namespace", "a").map((o) => o.metadata.name), ["x"]);
  assert.throws(() => s.addIndexer("seed", () => []), /already exists/);
  assert.throws(() => s.byIndex("nope", "x"), /no indexer/);
  assert.deepEqual(fieldIndexFunc("spec.missing.deep")(bastion("a", "x", "s", "t")), []);
});

test("the cache lists and watches with the configured selectors and serves indexed reads as copies", async (t) => {
  const items = [
    bastion("garden-a", "b1", "local", "s1", { team: "x" }),
    bastion("garden-a", "b2", "local", "s2"),
    bastion("garden-b", "b3", "local", "s1", { team: "x" }),
  ];
  const api = await startFakeApi((req, res) => {
    const u = new URL(req.url ?? "", "http://x");
    if (u.searchParams.get("watch") === "true") {
      res.writeHead(200, { "content-type": "application/json" });
      res.flushHeaders();
      return; // an idle watch; closed when the test ends
    }
    sendJson(res, 200, { metadata: { resourceVersion: "7" }, items });
  });
  t.after(() => api.close());
  const client = new Client(api.kubeConfig);
  const cache = new Cache(client);
  cache.configure(Bastions, { fieldSelector: "spec.seedName=local", labelSelector: "!ignored" });
  cache.indexField(Bastions, "spec.shootRef.name");
  assert.throws(() => cache.configure(Bastions, {}), /already being watched/);
  await assert.rejects(cache.get(Bastions, { namespace: "garden-a", name: "b1" }), /before the cache was started/);
  cache.start();
  await cache.waitForSync();
  assert.equal(cache.hasSynced(), true);

  const list = api.requests.find((r) => !r.url.includes("watch=true"))!;
  assert.equal(list.url, "/apis/operations.gardener.cloud/v1alpha1/bastions?labelSelector=%21ignored&fieldSelector=spec.seedName%3Dlocal&limit=500");
  const watch = await pollUntil("the watch request", () => api.requests.find((r) => r.url.includes("watch=true")));
  assert.match(watch.url, /labelSelector=%21ignored&fieldSelector=spec.seedName%3Dlocal&resourceVersion=7&allowWatchBookmarks=true&timeoutSeconds=\d+&watch=true/);

  const byShoot = await cache.list(Bastions, { fields: { "spec.shootRef.name": "s1" } });
  assert.deepEqual(byShoot.map((o) => o.metadata.name).sort(), ["b1", "b3"]);
  assert.deepEqual((await cache.list(Bastions, { namespace: "garden-a", fields: { "spec.shootRef.name": "s1" } })).map((o) => o.metadata.name), ["b1"]);
  assert.deepEqual((await cache.list(Bastions, { namespace: "garden-a" })).map((o) => o.metadata.name).sort(), ["b1", "b2"]);
  assert.deepEqual((await cache.list(Bastions, { labelSelector: "team=x" })).map((o) => o.metadata.name).sort(), ["b1", "b3"]);
  await assert.rejects(cache.list(Bastions, { fields: { "spec.other": "x" } }), /not indexed/);

  const got = await cache.get(Bastions, { namespace: "garden-a", name: "b1" });
  got.metadata.name = "mutated";
  assert.equal((await cache.get(Bastions, { namespace: "garden-a", name: "b1" })).metadata.name, "b1", "reads are copies");
  const missing = await cache.get(Bastions, { namespace: "garden-a", name: "nope" }).catch((e: unknown) => e);
  assert.ok(isNotFound(missing));

  assert.equal(cache.informerFor(ConfigMaps).isRunning(), true, "informers created after start() start at once");
  await cache.stop();
  client.close();
});
