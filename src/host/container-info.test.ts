import assert from "node:assert/strict";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { containerInfo, refreshContainerInfo, startSettled } from "./containers.ts";
import type { HostContext } from "./context.ts";
import { RecordingExec } from "./exec.ts";
import { Names } from "./names.ts";
import { ref } from "./procs.ts";
import { RecordStore } from "./records.ts";

test("a running container's info is reused until its exit file appears", async () => {
  const stateDir = await mkdtemp(join(tmpdir(), "ga-container-info-"));
  try {
    const ctx: HostContext = { exec: new RecordingExec(), records: new RecordStore(stateDir), names: new Names("ga-"), stateDir, ids: { base: 300_000_000, count: 65536 } };
    const dir = join(stateDir, "c");
    await mkdir(dir);
    // This test's own process stands for the container's first process.
    await writeFile(join(dir, "init.json"), JSON.stringify({ init: ref(process.pid) }));
    await writeFile(join(dir, "started"), "started\n");
    const info = await containerInfo(ctx, "c", dir);
    assert.equal(info.running, true);
    assert.equal(await refreshContainerInfo(ctx, info), info, "nothing re-read while it runs");
    await writeFile(join(dir, "exit"), JSON.stringify({ exitCode: 3, signal: 0, finishedAt: "2026-01-01T00:00:00Z" }));
    const ended = await refreshContainerInfo(ctx, info);
    assert.equal(ended.running, false);
    assert.equal(ended.exit?.exitCode, 3);
    assert.equal(await refreshContainerInfo(ctx, { ...info, init: { pid: 999_999_999, startTime: "1" } }).then((i) => i === info), false, "a gone first process is re-read");
  } finally {
    await rm(stateDir, { recursive: true, force: true });
  }
});

test("a start is over once the command runs and its pid is known, or the container or its shim ended", () => {
  const init = ref(process.pid)!;
  // The command wrote `started`, the shim's fork has not returned yet: no exit.pid, so no pid to exec into.
  assert.equal(startSettled({ started: true, running: true }), false);
  assert.equal(startSettled({ started: true, running: true, init }), true);
  assert.equal(startSettled({ started: false, running: true, init }), false, "still setting up");
  assert.equal(startSettled({ started: false, running: false }), true, "the shim is gone");
  assert.equal(startSettled({ started: false, running: false, exit: { exitCode: 1, signal: 0, finishedAt: "2026-01-01T00:00:00Z" } }), true, "ended during setup");
});
