// The sample mirror controller against the real API server, on SQLite and on etcd: it converges
// when sources are created, changed and deleted, repairs tampered mirrors, serves its probes and
// metrics, and keeps converging across an API server restart (SIGKILL, then start again).
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { isDeepStrictEqual } from "node:util";
import { type ConfigMap, ConfigMaps } from "../../../src/client/builtins.ts";
import { Client } from "../../../src/client/client.ts";
import { Manager } from "../../../src/controllerruntime/manager.ts";
import { addMirrorController, finalizer, mirrorName, sourceConfigMap } from "./sample.ts";
import { type StorageKind, type TestServer, ensureNamespace, eventually, startTestServer, storageAvailable } from "./support.ts";
import { unlessNotFound } from "../../../src/client/helpers.ts";
import { isExpired } from "../../../src/apimachinery/errors.ts";
import { type Clock, FakeClock } from "../../../src/utils/clock.ts";

function getOrUndefined(client: Client, namespace: string, name: string): Promise<ConfigMap | undefined> {
  return unlessNotFound(client.get(ConfigMaps, { namespace, name }));
}

/** Resolves when `name`'s mirror holds exactly `data`. */
function mirrorHas(client: Client, ns: string, name: string, data: Record<string, string>): Promise<ConfigMap> {
  return eventually(`mirror of ${ns}/${name} to hold ${JSON.stringify(data)}`, async () => {
    const m = await getOrUndefined(client, ns, mirrorName(name));
    return m && isDeepStrictEqual(m.data ?? {}, data) ? m : undefined;
  });
}

function gone(client: Client, ns: string, name: string): Promise<true> {
  return eventually(`${ns}/${name} to be gone`, async () => ((await getOrUndefined(client, ns, name)) === undefined ? true : undefined));
}

/** Writes through the test's own client, retrying while the server is coming back. */
function write<T>(what: string, fn: () => Promise<T>): Promise<T> {
  return eventually(what, async () => {
    const v = await fn();
    return v ?? (true as unknown as T);
  });
}

function startManager(ts: TestServer, backoff = { initialMs: 200, maxMs: 2000 }, clock?: Clock): { mgr: Manager; client: Client } {
  const client = Client.fromKubeconfigFile(ts.kubeconfig, { fieldManager: "mirror-controller" });
  const mgr = new Manager({ client, cache: { backoff, ...(clock ? { clock } : {}) }, defaultMetrics: false });
  return { mgr, client };
}

async function metricValue(mgr: Manager, name: string, labels: string): Promise<number> {
  const text = await mgr.registry.getSingleMetricAsString(name);
  const line = text.split("\n").find((l) => l.startsWith(`${name}{${labels}}`));
  return line ? Number(line.split(" ").at(-1)) : 0;
}

for (const storage of ["sqlite", "etcd"] as StorageKind[]) {
  describe(`mirror controller on ${storage}`, { skip: storageAvailable(storage) ? false : `${storage} is not installed` }, () => {
    let ts: TestServer;
    before(async () => {
      ts = await startTestServer(storage);
    });
    after(async () => {
      await ts?.dispose();
    });

    test("converges on create, change, tamper and delete; serves probes and metrics", async () => {
      const ns = `mirror-${storage}`;
      const c = ts.client;
      await ensureNamespace(c, ns);
      await c.create(ConfigMaps, { metadata: { namespace: ns, name: "unlabelled" }, data: { x: "1" } });
      await c.create(ConfigMaps, sourceConfigMap(ns, "a", { k: "1" }));

      const { mgr, client } = startManager(ts);
      const { reconciler } = addMirrorController(mgr);
      await mgr.start();
      try {
        const m = await mirrorHas(c, ns, "a", { k: "1" });
        const src = await c.get(ConfigMaps, { namespace: ns, name: "a" });
        assert.deepEqual(src.metadata.finalizers, [finalizer]);
        assert.equal(m.metadata.ownerReferences?.[0]?.uid, src.metadata.uid);
        assert.equal(m.metadata.ownerReferences?.[0]?.controller, true);

        await c.patch(ConfigMaps, { namespace: ns, name: "a" }, { type: "merge", body: { data: { k: "2", j: "x" } } });
        await mirrorHas(c, ns, "a", { j: "x", k: "2" });

        await c.patch(ConfigMaps, { namespace: ns, name: mirrorName("a") }, { type: "merge", body: { data: { k: "tampered" } } });
        await mirrorHas(c, ns, "a", { j: "x", k: "2" });
        await c.delete(ConfigMaps, { namespace: ns, name: mirrorName("a") });
        await mirrorHas(c, ns, "a", { j: "x", k: "2" });

        await c.create(ConfigMaps, sourceConfigMap(ns, "b", { other: "y" }));
        await mirrorHas(c, ns, "b", { other: "y" });
        assert.equal(await getOrUndefined(c, ns, mirrorName("unlabelled")), undefined, "the label predicate filters unlabelled sources");
        assert.ok(!reconciler.seen.includes(`${ns}/unlabelled`));

        await c.delete(ConfigMaps, { namespace: ns, name: "a" });
        await gone(c, ns, mirrorName("a"));
        await gone(c, ns, "a");

        const addr = mgr.address()!;
        for (const path of ["/healthz", "/readyz"]) {
          const r = await fetch(`http://${addr.host}:${addr.port}${path}`);
          assert.equal(r.status, 200, path);
          assert.equal(await r.text(), "ok\n");
        }
        const metrics = await (await fetch(`http://${addr.host}:${addr.port}/metrics`)).text();
        assert.match(metrics, /controller_runtime_reconcile_total\{controller="mirror",result="success"\} [1-9]/);
        assert.match(metrics, /workqueue_depth\{name="mirror"\} 0/);
        assert.match(metrics, /controller_runtime_reconcile_time_seconds_count\{controller="mirror"\} [1-9]/);
        assert.match(metrics, /informer_relists_total\{resource="configmaps"\} 1/);
      } finally {
        await mgr.stop();
        client.close();
      }
      const addr = mgr.address()!;
      await assert.rejects(fetch(`http://${addr.host}:${addr.port}/healthz`), "the probe server is closed after stop()");
    });

    test("keeps converging across an API server kill and restart, without missing the changes made meanwhile", async () => {
      const ns = `restart-${storage}`;
      const c = ts.client;
      await ensureNamespace(c, ns);
      for (const n of ["a", "b", "c"]) await c.create(ConfigMaps, sourceConfigMap(ns, n, { v: "1" }));
      // A fixed 1.5 s reconnect pause: the informer almost surely reconnects after the writes
      // below, which it must then pick up by resuming its watch (or relisting); either way it converges.
      const { mgr, client } = startManager(ts, { initialMs: 1500, maxMs: 1500 });
      addMirrorController(mgr);
      await mgr.start();
      try {
        for (const n of ["a", "b", "c"]) await mirrorHas(c, ns, n, { v: "1" });

        await ts.server.kill("SIGKILL");
        await ts.server.restart();
        // Right after the restart, before the informer's backoff lets it reconnect:
        await write("update a", () => c.patch(ConfigMaps, { namespace: ns, name: "a" }, { type: "merge", body: { data: { v: "2" } } }));
        await write("delete b", () => c.delete(ConfigMaps, { namespace: ns, name: "b" }));
        await write("create d", () => c.create(ConfigMaps, sourceConfigMap(ns, "d", { v: "new" })));
        await write("tamper with c's mirror", () =>
          c.patch(ConfigMaps, { namespace: ns, name: mirrorName("c") }, { type: "merge", body: { data: { v: "tampered" } } }),
        );

        await mirrorHas(c, ns, "a", { v: "2" });
        await mirrorHas(c, ns, "d", { v: "new" });
        await mirrorHas(c, ns, "c", { v: "1" });
        await gone(c, ns, mirrorName("b"));
        await gone(c, ns, "b");
        assert.ok((await metricValue(mgr, "informer_watch_restarts_total", 'resource="configmaps"')) >= 1, "the informer reconnected");
      } finally {
        await mgr.stop();
        client.close();
      }
    });
  });
}

describe("mirror controller when its resourceVersion is compacted away", () => {
  let ts: TestServer;
  before(async () => {
    // A tiny watch cache and compaction every second down to one revision: an informer that
    // was away for a few seconds can only get 410 Expired and must relist.
    ts = await startTestServer("sqlite", ["--watch-cache-size", "5", "--etcd-compaction-interval", "1s", "--compaction-retained-revisions", "1"]);
  });
  after(async () => {
    await ts?.dispose();
  });

  test("relists after 410 Expired and converges on the changes it never saw as events", async () => {
    const ns = "expired";
    const c = ts.client;
    await ensureNamespace(c, ns);
    for (const n of ["a", "b"]) await c.create(ConfigMaps, sourceConfigMap(ns, n, { v: "1" }));
    // The informers' reconnect backoff runs on a fake clock: the informer comes back only when the
    // test moves it, after the restart, the writes below and a compaction past everything it saw.
    const backoff = new FakeClock();
    const { mgr, client } = startManager(ts, { initialMs: 1000, maxMs: 1000 }, backoff);
    addMirrorController(mgr);
    await mgr.start();
    try {
      for (const n of ["a", "b"]) await mirrorHas(c, ns, n, { v: "1" });
      assert.equal(await metricValue(mgr, "informer_relists_total", 'resource="configmaps"'), 1);
      await ts.server.kill("SIGKILL");
      // Its reconnect failed while the server was down: it waits on the fake clock.
      await eventually("the informer to back off", async () => backoff.pending() > 0 || undefined);
      await ts.server.restart();
      // The informer saw nothing as new as this first write after the restart.
      const updated = await write("update a", () => c.patch(ConfigMaps, { namespace: ns, name: "a" }, { type: "merge", body: { data: { v: "2" } } }));
      await write("delete b", () => c.delete(ConfigMaps, { namespace: ns, name: "b" }));
      await write("create c", () => c.create(ConfigMaps, sourceConfigMap(ns, "c", { v: "new" })));
      for (let i = 0; i < 20; i++) await c.create(ConfigMaps, { metadata: { namespace: ns, name: `filler-${i}` }, data: { i: String(i) } });
      const seen = updated.metadata.resourceVersion!;
      await eventually(`compaction past resourceVersion ${seen}`, async () => {
        try {
          await c.list(ConfigMaps, { namespace: ns, resourceVersion: seen, resourceVersionMatch: "Exact" });
          return undefined;
        } catch (err) {
          if (isExpired(err)) return true;
          throw err;
        }
      });
      backoff.step(1000);

      await mirrorHas(c, ns, "a", { v: "2" });
      await mirrorHas(c, ns, "c", { v: "new" });
      await gone(c, ns, mirrorName("b"));
      await gone(c, ns, "b");
      assert.ok((await metricValue(mgr, "informer_relists_total", 'resource="configmaps"')) >= 2, "the informer relisted after 410");
    } finally {
      await mgr.stop();
      client.close();
    }
  });
});
