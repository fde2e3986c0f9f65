import assert from "node:assert/strict";
import { test } from "node:test";
import { CARE_INTERVAL_MS, RECONCILE_POLL_MS, checkIntervalMs } from "./reconciler.ts";

test("the tunnel check runs every 5 s while failing for 15 min after a spec change, else every minute", () => {
  const t0 = 1_000_000;
  assert.equal(checkIntervalMs(false, t0, t0), RECONCILE_POLL_MS);
  assert.equal(checkIntervalMs(false, t0, t0 + 15 * 60_000 - 1), RECONCILE_POLL_MS);
  assert.equal(checkIntervalMs(false, t0, t0 + 15 * 60_000), CARE_INTERVAL_MS);
  assert.equal(checkIntervalMs(true, t0, t0), CARE_INTERVAL_MS);
  assert.equal(RECONCILE_POLL_MS, 5000);
  assert.equal(CARE_INTERVAL_MS, 60_000);
  // A shorter care period (the landscape's) is used while healthy; failing, the check is never slower than it.
  assert.equal(checkIntervalMs(true, t0, t0, 10_000), 10_000);
  assert.equal(checkIntervalMs(false, t0, t0 + 15 * 60_000, 10_000), 10_000);
  assert.equal(checkIntervalMs(false, t0, t0, 2_000), 2_000);
});
