// A @kubernetes/client-node informer (makeInformer / ListWatch) against the real server, over
// SQLite and over etcd: it must see every add, update and delete, also across a graceful restart
// (SIGTERM), a crash (SIGKILL), and a compaction that forces a 410 and a relist.
// The informer stops on any non-410 error (client-node 1.4), so like client-node's own example we
// restart it after an error; while `paused`, the restart waits, which opens a window for changes.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { CoreV1Api, makeInformer, PatchStrategy, setHeaderOptions, type ListWatch, type V1ConfigMap } from "@kubernetes/client-node";
import { startEtcd, type RunningEtcd } from "../../../src/host/etcd.ts";
import { startApiServerProcess, type ApiServerProcess } from "../../support/apiserver.ts";
import { eventually, rawClient, type RawClient } from "../../support/http.ts";
import { kubeConfigFrom } from "./helpers.ts";

const ns = "inf";
const watchCacheSize = 5;

class SupervisedInformer {
  readonly informer: ListWatch<V1ConfigMap>;
  readonly events: string[] = [];
  errors = 0;
  listCalls = 0;
  private paused = false;
  private pending = false;

  constructor(kc: ReturnType<typeof kubeConfigFrom>, core: CoreV1Api) {
    const listFn = () => {
      this.listCalls++;
      return core.listNamespacedConfigMap({ namespace: ns });
    };
    // makeInformer returns a ListWatch; its type hides latestResourceVersion(), which the 410 test reads.
    this.informer = makeInformer<V1ConfigMap>(kc, `/api/v1/namespaces/${ns}/configmaps`, listFn) as ListWatch<V1ConfigMap>;
    const record = (verb: string) => (o: V1ConfigMap) => this.events.push(`${verb} ${o.metadata?.name} ${JSON.stringify(o.data ?? {})}`);
    this.informer.on("add", record("add"));
    this.informer.on("update", record("update"));
    this.informer.on("delete", record("delete"));
    this.informer.on("error", () => {
      this.errors++;
      this.pending = true;
      this.restartSoon();
    });
  }

  private restartSoon(): void {
    setTimeout(() => {
      if (this.paused || !this.pending) return;
      this.pending = false;
      void this.informer.start().catch(() => {
        this.pending = true;
        this.restartSoon();
      });
    }, 200);
  }

  pause(): void {
    this.paused = true;
  }
  resume(): void {
    this.paused = false;
    this.restartSoon();
  }
  /** Stops the informer; resume() starts it again from its last resourceVersion. */
  async stop(): Promise<void> {
    this.paused = true;
    await this.informer.stop();
    this.pending = true;
  }
  /** name -> {rv, data} of the informer's cache. */
  cache(): Map<string, string> {
    return new Map(this.informer.list(ns).map((o) => [o.metadata!.name!, `${o.metadata!.resourceVersion} ${JSON.stringify(o.data ?? {})}`]));
  }
}

function runInformerSuite(storage: "sqlite" | "etcd", compaction: boolean): void {
  const title = compaction ? "with a tiny watch cache and compaction every second" : "across restarts";
  void describe(`client-node informer over ${storage}, ${title}`, { timeout: 180_000 }, () => {
    let dir: string;
    let etcd: RunningEtcd | undefined;
    let server: ApiServerProcess;
    let core: CoreV1Api;
    let inf: SupervisedInformer;
    let raw: RawClient;
    const merge = setHeaderOptions("Content-Type", PatchStrategy.MergePatch);
    const create = (name: string, v: string) => core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name }, data: { v } } });
    const update = (name: string, v: string) => core.patchNamespacedConfigMap({ name, namespace: ns, body: { data: { v } } }, merge);
    const remove = (name: string) => core.deleteNamespacedConfigMap({ name, namespace: ns });
    const serverState = async (): Promise<Map<string, string>> => {
      const list = await core.listNamespacedConfigMap({ namespace: ns });
      return new Map(list.items.map((o) => [o.metadata!.name!, `${o.metadata!.resourceVersion} ${JSON.stringify(o.data ?? {})}`]));
    };
    const converged = async (): Promise<void> => {
      const want = await serverState();
      await eventually(`informer cache equal to the server's state ${JSON.stringify([...want])}`, () => {
        const got = inf.cache();
        return JSON.stringify([...got].sort()) === JSON.stringify([...want].sort()) ? true : undefined;
      });
    };
    const sawEvents = (wanted: string[]) =>
      eventually(`informer events ${wanted.join(", ")} (saw: ${inf.events.join(", ")})`, () => (wanted.every((e) => inf.events.includes(e)) ? true : undefined));

    before(async () => {
      dir = mkdtempSync(join(tmpdir(), `gapi-informer-${storage}-`));
      const extraArgs = compaction ? ["--watch-cache-size", String(watchCacheSize), "--etcd-compaction-interval", "1s", "--compaction-retained-revisions", "1"] : [];
      if (storage === "etcd") {
        etcd = await startEtcd({ dataDir: join(dir, "etcd") });
        server = await startApiServerProcess({ storage, etcdEndpoint: etcd.endpoint, dataDir: join(dir, "data"), extraArgs });
      } else {
        server = await startApiServerProcess({ storage, dataDir: join(dir, "data"), extraArgs });
      }
      const kc = kubeConfigFrom(server.kubeconfig);
      core = kc.makeApiClient(CoreV1Api);
      raw = rawClient(server.kubeconfig);
      await core.createNamespace({ body: { metadata: { name: ns } } });
      for (const name of ["c0", "c1", "c2"]) await create(name, "1");
      inf = new SupervisedInformer(kc, core);
      await inf.informer.start();
      await converged();
    });
    after(async () => {
      raw?.close();
      await inf?.stop();
      await server?.stop();
      await etcd?.stop();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    void it("sees live adds, updates and deletes", async () => {
      assert.deepEqual(inf.events.slice(0, 3).sort(), ['add c0 {"v":"1"}', 'add c1 {"v":"1"}', 'add c2 {"v":"1"}']);
      await create("a", "1");
      await update("c0", "2");
      await remove("c1");
      await sawEvents(['add a {"v":"1"}', 'update c0 {"v":"2"}', 'delete c1 {"v":"1"}']);
      await converged();
    });

    if (compaction) {
      void it("relists after a 410 when its resourceVersion was compacted away", async () => {
        const oldRv = inf.informer.latestResourceVersion();
        await inf.stop();
        const listsBefore = inf.listCalls;
        // More changes than the watch cache holds; then wait for the server's own compaction to
        // pass the informer's resourceVersion: it is now neither in the cache nor in storage.
        for (let i = 0; i < watchCacheSize * 3; i++) await create(`bulk-${i}`, "1");
        await update("c0", "compacted");
        await remove("c2");
        await eventually(`compaction past resourceVersion ${oldRv}`, async () => {
          const res = await raw.request({ path: `/api/v1/namespaces/${ns}/configmaps?limit=1&resourceVersion=${oldRv}` });
          return res.status === 410 ? true : undefined;
        }, 30_000, 200);
        inf.resume();
        await sawEvents(['add bulk-0 {"v":"1"}', `add bulk-${watchCacheSize * 3 - 1} {"v":"1"}`, 'update c0 {"v":"compacted"}', 'delete c2 {"v":"1"}']);
        await converged();
        assert.ok(inf.listCalls > listsBefore, "the informer must have relisted (the server answered its old resourceVersion with 410)");
      });
    } else {
      for (const signal of ["SIGTERM", "SIGKILL"] as const) {
        void it(`catches up on changes made while it was disconnected by a ${signal} restart`, async () => {
          const errorsBefore = inf.errors;
          inf.pause();
          await server.kill(signal);
          await eventually("the informer to notice the server is gone", () => (inf.errors > errorsBefore ? true : undefined));
          await server.restart();
          const tag = signal.toLowerCase();
          await create(`new-${tag}`, "1");
          await update("c0", tag);
          await remove(signal === "SIGTERM" ? "a" : "c2");
          inf.resume();
          await sawEvents([`add new-${tag} {"v":"1"}`, `update c0 {"v":"${tag}"}`, signal === "SIGTERM" ? 'delete a {"v":"1"}' : 'delete c2 {"v":"1"}']);
          await converged();
        });
      }
    }
  });
}

runInformerSuite("sqlite", false);
runInformerSuite("etcd", false);
runInformerSuite("sqlite", true);
runInformerSuite("etcd", true);
