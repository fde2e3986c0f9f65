import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { withConditions } from "./status.ts";

describe("gardenlet seed status", () => {
  it("updates its conditions, keeps others, moves lastTransitionTime only on a status change", () => {
    const t0 = Date.UTC(2026, 0, 1, 0, 0, 0);
    const backup = { type: "BackupBucketsReady", status: "True" as const, lastTransitionTime: "x", lastUpdateTime: "x", reason: "r", message: "m" };
    const first = withConditions([backup], [{ type: "GardenletReady", status: "True", reason: "GardenletReady", message: "m" }], t0);
    assert.deepEqual(first, [
      backup,
      { type: "GardenletReady", status: "True", reason: "GardenletReady", message: "m", lastTransitionTime: "2026-01-01T00:00:00Z", lastUpdateTime: "2026-01-01T00:00:00Z" },
    ]);
    const same = withConditions(first, [{ type: "GardenletReady", status: "True", reason: "GardenletReady", message: "m" }], t0 + 30_000);
    assert.deepEqual([same[1]!.lastTransitionTime, same[1]!.lastUpdateTime], ["2026-01-01T00:00:00Z", "2026-01-01T00:00:30Z"]);
    const changed = withConditions(same, [{ type: "GardenletReady", status: "False", reason: "x", message: "y" }], t0 + 60_000);
    assert.equal(changed[1]!.lastTransitionTime, "2026-01-01T00:01:00Z");
  });
});
