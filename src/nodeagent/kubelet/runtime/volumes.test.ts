import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, readFile, readdir, readlink, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { VolumeError, writeAtomic } from "./volumes.ts";

test("atomic writer: ..data swaps to a new directory, top-level links follow, removed keys vanish", async () => {
  const dir = await mkdtemp(join(tmpdir(), "vol-"));
  try {
    assert.equal(await writeAtomic(dir, { a: "1", "sub/b": "2" }), true);
    const first = await readlink(join(dir, "..data"));
    assert.equal(await readFile(join(dir, "a"), "utf8"), "1");
    assert.equal(await readFile(join(dir, "sub", "b"), "utf8"), "2");
    assert.equal(await readlink(join(dir, "a")), "..data/a");
    assert.equal(await writeAtomic(dir, { "sub/b": "2", a: "1" }), false, "same content: no new generation");
    assert.equal(await writeAtomic(dir, { a: "3" }), true);
    assert.notEqual(await readlink(join(dir, "..data")), first);
    assert.equal(await readFile(join(dir, "a"), "utf8"), "3");
    const names = (await readdir(dir)).filter((n) => !n.startsWith("..") || n === first);
    assert.deepEqual(names, ["a"], "sub and the old generation are gone");
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test("atomic writer refuses paths that leave the volume", async () => {
  const dir = await mkdtemp(join(tmpdir(), "vol-"));
  try {
    for (const p of ["../x", "/etc/passwd", "a/../../x", "..data"]) {
      await assert.rejects(writeAtomic(dir, { [p]: "x" }), VolumeError, p);
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
