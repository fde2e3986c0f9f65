// The typed client and its helpers against the real API server: built-in and custom kinds,
// every patch type, the status subresource, StatusErrors as the server sends them,
// create-or-patch, finalizers and retry on conflict.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import type { CustomResourceDefinition } from "../../../src/apis/apiextensions/v1/types.ts";
import type { KubeObject } from "../../../src/apis/meta/v1/types.ts";
import { StatusError, isAlreadyExists, isConflict, isInvalid, isNotFound } from "../../../src/apimachinery/errors.ts";
import { ConfigMaps } from "../../../src/client/builtins.ts";
import { addFinalizer, createOrPatch, patchStatus, removeFinalizer, retryOnConflict } from "../../../src/client/helpers.ts";
import { resourceType } from "../../../src/client/resource.ts";
import { gadgetCrd } from "../../support/crds.ts";
import { type TestServer, ensureNamespace, eventually, startTestServer } from "./support.ts";

interface Gadget extends KubeObject {
  spec?: { size?: number; tags?: string[] };
  status?: { phase?: string };
}

const Crds = resourceType<CustomResourceDefinition>({ group: "apiextensions.k8s.io", version: "v1", kind: "CustomResourceDefinition", plural: "customresourcedefinitions", namespaced: false });
const Gadgets = resourceType<Gadget>({ group: "example.com", version: "v1", kind: "Gadget", plural: "gadgets", namespaced: true });

let ts: TestServer;
const ns = "client";
before(async () => {
  ts = await startTestServer("sqlite");
  await ensureNamespace(ts.client, ns);
  await ts.client.create(Crds, gadgetCrd);
  await eventually("the Gadget CRD to be served", async () => (await ts.client.list(Gadgets, { namespace: ns })) && true);
});
after(async () => {
  await ts?.dispose();
});

test("built-in kinds: create, get, list with selectors, update, every patch type, delete", async () => {
  const c = ts.client;
  const created = await c.create(ConfigMaps, { metadata: { namespace: ns, name: "cm", labels: { app: "x" } }, data: { a: "1" } });
  assert.ok(created.metadata.uid);
  assert.equal((await c.get(ConfigMaps, { namespace: ns, name: "cm" })).data?.a, "1");
  assert.deepEqual((await c.list(ConfigMaps, { namespace: ns, labelSelector: "app=x" })).items.map((i) => i.metadata.name), ["cm"]);
  assert.deepEqual((await c.list(ConfigMaps, { namespace: ns, fieldSelector: "metadata.name=nope" })).items, []);

  const updated = await c.update(ConfigMaps, { ...created, data: { a: "2" } });
  assert.notEqual(updated.metadata.resourceVersion, created.metadata.resourceVersion);
  const stale = await c.update(ConfigMaps, { ...created, data: { a: "3" } }).catch((e: unknown) => e);
  assert.ok(isConflict(stale), `a stale resourceVersion gives Conflict: ${String(stale)}`);
  assert.equal((stale as StatusError).code, 409);

  const key = { namespace: ns, name: "cm" };
  assert.deepEqual((await c.patch(ConfigMaps, key, { type: "merge", body: { data: { b: "m" } } })).data, { a: "2", b: "m" });
  assert.deepEqual((await c.patch(ConfigMaps, key, { type: "json", body: [{ op: "remove", path: "/data/a" }] })).data, { b: "m" });
  assert.deepEqual((await c.patch(ConfigMaps, key, { type: "strategic", body: { data: { s: "1" } } })).data, { b: "m", s: "1" });
  const dry = await c.patch(ConfigMaps, key, { type: "merge", body: { data: { dry: "1" } } }, { dryRun: true });
  assert.equal(dry.data?.dry, "1");
  assert.equal((await c.get(ConfigMaps, key)).data?.dry, undefined, "dry run persisted nothing");

  assert.ok(isAlreadyExists(await c.create(ConfigMaps, { metadata: { namespace: ns, name: "cm" } }).catch((e: unknown) => e)));
  const invalid = await c.create(ConfigMaps, { metadata: { namespace: ns, name: "Not_Valid" } }).catch((e: unknown) => e);
  assert.ok(isInvalid(invalid), String(invalid));
  await c.delete(ConfigMaps, key);
  const missing = await c.get(ConfigMaps, key).catch((e: unknown) => e);
  assert.ok(missing instanceof StatusError && isNotFound(missing) && missing.code === 404);
});

test("custom kinds: CRUD, the status subresource, patchStatus and createOrPatch results", async () => {
  const c = ts.client;
  const key = { namespace: ns, name: "g1" };
  const first = await createOrPatch(c, Gadgets, key, (g) => {
    g.spec = { size: 1, tags: ["a"] };
  });
  assert.equal(first.result, "created");
  assert.equal(first.object.kind, "Gadget");
  const same = await createOrPatch(c, Gadgets, key, (g) => {
    g.spec = { size: 1, tags: ["a"] };
  });
  assert.equal(same.result, "unchanged");
  assert.equal(same.object.metadata.resourceVersion, first.object.metadata.resourceVersion, "no write when nothing changed");
  const changed = await createOrPatch(c, Gadgets, key, (g) => {
    g.spec!.size = 2;
  });
  assert.equal(changed.result, "updated");
  const statusOnly = await createOrPatch(c, Gadgets, key, (g) => {
    g.status = { phase: "Ready" };
  });
  assert.equal(statusOnly.result, "updatedStatusOnly");
  assert.equal((await c.get(Gadgets, key)).status?.phase, "Ready");

  // A main-resource update does not touch status; updateStatus changes only status.
  const g = await c.get(Gadgets, key);
  const u = await c.update(Gadgets, { ...g, spec: { size: 3 }, status: { phase: "Ignored" } });
  assert.equal(u.status?.phase, "Ready");
  const s = await c.updateStatus(Gadgets, { ...u, spec: { size: 99 }, status: { phase: "Degraded" } });
  assert.equal(s.status?.phase, "Degraded");
  assert.equal(s.spec?.size, 3);
  const p = await patchStatus(c, Gadgets, s, { ...s, status: { phase: "Ready" } });
  assert.equal(p.status?.phase, "Ready");
  assert.equal(await patchStatus(c, Gadgets, p, structuredClone(p)), p, "no request when the status did not change");

  const smp = await c.patch(Gadgets, key, { type: "strategic", body: { spec: { size: 4 } } }).catch((e: unknown) => e);
  assert.ok(smp instanceof StatusError && smp.code === 415, `custom resources refuse strategic merge patch: ${String(smp)}`);
  assert.deepEqual((await c.list(Gadgets, { namespace: ns })).items.map((i) => `${i.kind}/${i.metadata.name}`), ["Gadget/g1"]);
});

test("finalizers: added once, kept across concurrent writers, removal lets a deleted object go", async () => {
  const c = ts.client;
  const key = { namespace: ns, name: "fin" };
  const cm = await c.create(ConfigMaps, { metadata: { ...key }, data: {} });
  const once = await addFinalizer(c, ConfigMaps, cm, "example.com/a");
  const twice = await addFinalizer(c, ConfigMaps, once, "example.com/a");
  assert.deepEqual(twice.metadata.finalizers, ["example.com/a"]);
  assert.equal(twice.metadata.resourceVersion, once.metadata.resourceVersion, "no write when already present");
  // Another writer adds its own finalizer; ours works from a stale copy and must not drop it.
  await c.patch(ConfigMaps, key, { type: "merge", body: { metadata: { finalizers: ["example.com/a", "example.com/other"] } } });
  const withB = await addFinalizer(c, ConfigMaps, once, "example.com/b");
  assert.deepEqual(withB.metadata.finalizers, ["example.com/a", "example.com/other", "example.com/b"]);

  await c.delete(ConfigMaps, key);
  const deleting = await c.get(ConfigMaps, key);
  assert.ok(deleting.metadata.deletionTimestamp, "finalizers hold the object");
  await removeFinalizer(c, ConfigMaps, deleting, "example.com/other");
  await removeFinalizer(c, ConfigMaps, deleting, "example.com/b");
  assert.ok(await c.get(ConfigMaps, key));
  await removeFinalizer(c, ConfigMaps, deleting, "example.com/a");
  await eventually("the object to be gone", async () => ((await c.get(ConfigMaps, key).catch((e: unknown) => (isNotFound(e) ? "gone" : undefined))) === "gone" ? true : undefined));
  assert.equal(await removeFinalizer(c, ConfigMaps, deleting, "example.com/a"), undefined, "a missing object is not an error");
});

test("retryOnConflict re-reads and retries until a read-modify-write goes through", async () => {
  const c = ts.client;
  const key = { namespace: ns, name: "counter" };
  await c.create(ConfigMaps, { metadata: { ...key }, data: { n: "0" } });
  let attempts = 0;
  await Promise.all(
    Array.from({ length: 5 }, () =>
      retryOnConflict(
        async () => {
          attempts++;
          const cur = await c.get(ConfigMaps, key);
          await c.update(ConfigMaps, { ...cur, data: { n: String(Number(cur.data?.n) + 1) } });
        },
        { backoff: { steps: 20, durationMs: 5, factor: 1, jitter: 1 } },
      ),
    ),
  );
  assert.equal((await c.get(ConfigMaps, key)).data?.n, "5", "no increment was lost");
  assert.ok(attempts >= 5);
});
