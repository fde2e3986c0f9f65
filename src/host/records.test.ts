import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { RecordStore, recordId } from "./records.ts";

async function withStore(fn: (store: RecordStore, dir: string) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), "ga-records-"));
  try {
    await fn(new RecordStore(dir), dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

test("records are one JSON file each, written atomically, keeping createdAt across updates", async () => {
  await withStore(async (store) => {
    const first = await store.put({ kind: "netns", name: "ga-public", owner: "landscape" }, "creating");
    assert.equal(first.state, "creating");
    const second = await store.put({ kind: "netns", name: "ga-public", owner: "landscape" }, "created");
    assert.equal(second.state, "created");
    assert.equal(second.createdAt, first.createdAt);
    assert.deepEqual(await store.get("netns/ga-public"), second);
    const files = await readdir(store.dir);
    assert.deepEqual(files, ["netns%2Fga-public.json"], "no temp files remain");
  });
});

test("ids name the object: kind, namespace, name", () => {
  assert.equal(recordId({ kind: "link", type: "veth", name: "eth0", netns: "ga-m-a" }), "link/ga-m-a/eth0");
  assert.equal(recordId({ kind: "link", type: "bridge", name: "ga-br" }), "link/-/ga-br");
  assert.equal(recordId({ kind: "nftTable", family: "inet", name: "bastion", netns: "ga-m-a" }), "nftTable/ga-m-a/inet/bastion");
  assert.equal(recordId({ kind: "mount", target: "/s/machines/a/root" }), "mount//s/machines/a/root");
});

test("list skips stray temp and broken files; delete and removeTempFiles clean up", async () => {
  await withStore(async (store) => {
    await store.put({ kind: "mount", target: "/s/m/root" }, "created");
    await store.put({ kind: "process", name: "vpn", command: ["openvpn"], logFile: "/s/vpn.log" }, "created");
    await writeFile(join(store.dir, "x.json.tmp-1-abc"), "{");
    await writeFile(join(store.dir, "broken.json"), "{not json");
    const ids = (await store.list()).map(recordId).sort();
    assert.deepEqual(ids, ["mount//s/m/root", "process/vpn"]);
    await store.removeTempFiles();
    assert.ok(!(await readdir(store.dir)).some((n) => n.includes(".tmp-")));
    await store.delete("process/vpn");
    await store.delete("process/vpn");
    assert.equal(await store.get("process/vpn"), undefined);
  });
});

test("an empty or missing state directory has no records", async () => {
  await withStore(async (_store, dir) => {
    assert.deepEqual(await new RecordStore(join(dir, "nowhere")).list(), []);
  });
});
