import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { type CpuProfile, monotonicUs, profileWindow } from "./cpuprofile.ts";

const root = "/repo";
const frame = (id: number, functionName: string, url = "", lineNumber = 0) => ({ id, callFrame: { functionName, url, lineNumber } });

const profile: CpuProfile = {
  nodes: [frame(1, "(idle)"), frame(2, "create", "file:///repo/src/storage/sqlite.ts"), frame(3, "(garbage collector)"), frame(4, "respond", "node:internal/http2/core", 2791)],
  startTime: 1_000,
  // Stamps: 1100 create, 1200 idle, 1300 create, 1400 gc, 1500 respond, 1600 create (outside).
  samples: [2, 1, 2, 3, 4, 2],
  timeDeltas: [100, 100, 100, 100, 100, 100],
};

test("a profile window counts only the samples stamped inside it, by function and by file, idle apart", () => {
  const f = profileWindow(profile, 1_100, 1_500, root);
  assert.equal(f.sampledUs, 500);
  assert.equal(f.busyUs, 400);
  assert.deepEqual(f.byFunction, [
    ["create src/storage/sqlite.ts", 200],
    ["(garbage collector)", 100],
    ["respond node:internal/http2/core:2792", 100],
  ]);
  assert.deepEqual(f.byFile, [
    ["src/storage/sqlite.ts", 200],
    ["(garbage collector)", 100],
    ["node:internal/http2/core", 100],
  ]);
});

test("a window before the profile began selects nothing", () => {
  const f = profileWindow(profile, 0, 999, root);
  assert.deepEqual([f.sampledUs, f.busyUs, f.byFunction.length], [0, 0, 0]);
});

test("a real profile's samples fall in a window measured by this process's monotonic clock", () => {
  const dir = mkdtempSync(join(tmpdir(), "cpuprofile-test-"));
  try {
    const from = monotonicUs();
    const r = spawnSync(process.execPath, ["--cpu-prof", "--cpu-prof-dir", dir, "-e", "const end = Date.now() + 300; while (Date.now() < end);"]);
    const to = monotonicUs();
    assert.equal(r.status, 0, String(r.stderr));
    const [file] = readdirSync(dir);
    const f = profileWindow(JSON.parse(readFileSync(join(dir, file!), "utf8")) as CpuProfile, from, to, root);
    assert.ok(f.sampledUs <= to - from, `sampled ${f.sampledUs} µs in a window of ${to - from}`);
    assert.ok(f.busyUs >= 200_000, `busy ${f.busyUs} µs of the 300 ms loop`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
