import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { Layout } from "./layout.ts";
import { formatStatus, readStatus, writeStatus, type LandscapeStatus } from "./status.ts";

const ready: LandscapeStatus = {
  phase: "Ready",
  pid: 42,
  components: [{ name: "gardenlet", pid: 7, state: "running", restarts: 2 }],
  machines: [{ name: "shoot--local--local.worker-w1", state: "Ready", addresses: ["10.250.0.2/24"] }],
};

test("status.json round-trips", (t) => {
  const layout = new Layout(mkdtempSync(join(tmpdir(), "status-")));
  t.after(() => rmSync(layout.dir, { recursive: true, force: true }));
  assert.equal(readStatus(layout), undefined);
  writeStatus(layout, ready);
  assert.deepEqual(readStatus(layout), ready);
});

test("a running landscape lists components with restarts and machines with addresses", () => {
  const text = formatStatus(ready, true);
  assert.match(text, /^landscape: Ready \(supervisor pid 42\)/);
  assert.match(text, /gardenlet\s+running\s+7\s+2/);
  assert.match(text, /shoot--local--local\.worker-w1\s+Ready\s+10\.250\.0\.2\/24/);
});

test("without a live supervisor the landscape is not running, unless it failed", () => {
  assert.equal(formatStatus(undefined, false), "landscape: not running\n");
  assert.equal(formatStatus(ready, false), "landscape: not running\n");
  const failed = formatStatus({ ...ready, phase: "Failed", error: "boom" }, false);
  assert.match(failed, /Failed \(supervisor not running\).*boom/);
  assert.match(failed, /gardenlet\s+stopped\s+-/);
});
