import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { etcdAvailable, startEtcd, startEtcdCluster } from "./etcd.ts";

const dir = mkdtempSync(join(tmpdir(), "host-etcd-"));
after(() => rmSync(dir, { recursive: true, force: true }));

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

void describe("startEtcd", () => {
  void it("tells to run npm run setup when the binary is missing", async () => {
    await assert.rejects(startEtcd({ dataDir: join(dir, "none"), binary: join(dir, "no-such-etcd") }), /npm run setup/);
  });

  void it("starts a healthy etcd on loopback and stops it", { skip: !etcdAvailable() && "/usr/bin/etcd is missing: run `npm run setup`" }, async () => {
    const etcd = await startEtcd({ dataDir: join(dir, "data") });
    try {
      assert.match(etcd.endpoint, /^http:\/\/127\.0\.0\.1:\d+$/);
      assert.equal(etcd.name, `gardener-access-etcd-${new URL(etcd.endpoint).port}`);
      assert.ok(alive(etcd.pid));
      const res = await fetch(`${etcd.endpoint}/health`);
      assert.deepEqual(((await res.json()) as { health: string }).health, "true");
    } finally {
      await etcd.stop();
    }
    assert.equal(alive(etcd.pid), false, "the process is gone after stop()");
    await etcd.stop(); // idempotent
  });
});

const b64 = (s: string) => Buffer.from(s).toString("base64");

/** etcd's v3 JSON gateway: put or range one key; retries "unavailable" (a leader election in progress), as clients do. */
async function kv(endpoint: string, op: "put" | "range", key: string, value?: string): Promise<string | undefined> {
  const body = op === "put" ? { key: b64(key), value: b64(value ?? "") } : { key: b64(key) };
  const deadline = Date.now() + 20_000;
  for (;;) {
    const res = await fetch(`${endpoint}/v3/kv/${op}`, { method: "POST", body: JSON.stringify(body), signal: AbortSignal.timeout(10_000) });
    const json = (await res.json()) as { kvs?: { value: string }[]; code?: number };
    if (res.status !== 200 && json.code === 14 && Date.now() < deadline) continue;
    assert.equal(res.status, 200, `${op} ${key} at ${endpoint}: ${JSON.stringify(json)}`);
    const v = json.kvs?.[0]?.value;
    return v === undefined ? undefined : Buffer.from(v, "base64").toString();
  }
}

void describe("startEtcdCluster", { skip: !etcdAvailable() && "/usr/bin/etcd is missing: run `npm run setup`" }, () => {
  void it("starts three named members that replicate, keeps quorum without one, restarts it, and stops them all", async () => {
    const cluster = await startEtcdCluster({ dataDir: join(dir, "cluster") });
    try {
      assert.equal(cluster.members.length, 3);
      assert.equal(new Set(cluster.endpoints).size, 3);
      for (const [i, m] of cluster.members.entries()) {
        assert.equal(m.endpoint, cluster.endpoints[i]);
        assert.equal(m.name, `gardener-access-etcd-${new URL(m.endpoint).port}`);
        assert.ok(alive(m.pid));
      }
      await kv(cluster.endpoints[0]!, "put", "/k", "v1");
      assert.equal(await kv(cluster.endpoints[2]!, "range", "/k"), "v1", "a write through one member is read through another");
      await cluster.members[0]!.kill("SIGKILL");
      assert.equal(alive(cluster.members[0]!.pid), false);
      await kv(cluster.endpoints[1]!, "put", "/k", "v2");
      assert.equal(await kv(cluster.endpoints[2]!, "range", "/k"), "v2", "two of three members still commit");
      const back = await cluster.restartMember(0);
      assert.equal(cluster.members[0], back);
      assert.ok(alive(back.pid));
      assert.equal(await kv(cluster.endpoints[0]!, "range", "/k"), "v2", "a restarted member catches up");
    } finally {
      await cluster.stop();
    }
    for (const m of cluster.members) assert.equal(alive(m.pid), false, `${m.name} is gone after stop()`);
  });

  void it("refuses a member count it cannot run", async () => {
    await assert.rejects(startEtcdCluster({ dataDir: join(dir, "none"), members: 0 }), /1 to 9 members/);
  });
});
