import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { FakeClock } from "../../../utils/clock.ts";
import { etcdAvailable, freePort, startEtcd, type RunningEtcd } from "../../../host/etcd.ts";
import { Cacher } from "../cacher/cacher.ts";
import { runStorageConformance } from "../conformance.ts";
import { expectStorageError, WatchRecorder } from "../testing.ts";
import { StorageError } from "../interface.ts";
import type { StorageEvent } from "../interface.ts";
import { EtcdStorage } from "./etcd.ts";

const skip = etcdAvailable() ? false : "/usr/bin/etcd is missing: run `npm run setup` to install etcd-server";
const dir = mkdtempSync(join(tmpdir(), "etcd-storage-"));
let etcd: RunningEtcd | undefined;
let n = 0;

before(async () => {
  if (!skip) etcd = await startEtcd({ dataDir: join(dir, "data") });
});
after(async () => {
  await etcd?.stop();
  rmSync(dir, { recursive: true, force: true });
});

function storage(prefix = `/test-${n++}`): EtcdStorage {
  if (!etcd) throw new Error("etcd did not start");
  return new EtcdStorage({ endpoints: [etcd.endpoint], prefix });
}

/** A promise's value or error, so several writes' outcomes can be awaited together. */
const settle = <T>(p: Promise<T>) => p.then((v) => ({ v }), (e: unknown) => ({ e }));

void describe("etcd", { skip }, () => {
  runStorageConformance("etcd", async () => {
    const s = storage();
    return { storage: s, cleanup: () => s.close() };
  });

  // The watch cache over etcd: its reads wait for etcd's (asynchronous) watch to catch up.
  runStorageConformance("cacher over etcd", async () => {
    const s = new Cacher(storage(), { prefix: "/" });
    await s.start();
    return { storage: s, cleanup: () => s.close() };
  });

  void describe("EtcdStorage", () => {
    void it("the key prefix isolates storages sharing one etcd", async () => {
      const a = storage("/apiserver-a");
      const b = storage("/apiserver-b");
      try {
        const base = await b.currentRevision();
        const wb = new WatchRecorder(b, "/registry", base);
        await a.create("/registry/x", "from a");
        const kb = await b.create("/registry/x", "from b");
        assert.equal((await a.get("/registry/x"))?.value, "from a");
        assert.deepEqual((await b.list("/registry")).items, [kb]);
        await wb.waitForEvents(1);
        assert.deepEqual(wb.events, [{ type: "put", kv: kb }]);
        wb.stop();
      } finally {
        await a.close();
        await b.close();
      }
    });

    void it("creates made together share one Txn: one revision, one watch batch; an existing key among them gets KeyExists, the others are created", async () => {
      const s = storage();
      try {
        const old = await s.create("/together/x", "old");
        const w = new WatchRecorder(s, "/together", old.modRevision);
        const [a, x, c, again] = await Promise.all(
          [s.create("/together/a", "a"), s.create("/together/x", "new"), s.create("/together/c", "c"), s.create("/together/a", "a2")].map(settle),
        );
        assert.ok("v" in a! && "v" in c!, "a and c are created");
        assert.equal(a.v.modRevision, c.v.modRevision, "one Txn, one revision");
        for (const [r, current] of [[x, old], [again, "v" in a ? a.v : undefined]] as const) {
          assert.ok(r && "e" in r && r.e instanceof StorageError && r.e.code === "KeyExists", JSON.stringify(r));
          assert.deepEqual(r.e.extra?.current, current);
        }
        await w.waitForEvents(2);
        assert.deepEqual(w.batches, [[{ type: "put", kv: a.v }, { type: "put", kv: c.v }]], "both events of the revision, in one batch");
        w.stop();
      } finally {
        await s.close();
      }
    });

    void it("updates and deletes made together share one Txn; those whose own precondition fails get Conflict or NotFound, the others are done", async () => {
      const s = storage();
      try {
        const [a, b, c] = await Promise.all(["a", "b", "c", "d"].map((k) => s.create(`/mixed/${k}`, k)));
        const b2 = await s.update("/mixed/b", "b2", b!.modRevision);
        const [ua, ub, dc, dx, dd] = await Promise.all([
          settle(s.update("/mixed/a", "a2", a!.modRevision)),
          settle(s.update("/mixed/b", "b3", b!.modRevision)), // stale: b2 came after
          settle(s.delete("/mixed/c", c!.modRevision)),
          settle(s.delete("/mixed/x")), // never existed
          settle(s.delete("/mixed/d")),
        ]);
        assert.ok("v" in ua! && "v" in dc! && "v" in dd!, JSON.stringify([ua, dc, dd]));
        assert.equal(ua.v.createRevision, a!.createRevision, "an update keeps the create revision");
        assert.equal(dc.v.value, "c", "a delete answers the last value");
        assert.deepEqual([dc.v.modRevision, dd.v.modRevision], [ua.v.modRevision, ua.v.modRevision], "one Txn, one revision");
        for (const [r, code] of [[ub, "Conflict"], [dx, "NotFound"]] as const) {
          assert.ok(r && "e" in r && r.e instanceof StorageError && r.e.code === code, JSON.stringify(r));
        }
        assert.deepEqual((ub as { e: StorageError }).e.extra?.current, b2);
        assert.deepEqual((await s.list("/mixed")).items.map((kv) => kv.value), ["a2", "b2"]);
      } finally {
        await s.close();
      }
    });

    void it("a watch with prevKnown leaves previous values out: puts come without prev, a delete with its key and revision only", async () => {
      const s = storage();
      const events: StorageEvent[] = [];
      const handle = s.watch("/p", await s.currentRevision(), (evs) => events.push(...evs), () => undefined, { prevKnown: true });
      try {
        const a1 = await s.create("/p/a", "1");
        const a2 = await s.update("/p/a", "2", a1.modRevision);
        const del = await s.delete("/p/a");
        while (events.length < 3) await new Promise((r) => setTimeout(r, 10));
        assert.deepEqual(events.slice(0, 2), [
          { type: "put", kv: a1 },
          { type: "put", kv: a2 },
        ]);
        const gone = { key: "/p/a", value: "", createRevision: 0, modRevision: del.modRevision };
        assert.deepEqual(events[2], { type: "delete", kv: gone, prev: gone });
      } finally {
        handle.stop();
        await s.close();
      }
    });

    void it("a watch cache is not held up by writes under another prefix", async () => {
      const other = storage();
      const cacher = new Cacher(storage(), { prefix: "/", clock: new FakeClock() });
      try {
        await cacher.start();
        const a = await cacher.create("/registry/a", "a");
        assert.deepEqual(await cacher.get(a.key), a);
        await other.create("/registry/b", "foreign");
        // The fake clock never fires the 3 s fallback: only the change check can answer.
        const read = cacher.list("/registry");
        const timeout = new Promise((_, reject) => setTimeout(() => reject(new Error("the read waited")), 5000).unref());
        const res = (await Promise.race([read, timeout])) as Awaited<typeof read>;
        assert.deepEqual(res.items, [a]);
      } finally {
        await cacher.close();
        await other.close();
      }
    });

    void it("a watch resumes after etcd restarts, delivering every event once and in order", async () => {
      const [clientPort, peerPort] = [await freePort(), await freePort()];
      const dataDir = join(dir, "restart");
      let own = await startEtcd({ dataDir, clientPort, peerPort });
      const s = new EtcdStorage({ endpoints: [own.endpoint], callTimeoutMs: 2000 });
      try {
        const w = new WatchRecorder(s, "/r", await s.currentRevision());
        const before = await s.create("/r/a", "1");
        await w.waitForEvents(1);
        await own.stop();
        own = await startEtcd({ dataDir, clientPort, peerPort });
        const after = [await s.update("/r/a", "2", before.modRevision), await s.create("/r/b", "3")];
        await w.waitForEvents(3);
        assert.deepEqual(w.events.map((e) => e.kv), [before, ...after]);
        assert.equal(w.error, undefined);
        w.stop();
      } finally {
        await s.close();
        await own.stop();
      }
    });

    void it("maps connection failures to Unavailable", async () => {
      const port = await freePort();
      const s = new EtcdStorage({ endpoints: [`http://127.0.0.1:${port}`], callTimeoutMs: 2000 });
      try {
        await expectStorageError(s.get("/x"), "Unavailable");
        await expectStorageError(s.create("/x", "y"), "Unavailable");
      } finally {
        await s.close();
      }
    });
  });
});
