// /metrics of a SQLite-backed server: every fdatasync of the WAL is measured, with the writes it
// made durable (docs/kubernetes-api.md#metrics); without fsync there is nothing to measure.
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { rawClient, type RawClient } from "../../support/http.ts";
import { type InProcessServer, startInProcessApiServer } from "../../support/inprocess.ts";

interface SyncFigures {
  syncs: number;
  writes: number;
  durationCount: number;
  durationSum: number;
}

async function syncFigures(client: RawClient): Promise<SyncFigures> {
  const m = await client.request({ path: "/metrics", headers: { accept: "text/plain" } });
  assert.equal(m.status, 200, m.body);
  const value = (name: string): number => {
    const found = new RegExp(`^${name} (\\S+)$`, "m").exec(m.body);
    assert.ok(found, `${name} is on /metrics`);
    return Number(found[1]);
  };
  return {
    syncs: value("gardener_apiserver_sqlite_writes_per_fsync_count"),
    writes: value("gardener_apiserver_sqlite_writes_per_fsync_sum"),
    durationCount: value("gardener_apiserver_sqlite_wal_fsync_duration_seconds_count"),
    durationSum: value("gardener_apiserver_sqlite_wal_fsync_duration_seconds_sum"),
  };
}

/** Creates `n` ConfigMaps at once, so that writes arriving together can share syncs. */
async function createMany(client: RawClient, prefix: string, n: number): Promise<void> {
  const created = await Promise.all(
    Array.from({ length: n }, (_, i) =>
      client.request({
        method: "POST",
        path: "/api/v1/namespaces/default/configmaps",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: `${prefix}-${i}` }, data: { k: "v" } }),
      }),
    ),
  );
  assert.deepEqual(new Set(created.map((r) => r.status)), new Set([201]));
}

void describe("SQLite sync metrics", () => {
  const servers: InProcessServer[] = [];
  const clients: RawClient[] = [];
  after(async () => {
    for (const c of clients) c.close();
    for (const s of servers) await s.stop();
  });
  const start = async (flags: string[] = []) => {
    const s = await startInProcessApiServer({ flags });
    servers.push(s);
    const c = rawClient(s.server.adminKubeconfigPath, { maxSockets: 16 });
    clients.push(c);
    return c;
  };

  void it("counts every WAL fdatasync, its duration and the writes it made durable", async () => {
    const client = await start();
    const before = await syncFigures(client);
    await createMany(client, "synced", 24);
    const after = await syncFigures(client);
    const syncs = after.syncs - before.syncs;
    const writes = after.writes - before.writes;
    // Every acknowledged create was made durable by a sync it is counted in (other writes, such as leases, may share them).
    assert.ok(writes >= 24, `writes counted: ${writes}`);
    assert.ok(syncs >= 1 && syncs <= writes, `syncs ${syncs} for ${writes} writes`);
    // One duration per sync, each of them some time.
    assert.equal(after.durationCount - before.durationCount, syncs);
    assert.ok(after.durationSum > before.durationSum);
  });

  void it("counts nothing with --sqlite-fsync=false (no write waits for the disk)", async () => {
    const client = await start(["--sqlite-fsync=false"]);
    await createMany(client, "volatile", 8);
    const figures = await syncFigures(client);
    assert.deepEqual(figures, { syncs: 0, writes: 0, durationCount: 0, durationSum: 0 });
  });
});
