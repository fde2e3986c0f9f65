import assert from "node:assert/strict";
import { test } from "node:test";
import { heldByOther, leaseSpecFor, releasedLeaseSpec } from "./lease.ts";

test("leaseSpecFor keeps acquireTime and transitions on a renewal, counts a transition on a takeover", () => {
  const first = leaseSpecFor(undefined, "a", 15_000, Date.UTC(2026, 0, 1));
  assert.deepEqual(first, { holderIdentity: "a", leaseDurationSeconds: 15, acquireTime: "2026-01-01T00:00:00.000000Z", renewTime: "2026-01-01T00:00:00.000000Z", leaseTransitions: 0 });
  const renewed = leaseSpecFor(first, "a", 15_000, Date.UTC(2026, 0, 1, 0, 0, 2));
  assert.equal(renewed.acquireTime, first.acquireTime);
  assert.equal(renewed.renewTime, "2026-01-01T00:00:02.000000Z");
  assert.equal(renewed.leaseTransitions, 0);
  const taken = leaseSpecFor(renewed, "b", 15_000, Date.UTC(2026, 0, 1, 0, 0, 30));
  assert.equal(taken.acquireTime, "2026-01-01T00:00:30.000000Z");
  assert.equal(taken.leaseTransitions, 1);
  assert.deepEqual(releasedLeaseSpec(taken, Date.UTC(2026, 0, 1, 0, 1)), { ...taken, holderIdentity: "", leaseDurationSeconds: 1, renewTime: "2026-01-01T00:01:00.000000Z", acquireTime: "2026-01-01T00:01:00.000000Z" });
});

test("heldByOther: another holder until its duration has passed since observed; never for oneself or no holder", () => {
  const spec = { holderIdentity: "b", leaseDurationSeconds: 15 };
  assert.equal(heldByOther(spec, "a", 1000, 15_999, 0), true);
  assert.equal(heldByOther(spec, "a", 1000, 16_000, 0), false);
  assert.equal(heldByOther(spec, "b", 1000, 2000, 0), false);
  assert.equal(heldByOther({ holderIdentity: "" }, "a", 1000, 2000, 60_000), false);
  assert.equal(heldByOther({ holderIdentity: "b" }, "a", 1000, 2000, 0), false, "no duration, no fallback: expired");
  assert.equal(heldByOther({ holderIdentity: "b" }, "a", 1000, 2000, 15_000), true, "no duration: the fallback counts");
});
