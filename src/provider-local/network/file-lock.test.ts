import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FileLockTimeoutError, withFileLock } from "./file-lock.ts";

async function inDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), "pl-lock-"));
  try {
    await fn(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

test("withFileLock runs one holder at a time and removes the lock afterwards", () =>
  inDir(async (dir) => {
    const lock = join(dir, "x.lock");
    let inside = 0;
    let most = 0;
    await Promise.all(
      Array.from({ length: 5 }, () =>
        withFileLock(lock, async () => {
          most = Math.max(most, ++inside);
          await new Promise((r) => setTimeout(r, 5));
          inside--;
        }),
      ),
    );
    assert.equal(most, 1);
    assert.deepEqual(await readdir(dir), []);
  }));

test("a lock whose holder is dead is broken; one held by a live process is waited for, then given up", () =>
  inDir(async (dir) => {
    const lock = join(dir, "x.lock");
    // pid_max is at most 2^22 on Linux: this pid never runs.
    await writeFile(lock, "4194305\n");
    assert.equal(await withFileLock(lock, () => Promise.resolve("ran"), { timeoutMs: 2_000 }), "ran");
    assert.deepEqual(await readdir(dir), []);
    await writeFile(lock, `${process.pid}\n`);
    await assert.rejects(withFileLock(lock, () => Promise.resolve("ran"), { timeoutMs: 100 }), FileLockTimeoutError);
  }));
