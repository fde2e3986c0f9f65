import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { waitFor, watchDir } from "./wait.ts";

test("a change in the directory ends a wait at once, not when its timer fires", { timeout: 5000 }, async () => {
  const dir = await mkdtemp(join(tmpdir(), "ga-wait-"));
  const changes = watchDir(dir);
  try {
    const woke = changes.next(60_000);
    await writeFile(join(dir, "started"), "started\n");
    await woke; // the test's 5 s timeout fails it if only the 60 s timer would end the wait
    assert.equal(changes.changed(), true);
    assert.equal(changes.changed(), false, "a change is reported once");
  } finally {
    changes.close();
    await rm(dir, { recursive: true, force: true });
  }
});

test("waitFor answers what the check finds, and undefined after its timeout without a directory to watch", async () => {
  const dir = await mkdtemp(join(tmpdir(), "ga-wait-"));
  const changes = watchDir(dir);
  try {
    setTimeout(() => void writeFile(join(dir, "exit"), "{}"), 20);
    assert.equal(await waitFor(async () => (existsSync(join(dir, "exit")) ? "ended" : undefined), 5000, changes), "ended");
    let checks = 0;
    assert.equal(await waitFor(async () => void checks++, 30), undefined);
    assert.ok(checks >= 2, `checked ${checks} times`);
  } finally {
    changes.close();
    await rm(dir, { recursive: true, force: true });
  }
});
