import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { MessageChannel } from "node:worker_threads";
import { runStorageConformance } from "../conformance.ts";
import { StorageError } from "../interface.ts";
import { SQLiteStorage } from "../sqlite/sqlite.ts";
import { expectStorageError, WatchRecorder } from "../testing.ts";
import { RemoteStorage } from "./remote.ts";
import { serveStorage } from "./service.ts";

const dir = mkdtempSync(join(tmpdir(), "remote-storage-"));
after(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;

/** A durable SQLite database served over a MessageChannel, as the primary serves its workers. */
function open() {
  const backend = new SQLiteStorage({ path: join(dir, `db-${n++}.sqlite`) });
  const channel = new MessageChannel();
  const service = serveStorage(backend, channel.port1);
  const storage = new RemoteStorage(channel.port2);
  return { backend, service, storage, cleanup: async () => (await storage.close(), service.close(), await backend.close()) };
}

runStorageConformance("remote (sqlite over a MessagePort)", async () => {
  const { storage, cleanup } = open();
  return { storage, cleanup };
});

void describe("RemoteStorage", () => {
  void it("two clients of one database see each other's writes, in their watches too", async () => {
    const a = open();
    const channel = new MessageChannel();
    const service = serveStorage(a.backend, channel.port1);
    const b = new RemoteStorage(channel.port2);
    const watch = new WatchRecorder(b, "/x/", await b.currentRevision());
    const kv = await a.storage.create("/x/one", "1");
    assert.deepEqual(await b.get("/x/one"), kv);
    const [event] = await watch.waitForEvents(1);
    assert.equal(event!.type, "put");
    assert.deepEqual(event!.kv, kv);
    // A failure arrives as the StorageError it was, with its details.
    const err = await expectStorageError(b.update("/x/one", "2", kv.modRevision + 100), "Conflict");
    assert.ok(err instanceof StorageError);
    assert.deepEqual(err.extra.current, kv);
    watch.stop();
    await b.close();
    service.close();
    await a.cleanup();
  });

  void it("calls after close and calls cut off by close fail with Unavailable", async () => {
    const a = open();
    const pending = a.storage.get("/y/never");
    await a.storage.close();
    await expectStorageError(pending, "Unavailable");
    await expectStorageError(a.storage.create("/y/z", "1"), "Unavailable");
    a.service.close();
    await a.backend.close();
  });
});
