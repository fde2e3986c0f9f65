import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { etcdAvailable, startEtcd } from "./etcd.ts";

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
