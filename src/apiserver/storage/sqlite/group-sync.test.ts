import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, it } from "node:test";
import { GroupSync, type Waiting } from "./group-sync.ts";

const dir = mkdtempSync(join(tmpdir(), "group-sync-"));
after(() => rmSync(dir, { recursive: true, force: true }));

function recorder() {
  const durable: number[][] = [];
  const failed: { revs: number[]; err: Error }[] = [];
  return {
    durable,
    failed,
    target: {
      durable: (b: Waiting<string>[]) => durable.push(b.map((w) => w.rev)),
      failed: (b: Waiting<string>[], err: Error) => failed.push({ revs: b.map((w) => w.rev), err }),
    },
  };
}

void it("commits added in one turn share one sync; later ones the next, in order", async () => {
  const wal = join(dir, "ok-wal");
  writeFileSync(wal, "x");
  const r = recorder();
  const g = new GroupSync(wal, r.target);
  g.add(1, "a");
  g.add(2, "b");
  await new Promise((res) => setImmediate(res)); // the sync of 1 and 2 runs now
  g.add(3, "c");
  await g.drained();
  assert.deepEqual(r.durable, [[1, 2], [3]]);
  assert.equal(g.syncs, 2);
  g.close();
});

void it("a failed sync fails its commits and every later one", async () => {
  const r = recorder();
  const g = new GroupSync(join(dir, "missing-wal"), r.target);
  g.add(1, "a");
  await g.drained();
  g.add(2, "b");
  assert.deepEqual(r.durable, []);
  assert.deepEqual(r.failed.map((f) => f.revs), [[1], [2]]);
  assert.match(r.failed[0]?.err.message ?? "", /fdatasync of .*missing-wal failed/);
  assert.equal(g.error, r.failed[1]?.err);
});

void it("commits added when a sync completes go into the very next sync, which starts at once", async () => {
  const wal = join(dir, "synced-wal");
  writeFileSync(wal, "x");
  const r = recorder();
  const syncing: boolean[] = [];
  let next = 2;
  const g: GroupSync<string> = new GroupSync(wal, {
    ...r.target,
    synced: () => {
      syncing.push(g.syncing);
      if (next <= 3) g.addNow([{ rev: next++, value: "x" }]);
    },
  });
  g.addNow([{ rev: 1, value: "a" }]);
  assert.equal(g.syncing, true, "addNow starts a sync at once");
  await g.drained();
  assert.deepEqual(r.durable, [[1], [2], [3]]);
  assert.equal(g.syncs, 3);
  assert.deepEqual(syncing, [false, false, false], "no sync runs while synced() is called");
  g.close();
});

void it("reports each successful sync with its commits and how long it took; a failed one is not reported", async () => {
  const wal = join(dir, "observed-wal");
  writeFileSync(wal, "x");
  const r = recorder();
  const seen: { seconds: number; commits: number }[] = [];
  const g = new GroupSync(wal, { ...r.target, observed: (seconds, commits) => seen.push({ seconds, commits }) });
  g.addNow([
    { rev: 1, value: "a" },
    { rev: 2, value: "b" },
  ]);
  g.addNow([{ rev: 3, value: "c" }]);
  await g.drained();
  assert.deepEqual(r.durable, [[1, 2], [3]]);
  assert.deepEqual(seen.map((s) => s.commits), [2, 1]);
  assert.ok(seen.every((s) => s.seconds >= 0 && s.seconds < 60), JSON.stringify(seen));
  g.close();

  const failing: number[] = [];
  const bad = new GroupSync(join(dir, "missing-observed-wal"), { ...recorder().target, observed: (_s, commits) => failing.push(commits) });
  bad.addNow([{ rev: 1, value: "a" }]);
  await bad.drained();
  assert.deepEqual(failing, []);
});
